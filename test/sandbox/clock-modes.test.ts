import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { client, KEY, TO } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * Clock modes (docs/clock-and-determinism.md, "Clock modes"): `manual` moves only by
 * `advance`; `realtime` also flows with the wall clock and runs due work by itself. The
 * realtime tests wait in real time, as the feature is about real time: each wait is bounded
 * and a few hundred milliseconds at most.
 */
const open: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) sandbox.close();
  await closeReceivers();
});
function make(options: Parameters<typeof createSandbox>[0]): Sandbox {
  const sandbox = createSandbox({ seed: 1, ...options });
  open.push(sandbox);
  return sandbox;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls `check` every 10 ms of real time until it holds, for at most `ms`. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}
/** Requests from the start of a virtual second until one is refused with 429 (a burst can straddle a window's end: then again). */
async function rateLimited(sandbox: Sandbox): Promise<Response> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await sandbox.advance(1000 - (sandbox.now().getTime() % 1000));
    const answers = await Promise.all(
      Array.from({ length: 110 }, () => sandbox.fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })),
    );
    const refused = answers.find((r) => r.status === 429);
    if (refused) return refused;
  }
  throw new Error('no 429 in five bursts of 110 requests');
}

describe('clock modes', () => {
  it("is 'manual' by default: time moves only by advance", async () => {
    const sandbox = make({});
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    await sleep(20);
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    await sandbox.advance('1s');
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:01.000Z');
  });

  it('refuses a clock that is no mode, naming the option and the allowed values', () => {
    let error: unknown;
    try {
      createSandbox({ clock: 'real-time' as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'invalid_options', param: 'clock' });
    expect((error as Error).message).toMatch(/`clock` must be one of "manual", "realtime", got "real-time": did you mean "realtime"\?/);
  });

  it('realtime: virtual time flows with the wall clock from startTime, and advance still jumps ahead', async () => {
    const sandbox = make({ clock: 'realtime', startTime: '2030-01-01T00:00:00Z' });
    const start = Date.parse('2030-01-01T00:00:00Z');
    expect(sandbox.now().getTime() - start).toBeLessThan(1000);
    const before = sandbox.now().getTime();
    await sleep(60);
    const after = sandbox.now().getTime();
    expect(after - before).toBeGreaterThanOrEqual(50);
    expect(after - before).toBeLessThan(5000);
    await sandbox.advance('1h');
    expect(sandbox.now().getTime() - after).toBeGreaterThanOrEqual(3_600_000);
    const jumped = sandbox.now().getTime();
    await sleep(30);
    expect(sandbox.now().getTime()).toBeGreaterThan(jumped); // it keeps flowing from there
  });

  it('realtime: a call placed and then only wall time passing reaches answered and completed by itself', async () => {
    const sandbox = make({ clock: 'realtime' }).listen();
    sandbox.network.setBehavior(TO, { ring: '5ms', talk: '20ms' });
    const placed = await client(sandbox).placeCall();
    expect(placed.status).toBe(201);
    const types = () =>
      sandbox.events
        .list()
        .filter((e) => (e.data as { id?: string }).id === placed.body.id)
        .map((e) => e.type);
    expect(await within(2000, () => types().includes('call.completed'))).toBe(true);
    expect(types()).toEqual(['call.started', 'call.answered', 'call.completed']);
    const answered = sandbox.events.list().find((e) => e.type === 'call.answered')!;
    // Ringing took its 5 ms of virtual time, from the instant the call was placed.
    expect(Date.parse(answered.created_at) - Date.parse(placed.body.created_at)).toBe(5);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it("realtime: a call's webhooks reach a real receiver by themselves, in order, with nobody advancing", async () => {
    const sandbox = make({ clock: 'realtime' }).listen();
    const receiver = await startReceiver(() => 200);
    await subscribe(sandbox, receiver.url, ['call.started', 'call.answered', 'call.completed']);
    sandbox.network.setBehavior(TO, { ring: '5ms', talk: '10ms' });
    await client(sandbox).placeCall();
    expect(await within(3000, () => receiver.received.length === 3)).toBe(true);
    expect(receiver.received.map((r) => r.body.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
    expect(sandbox.webhooks.attempts().every((a) => a.ok)).toBe(true);
  });

  it('realtime: advance in flight and the wall clock run one after the other, never side by side', async () => {
    const sandbox = make({ clock: 'realtime' }).listen();
    sandbox.network.setBehavior(TO, { ring: '10ms', talk: '10s' });
    const placed = await client(sandbox).placeCall();
    const seen: string[] = [];
    sandbox.events.subscribe((e) => seen.push(e.type));
    await Promise.all([sandbox.advance('5s'), sleep(30), sandbox.advance('6s')]);
    expect(seen).toEqual(['call.answered', 'call.completed']);
    expect((await client(sandbox).get(`/v1/calls/${placed.body.id}`)).body).toMatchObject({ status: 'completed', duration: 10 });
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('realtime: reset returns to startTime and time flows again; close leaves nothing running', async () => {
    const sandbox = make({ clock: 'realtime' });
    await sandbox.advance('1d');
    sandbox.reset();
    const start = Date.parse('2026-01-01T00:00:00Z');
    expect(sandbox.now().getTime() - start).toBeLessThan(1000);
    await sleep(20);
    expect(sandbox.now().getTime() - start).toBeGreaterThanOrEqual(15);
    sandbox.network.setBehavior(TO, { ring: '5ms' });
    sandbox.listen();
    await client(sandbox).placeCall();
    sandbox.close();
    const frozen = sandbox.events.list().length;
    const closedAt = sandbox.now().getTime();
    await sleep(40);
    expect(sandbox.events.list().length).toBe(frozen); // the ring timer never fired: no real timer was left
    expect(sandbox.now().getTime()).toBe(closedAt); // a closed sandbox's clock stands still
  });

  it('manual: the 429 says to advance the virtual clock, with the call and the control route', async () => {
    const sandbox = make({});
    const refused = await rateLimited(sandbox);
    expect(refused.headers.get('retry-after')).toBe('1');
    const { error } = await refused.json();
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe(
      'Rate limit of 100 requests per second exceeded for this key. Retry after 1 s of virtual time: call sandbox.advance(\'1s\') (or POST /__sandbox/sessions/{s}/advance with {"duration": "1s"}) — the sandbox\'s clock is manual, so waiting in real time does not end the window.',
    );
  });

  it('realtime: the 429 says to wait Retry-After, and waiting it in real time gets through', async () => {
    const sandbox = make({ clock: 'realtime' });
    const refused = await rateLimited(sandbox);
    const wait = Number(refused.headers.get('retry-after'));
    expect((await refused.json()).error.message).toBe(
      `Rate limit of 100 requests per second exceeded for this key. Wait ${wait} s (the Retry-After header) and retry.`,
    );
    await sleep(wait * 1000);
    expect((await sandbox.fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });
});

describe('deprecation', () => {
  const DEPRECATED = { sunset: '2026-07-01T00:00:00Z', link: 'https://docs.example.com/v2' };

  it('puts Deprecation, Sunset and Link on every /v1 answer, errors and 401s included', async () => {
    const sandbox = make({ deprecation: DEPRECATED }).listen();
    const answers = [
      await client(sandbox).get('/v1/calls'),
      await client(sandbox).placeCall({ to: 'nope' }),
      await client(sandbox, null).get('/v1/calls'),
      await client(sandbox).get('/v1/nothing'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 401, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('deprecation')).toBe('@1767225600'); // startTime 2026-01-01T00:00:00Z
      expect(answer.headers.get('sunset')).toBe('Wed, 01 Jul 2026 00:00:00 GMT');
      expect(answer.headers.get('link')).toBe('<https://docs.example.com/v2>; rel="successor-version"');
      expect(answer.headers.get('access-control-expose-headers')).toMatch(/Deprecation, Sunset, Link/);
    }
    const preflight = await fetch(`${sandbox.baseUrl}/v1/calls`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('deprecation')).toBe('@1767225600');
  });

  it('takes the deprecation date from `date`, sends no Link without `link`, and nothing when not deprecated', async () => {
    const dated = make({ deprecation: { sunset: '2027-01-01T00:00:00Z', date: '2025-06-01T00:00:00Z' } });
    const res = await dated.fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.headers.get('deprecation')).toBe(`@${Date.parse('2025-06-01T00:00:00Z') / 1000}`);
    expect(res.headers.get('sunset')).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(res.headers.has('link')).toBe(false);
    const plain = await make({}).fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } });
    expect(['deprecation', 'sunset', 'link'].filter((h) => plain.headers.has(h))).toEqual([]);
  });

  it('documents the headers in the OpenAPI document', () => {
    const doc = make({}).openapi() as any;
    expect(Object.keys(doc.components.headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(doc.paths['/v1/calls'].get.responses['200'].headers).toHaveProperty('Sunset');
    expect(doc.paths['/v1/calls'].get.responses['401'].headers).toHaveProperty('Deprecation');
  });

  it('refuses a sunset before the deprecation date and a link that is no URL, naming the field', () => {
    expect(() => createSandbox({ deprecation: { sunset: '2025-01-01T00:00:00Z' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_options',
        param: 'deprecation.sunset',
        message: expect.stringMatching(/before the deprecation date \(2026-01-01T00:00:00.000Z, the startTime\)/),
      }),
    );
    expect(() => createSandbox({ deprecation: { sunset: '2027-01-01T00:00:00Z', link: 'not a url' } })).toThrow(
      expect.objectContaining({ param: 'deprecation.link' }),
    );
    expect(() => createSandbox({ deprecation: { link: 'https://x.test' } as never })).toThrow(
      expect.objectContaining({ param: 'deprecation.sunset' }),
    );
  });
});
