import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import type { InternalOptions } from '../../src/options.js';
import { client, KEY, TO } from '../helpers.js';
import { fakeWall, nextAttempt, WALL_CLOCK } from '../support/wall-clock.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * Clock modes (docs/clock-and-determinism.md, "Clock modes"): `manual` moves only by
 * `advance`; `realtime` also flows with the wall clock and runs due work by itself. The
 * realtime tests hand the sandbox a wall clock of their own (`fakeWall`) and move it, so
 * every instant is exact and nothing sleeps; only a webhook to a real receiver is waited for.
 */
const open: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) sandbox.close();
  await closeReceivers();
});
function make(options: InternalOptions): Sandbox {
  const sandbox = createSandbox({ seed: 1, ...options } as InternalOptions);
  open.push(sandbox);
  return sandbox;
}
/** A realtime sandbox on a wall clock the test moves. */
function realtime(options: InternalOptions = {}) {
  const wall = fakeWall();
  return { ...wall, sandbox: make({ clock: 'realtime', ...options, [WALL_CLOCK]: wall.wall }) };
}
/** 101 requests at once from the start of a virtual second: the 101st is refused. */
async function rateLimited(sandbox: Sandbox): Promise<Response> {
  await sandbox.advance(1000 - (sandbox.now().getTime() % 1000));
  const answers = await Promise.all(
    Array.from({ length: 101 }, () => sandbox.fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })),
  );
  expect(answers.map((r) => r.status).filter((s) => s === 429)).toHaveLength(1);
  return answers.find((r) => r.status === 429)!;
}

describe('clock modes', () => {
  it("is 'manual' by default: time moves only by advance, and the wall clock is never read", async () => {
    const never = () => {
      throw new Error('a manual sandbox read the wall clock');
    };
    const sandbox = make({ [WALL_CLOCK]: { now: never, setTimeout: never, clearTimeout: never } });
    sandbox.listen();
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    await client(sandbox).placeCall();
    await sandbox.advance('1s');
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:01.000Z');
    await sandbox.advance('64s');
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
    expect(sandbox.internalErrors()).toEqual([]);
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
    expect((error as Error).message).toMatch(
      /`clock` must be one of "manual", "realtime", "global", got "real-time": did you mean "realtime"\?/,
    );
  });

  it('realtime: virtual time flows with the wall clock from startTime, and advance still jumps ahead', async () => {
    const { sandbox, tick } = realtime({ startTime: '2030-01-01T00:00:00Z' });
    const start = Date.parse('2030-01-01T00:00:00Z');
    expect(sandbox.now().getTime()).toBe(start);
    await tick(60);
    expect(sandbox.now().getTime()).toBe(start + 60);
    await sandbox.advance('1h');
    expect(sandbox.now().getTime()).toBe(start + 60 + 3_600_000);
    await tick(30);
    expect(sandbox.now().getTime()).toBe(start + 90 + 3_600_000); // it keeps flowing from there
  });

  it('realtime: a call placed and then only wall time passing reaches answered and completed by itself', async () => {
    const { sandbox, tick } = realtime();
    sandbox.listen();
    sandbox.network.setBehavior(TO, { ring: '5ms', talk: '20ms' });
    const placed = await client(sandbox).placeCall();
    expect(placed.status).toBe(201);
    const types = () =>
      sandbox.events
        .list()
        .filter((e) => (e.data as { id?: string }).id === placed.body.id)
        .map((e) => e.type);
    await tick(4);
    expect(types()).toEqual(['call.started']);
    await tick(1);
    expect(types()).toEqual(['call.started', 'call.answered']);
    await tick(20);
    expect(types()).toEqual(['call.started', 'call.answered', 'call.completed']);
    const at = (type: string) => sandbox.events.list().find((e) => e.type === type)!.created_at;
    expect([at('call.started'), at('call.answered'), at('call.completed')]).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.005Z',
      '2026-01-01T00:00:00.025Z',
    ]);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it("realtime: a call's webhooks reach a real receiver by themselves, in order, with nobody advancing", async () => {
    const { sandbox, tick } = realtime();
    sandbox.listen();
    const receiver = await startReceiver(() => 200);
    await subscribe(sandbox, receiver.url, ['call.started', 'call.answered', 'call.completed']);
    sandbox.network.setBehavior(TO, { ring: '5ms', talk: '10ms' });
    const started = nextAttempt(sandbox, 'call.started');
    await client(sandbox).placeCall();
    await started;
    const answered = nextAttempt(sandbox, 'call.answered');
    await tick(5);
    await answered;
    const completed = nextAttempt(sandbox, 'call.completed');
    await tick(10);
    await completed;
    expect(receiver.received.map((r) => r.body.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
    expect(sandbox.webhooks.attempts().map((a) => [a.ok, a.at])).toEqual([
      [true, '2026-01-01T00:00:00.000Z'],
      [true, '2026-01-01T00:00:00.005Z'],
      [true, '2026-01-01T00:00:00.015Z'],
    ]);
  });

  it('realtime: advance in flight and the wall clock run one after the other, never side by side', async () => {
    const { sandbox, tick } = realtime();
    sandbox.listen();
    sandbox.network.setBehavior(TO, { ring: '10ms', talk: '10s' });
    const placed = await client(sandbox).placeCall();
    const seen: string[] = [];
    sandbox.events.subscribe((e) => seen.push(e.type));
    await Promise.all([sandbox.advance('5s'), tick(30), sandbox.advance('6s')]);
    expect(seen).toEqual(['call.answered', 'call.completed']);
    expect((await client(sandbox).get(`/v1/calls/${placed.body.id}`)).body).toMatchObject({ status: 'completed', duration: 10 });
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('realtime: reset returns to startTime and time flows again; close leaves nothing running', async () => {
    const { sandbox, tick, pending } = realtime();
    await sandbox.advance('1d');
    sandbox.reset();
    const start = Date.parse('2026-01-01T00:00:00Z');
    expect(sandbox.now().getTime()).toBe(start);
    await tick(20);
    expect(sandbox.now().getTime()).toBe(start + 20);
    sandbox.network.setBehavior(TO, { ring: '5ms' });
    sandbox.listen();
    await client(sandbox).placeCall();
    expect(pending()).toBe(1); // the real timer that will run the ring
    sandbox.close();
    expect(pending()).toBe(0); // no real timer was left
    const frozen = sandbox.events.list().length;
    const closedAt = sandbox.now().getTime();
    await tick(40);
    expect(sandbox.events.list().length).toBe(frozen);
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

  it('realtime: the 429 says to wait Retry-After, and that much wall time passing gets through', async () => {
    const { sandbox, tick } = realtime();
    const refused = await rateLimited(sandbox);
    const wait = Number(refused.headers.get('retry-after'));
    expect((await refused.json()).error.message).toBe(
      `Rate limit of 100 requests per second exceeded for this key. Wait ${wait} s (the Retry-After header) and retry.`,
    );
    await tick(wait * 1000 - 1);
    expect((await sandbox.fetch('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(429);
    await tick(1);
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
