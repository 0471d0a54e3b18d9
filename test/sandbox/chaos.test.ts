import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, verifyWebhook, type ChaosProfile, type Sandbox, type SandboxOptions } from '../../src/index.js';
import { client, FROM, KEY, TO } from '../helpers.js';
import { fakeWall, WALL_CLOCK } from '../support/wall-clock.js';
import { within } from '../support/within.js';
import type { WallClock } from '../../src/core/clock.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * Chaos profiles (docs/chaos.md), through fetch against an intercepted sandbox: the same
 * seed, profile and workload fail the same way byte for byte; over 1,000 requests, calls,
 * messages and deliveries the observed rates are within four binomial standard deviations
 * of the profile's (deterministic, being seeded); scripting wins over the mix; latency is
 * wall-clock time (a fake wall clock here, moved by the test), and leaves the virtual clock
 * where it was.
 */

afterEach(closeReceivers);

const ENTERPRISE: SandboxOptions = { keys: { [KEY]: { plan: 'enterprise' } } };

const PROFILE: ChaosProfile = {
  requests: {
    default: { serverError: 0.05 },
    'POST /v1/calls': { network: 0.05, rateLimited: 0.1, serverError: 0.1, latency: { rate: 0.2, delay: '1ms', max: '3ms' } },
    '/v1/calls/{id}': { serverError: 0.3, status: 502 },
  },
  calls: { failed: 0.1, busy: 0.1, no_answer: 0.2, voicemail: 0.1 },
  messages: { failed: 0.2 },
  webhooks: { duplicate: 0.2, reorder: 0.2, reorderDelay: '20s' },
};

/** A request as a user's client sends it; a dropped connection is an answer of its own. */
async function send(sandbox: Sandbox, method: string, path: string, body?: unknown) {
  try {
    const res = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, chaos: res.headers.get('x-sandbox-chaos'), body: await res.json() };
  } catch (error) {
    return { status: 'network error', message: (error as Error).message };
  }
}

/** A sandbox whose every `POST /v1/calls` (or, with `default`, every request) gets `delay` of latency, spent on `wall`. */
function chaotic(delay: string, wall: WallClock, route: 'POST /v1/calls' | 'default' = 'POST /v1/calls'): Sandbox {
  return createSandbox({
    seed: 1,
    chaos: { requests: { [route]: { latency: { rate: 1, delay } } } },
    [WALL_CLOCK]: wall,
  } as SandboxOptions);
}

/** What a run shows: every answer, the event log, the deliveries (without real durations) and what the receiver got. */
async function workload(options: SandboxOptions, receiverUrl: string) {
  const sandbox = createSandbox({ seed: 11, ...ENTERPRISE, ...options }).listen();
  try {
    const seen = await exercise(sandbox, receiverUrl);
    sandbox.reset();
    const again = await exercise(sandbox, receiverUrl);
    return { seen, again };
  } finally {
    sandbox.close();
  }
}

async function exercise(sandbox: Sandbox, receiverUrl: string) {
  const answers: unknown[] = [];
  await subscribe(sandbox, receiverUrl, ['call.started', 'call.answered', 'call.completed', 'message.delivered']);
  const number = (await client(sandbox).post('/v1/numbers', { kind: 'local', area_code: '415' })).body.number as string;
  for (let i = 0; i < 30; i++) {
    const placed = await send(sandbox, 'POST', '/v1/calls', { to: `+1415555${String(1000 + i)}`, from: FROM });
    answers.push(placed);
    if (placed.status === 201) answers.push(await send(sandbox, 'GET', `/v1/calls/${(placed.body as { id: string }).id}`));
    answers.push(await send(sandbox, 'POST', '/v1/messages', { from: number, to: TO, body: `hello ${i}` }));
  }
  await sandbox.advance('10m');
  answers.push(await send(sandbox, 'GET', '/v1/calls?limit=100'));
  const deliveries = sandbox.webhooks
    .deliveries()
    .map(({ attempts, ...d }) => ({ ...d, attempts: attempts.map(({ durationMs: _real, ...a }) => a) }));
  return { answers, events: sandbox.events.list(), deliveries };
}

describe('a chaos profile is seeded', () => {
  it('the same seed, profile and workload give the same answers, events and deliveries, byte for byte (and again after reset)', async () => {
    const receiver = await startReceiver();
    const a = await workload({ chaos: PROFILE }, receiver.url);
    const b = await workload({ chaos: PROFILE }, receiver.url);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(a.again)).toBe(JSON.stringify(a.seen));
    // Chaos did fire, of every kind, or the comparison above proves little.
    const statuses = a.seen.answers.map((r) => (r as { status: unknown }).status);
    expect(statuses).toEqual(expect.arrayContaining([201, 503, 502, 429, 'network error']));
    expect(a.seen.answers.some((r) => (r as { chaos: string | null }).chaos?.startsWith('latency='))).toBe(true);
    const dispositions = new Set(
      a.seen.events
        .filter((e) => e.type === 'call.completed')
        .map((e) => (e.data as { disposition: string; answered_by: string | null }).disposition),
    );
    expect([...dispositions].sort()).toEqual(['answered', 'busy', 'failed', 'no_answer']);
    const messages = (a.seen.answers as Array<{ body?: { id?: string; status?: string } }>).filter((r) => r.body?.id?.startsWith('msg_'));
    expect(messages.length).toBeGreaterThan(0);
    expect(a.seen.events.filter((e) => e.type === 'message.delivered').length).toBeLessThan(messages.length);
    expect(a.seen.deliveries.map((d) => d.chaos)).toEqual(expect.arrayContaining(['duplicate', 'held']));
  });

  it('another seed fails otherwise', async () => {
    const receiver = await startReceiver();
    const a = await workload({ chaos: PROFILE }, receiver.url);
    const c = await workload({ chaos: PROFILE, seed: 12 }, receiver.url);
    const statuses = (run: typeof a) => run.seen.answers.map((r) => (r as { status: unknown }).status);
    expect(statuses(c)).not.toEqual(statuses(a));
  });

  it('a profile that fires nothing changes nothing: ids, answers, events and deliveries are those of the run without it', async () => {
    const receiver = await startReceiver();
    const quiet: ChaosProfile = {
      requests: { default: { serverError: 0, latency: { rate: 0, delay: '1s' } }, 'DELETE /v1/webhooks/{id}': { network: 1 } },
      calls: { busy: 0 },
      messages: { failed: 0 },
      webhooks: { duplicate: 0, reorder: 0 },
    };
    const without = await workload({}, receiver.url);
    const withQuiet = await workload({ chaos: quiet }, receiver.url);
    expect(JSON.stringify(withQuiet)).toBe(JSON.stringify(without));
  });
});

/** |observed − n·p| ≤ 4·√(n·p·(1−p)): false about once in 16,000 runs for an honest draw, and never flaky, being seeded. */
function expectRate(observed: number, n: number, p: number, what: string) {
  const tolerance = 4 * Math.sqrt(n * p * (1 - p));
  expect(Math.abs(observed - n * p), `${what}: ${observed} of ${n}, expected ${n * p} ± ${tolerance.toFixed(1)}`).toBeLessThanOrEqual(
    tolerance,
  );
}

describe('each kind of chaos draws from a stream of its own', () => {
  it('extra reads that chaos fails, and deliveries it duplicates, do not change which calls are busy', async () => {
    const dispositions = async (extraTraffic: boolean) => {
      const receiver = await startReceiver();
      const chaos: ChaosProfile = {
        requests: { 'GET /v1/calls/{id}': { serverError: 0.5 } },
        calls: { busy: 0.3 },
        webhooks: { duplicate: 0.5 },
      };
      const sandbox = createSandbox({ seed: 4, ...ENTERPRISE, chaos }).listen();
      try {
        if (extraTraffic) await subscribe(sandbox, receiver.url, ['call.started', 'call.completed']);
        const ids: string[] = [];
        for (let i = 0; i < 20; i++) {
          ids.push((await client(sandbox).placeCall()).body.id);
          if (extraTraffic) await send(sandbox, 'GET', `/v1/calls/${ids[i]}`);
        }
        await sandbox.advance('5m');
        return ids.map((id) => sandbox.calls.get(id)?.disposition);
      } finally {
        sandbox.close();
      }
    };
    const quiet = await dispositions(false);
    expect(await dispositions(true)).toEqual(quiet);
    expect(quiet).toContain('busy');
  });
});

describe('observed rates over 1,000 draws are those of the profile', () => {
  it('request faults and the carrier mix of 1,000 POST /v1/calls', async () => {
    const chaos: ChaosProfile = {
      requests: { 'POST /v1/calls': { network: 0.05, rateLimited: 0.05, serverError: 0.1 } },
      calls: { failed: 0.1, busy: 0.1, no_answer: 0.2, voicemail: 0.1 },
    };
    const sandbox = createSandbox({ seed: 5, ...ENTERPRISE, chaos }).listen();
    try {
      const outcomes: Array<number | 'network error'> = [];
      for (let i = 0; i < 1000; i++)
        outcomes.push((await send(sandbox, 'POST', '/v1/calls', { to: TO, from: FROM })).status as number | 'network error');
      const count = (what: unknown) => outcomes.filter((o) => o === what).length;
      expectRate(count('network error'), 1000, 0.05, 'network errors');
      expectRate(count(429), 1000, 0.05, '429');
      expectRate(count(503), 1000, 0.1, '503');
      expect(count(201) + count(429) + count(503) + count('network error')).toBe(1000);
      // A refused request changed nothing: one call per 201.
      expect(sandbox.calls.list()).toHaveLength(count(201));
      await sandbox.advance('5m');
      const calls = sandbox.calls.list();
      const ended = (disposition: string, answeredBy?: string) =>
        calls.filter((c) => c.disposition === disposition && (answeredBy === undefined || c.answered_by === answeredBy)).length;
      const n = calls.length;
      expectRate(ended('failed'), n, 0.1, 'failed');
      expectRate(ended('busy'), n, 0.1, 'busy');
      expectRate(ended('no_answer'), n, 0.2, 'no_answer');
      expectRate(ended('answered', 'voicemail'), n, 0.1, 'voicemail');
      expectRate(ended('answered', 'human'), n, 0.5, 'answered by a human');
    } finally {
      sandbox.close();
    }
  });

  it('message failures of 1,000 messages, and duplicated and held deliveries of their message.delivered events', async () => {
    const receiver = await startReceiver();
    const sandbox = createSandbox({
      seed: 6,
      ...ENTERPRISE,
      chaos: { messages: { failed: 0.15 }, webhooks: { duplicate: 0.1, reorder: 0.2 } },
    }).listen();
    try {
      const api = client(sandbox);
      await subscribe(sandbox, receiver.url, ['message.delivered']);
      const from = (await api.post('/v1/numbers', { kind: 'local', area_code: '415' })).body.number as string;
      const ids: string[] = [];
      for (let i = 0; i < 1000; i++) ids.push((await api.post('/v1/messages', { from, to: TO, body: 'hi' })).body.id);
      await sandbox.advance('2m');
      const failed = ids.filter((id) => sandbox.messages.get(id)?.status === 'failed').length;
      const delivered = sandbox.events.list({ type: 'message.delivered' }).length;
      expect(failed + delivered).toBe(1000);
      expectRate(failed, 1000, 0.15, 'failed messages');
      const deliveries = sandbox.webhooks.deliveries();
      const originals = deliveries.filter((d) => d.chaos !== 'duplicate');
      expect(originals).toHaveLength(delivered);
      expectRate(deliveries.length - delivered, delivered, 0.1, 'duplicates');
      expectRate(originals.filter((d) => d.chaos === 'held').length, delivered, 0.2, 'held back');
      expect(deliveries.every((d) => d.state === 'delivered')).toBe(true);
      expect(receiver.received).toHaveLength(deliveries.length);
    } finally {
      sandbox.close();
    }
  });
});

describe('what chaos does, one kind at a time', () => {
  it('an injected 5xx or 429 changes nothing and says so in X-Sandbox-Chaos; the most specific route key applies', async () => {
    const sandbox = createSandbox({
      seed: 1,
      chaos: {
        requests: { default: { rateLimited: 1 }, '/v1/calls': { serverError: 1, status: 500 }, 'POST /v1/calls': { serverError: 1 } },
      },
    }).listen();
    try {
      const placed = await send(sandbox, 'POST', '/v1/calls', { to: TO, from: FROM });
      expect(placed).toEqual({
        status: 503,
        chaos: 'status=503',
        body: { error: { code: 'service_unavailable', message: expect.stringContaining('injected 503') } },
      });
      expect(await send(sandbox, 'GET', '/v1/calls')).toMatchObject({
        status: 500,
        chaos: 'status=500',
        body: { error: { code: 'internal_error' } },
      });
      const limited = await fetch(`${sandbox.baseUrl}/v1/messages`, { headers: { authorization: `Bearer ${KEY}` } });
      expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('x-sandbox-chaos')]).toEqual([
        429,
        '1',
        'status=429',
      ]);
      expect(sandbox.calls.list()).toEqual([]);
      expect(sandbox.requests.list().map((r) => [r.method, r.status, r.errorCode])).toEqual([
        ['POST', 503, 'service_unavailable'],
        ['GET', 500, 'internal_error'],
        ['GET', 429, 'rate_limited'],
      ]);
    } finally {
      sandbox.close();
    }
  });

  it('a dropped connection rejects fetch and changes nothing; an injected fault takes precedence over chaos', async () => {
    const sandbox = createSandbox({ seed: 1, chaos: { requests: { 'POST /v1/calls': { network: 1 } } } }).listen();
    try {
      await expect(
        fetch(`${sandbox.baseUrl}/v1/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to: TO, from: FROM }),
        }),
      ).rejects.toThrow(TypeError);
      sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503 });
      expect(await send(sandbox, 'POST', '/v1/calls', { to: TO, from: FROM })).toMatchObject({ status: 503, chaos: null });
      expect(sandbox.calls.list()).toEqual([]);
      expect(sandbox.requests.list().map((r) => r.errorCode)).toEqual(['network_error', 'service_unavailable']);
    } finally {
      sandbox.close();
    }
  });

  it('scripted behaviour and magic numbers win over the carrier mix', async () => {
    const sandbox = createSandbox({ seed: 1, chaos: { calls: { busy: 1 }, messages: { failed: 1 } } }).listen();
    try {
      const api = client(sandbox);
      sandbox.network.setBehavior('+14155550111', { outcome: 'answered' });
      sandbox.network.setMessageBehavior('+14155550111', { outcome: 'delivered' });
      const scripted = (await api.placeCall({ to: '+14155550111' })).body.id;
      const magic = (await api.placeCall({ to: '+15005550003' })).body.id;
      const drawn = (await api.placeCall({ to: TO })).body.id;
      const from = (await api.post('/v1/numbers', { kind: 'local', area_code: '415' })).body.number;
      const kept = (await api.post('/v1/messages', { from, to: '+14155550111', body: 'a' })).body.id;
      const lost = (await api.post('/v1/messages', { from, to: TO, body: 'b' })).body.id;
      await sandbox.advance('3m');
      expect([scripted, magic, drawn].map((id) => sandbox.calls.get(id)?.disposition)).toEqual(['answered', 'no_answer', 'busy']);
      expect([kept, lost].map((id) => sandbox.messages.get(id)?.status)).toEqual(['delivered', 'failed']);
    } finally {
      sandbox.close();
    }
  });

  it('latency is wall-clock time, after the request was handled; the virtual clock does not move', async () => {
    const fake = fakeWall();
    const sandbox = chaotic('150ms', fake.wall).listen();
    try {
      let answered = false;
      const timer = fake.nextTimer();
      const placing = send(sandbox, 'POST', '/v1/calls', { to: TO, from: FROM }).finally(() => (answered = true));
      // Handled (the call exists), and its answer waits on one wall-clock timer.
      await timer;
      expect(fake.pending()).toBe(1);
      expect(sandbox.calls.list()).toHaveLength(1);
      await fake.tick(149);
      expect(fake.pending()).toBe(1);
      expect(answered).toBe(false);
      await fake.tick(1);
      expect(await within(placing, 5000, 'the answer once 150 ms of wall time passed')).toMatchObject({
        status: 201,
        chaos: 'latency=150ms',
      });
      expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
      // A client that gives up first sees its abort, and yet its call was placed: retrying blindly would place a second one.
      const giveUp = new AbortController();
      const second = fake.nextTimer();
      const abandoned = fetch(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: TO, from: FROM }),
        signal: giveUp.signal,
      });
      await second;
      expect(fake.pending()).toBe(1);
      giveUp.abort();
      await expect(within(abandoned, 5000, 'the abandoned request')).rejects.toThrow(/abort/i);
      expect(sandbox.calls.list()).toHaveLength(2);
    } finally {
      sandbox.close();
    }
  });

  // The wall clock below never moves: only the abort, or close(), can end the wait.
  it('a client that gives up stops the wait: sandbox.fetch rejects with its abort reason, and the latency timer is cleared', async () => {
    const fake = fakeWall();
    const sandbox = chaotic('60s', fake.wall);
    try {
      const giveUp = new AbortController();
      const timer = fake.nextTimer();
      const placing = sandbox.fetch('/v1/calls', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: TO, from: FROM }),
        signal: giveUp.signal,
      });
      await timer;
      expect(fake.pending()).toBe(1);
      const reason = new DOMException('The client gave up.', 'TimeoutError');
      giveUp.abort(reason);
      await expect(within(placing, 5000, 'sandbox.fetch after the abort')).rejects.toBe(reason);
      expect(fake.pending()).toBe(0);
      expect(sandbox.calls.list()).toHaveLength(1);
    } finally {
      sandbox.close();
    }
  });

  it('close() cuts an added latency short', async () => {
    const fake = fakeWall();
    const sandbox = chaotic('60s', fake.wall, 'default').listen();
    const timer = fake.nextTimer();
    const answer = fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } });
    await timer;
    expect(fake.pending()).toBe(1);
    sandbox.close();
    await within(
      answer.catch(() => undefined),
      5000,
      'the request cut short by close()',
    );
    expect(fake.pending()).toBe(0);
  });

  it('duplicated deliveries carry the same event id, body and signature; held ones arrive after later events', async () => {
    const receiver = await startReceiver();
    const sandbox = createSandbox({ seed: 3, chaos: { webhooks: { duplicate: 0.3, reorder: 0.3, reorderDelay: '2m' } } }).listen();
    try {
      const { secret } = await subscribe(sandbox, receiver.url, ['call.started', 'call.answered', 'call.completed']);
      for (let i = 0; i < 10; i++) await client(sandbox).placeCall();
      await sandbox.advance('10m');
      const byEvent = new Map<string, typeof receiver.received>();
      for (const r of receiver.received)
        byEvent.set(r.headers['x-service-event-id'] as string, [...(byEvent.get(r.headers['x-service-event-id'] as string) ?? []), r]);
      const twice = [...byEvent.values()].filter((copies) => copies.length === 2);
      expect(twice.length).toBeGreaterThan(0);
      for (const [first, second] of twice) {
        expect(second!.raw.equals(first!.raw)).toBe(true);
        expect(second!.headers['x-service-signature']).toBe(first!.headers['x-service-signature']);
        expect(verifyWebhook(second!.raw, second!.headers['x-service-signature'] as string, secret)).toBe(true);
      }
      expect([...byEvent.values()].every((copies) => copies.length <= 2)).toBe(true);
      // Every event reached the receiver; a held one left reorderDelay after it was emitted.
      expect(byEvent.size).toBe(sandbox.events.list().filter((e) => e.type.startsWith('call.')).length);
      const held = sandbox.webhooks.deliveries().filter((d) => d.chaos === 'held');
      expect(held.length).toBeGreaterThan(0);
      for (const d of held) expect(Date.parse(d.attempts[0]!.at) - Date.parse(d.event.created_at)).toBe(120_000);
      // Some call's events arrived out of the order they were emitted in.
      const order = sandbox.events.list().map((e) => e.id);
      const arrival = receiver.received.map((r) => order.indexOf(r.headers['x-service-event-id'] as string));
      expect(arrival.some((position, i) => i > 0 && position < arrival[i - 1]!)).toBe(true);
    } finally {
      sandbox.close();
    }
  });
});

describe('a bad profile is refused at createSandbox, naming the field', () => {
  const refusal = (chaos: unknown) => {
    try {
      createSandbox({ chaos: chaos as ChaosProfile });
    } catch (error) {
      expect(error).toBeInstanceOf(SandboxError);
      return { code: (error as SandboxError).code, param: (error as SandboxError).param, message: (error as SandboxError).message };
    }
    throw new Error('accepted');
  };

  it.each([
    [{ calls: { busy: 1.5 } }, 'chaos.calls.busy', /from 0 to 1/],
    [{ calls: { busy: 0.6, no_answer: 0.6 } }, 'chaos.calls', /add up to at most 1; they add up to 1\.2/],
    [{ calls: { noAnswer: 0.1 } }, 'chaos.calls.noAnswer', /did you mean `no_answer`/],
    [
      { requests: { 'POST /v1/cals': { serverError: 0.1 } } },
      'chaos.requests.POST /v1/cals',
      /fits no route.*did you mean "POST \/v1\/calls"/,
    ],
    [{ requests: { 'FETCH /v1/calls': {} } }, 'chaos.requests.FETCH /v1/calls', /is not "default", a path/],
    [{ requests: { default: { latency: { rate: 0.1, delay: '2m' } } } }, 'chaos.requests.default.latency.delay', /from 1 ms to 60 s/],
    [
      { requests: { default: { latency: { rate: 0.1, delay: '2s', max: '1s' } } } },
      'chaos.requests.default.latency.max',
      /at least `delay`/,
    ],
    [{ requests: { default: { serverError: 0.5, status: 404 } } }, 'chaos.requests.default.status', /from 500 to 599/],
    [{ webhooks: { duplicate: -0.1 } }, 'chaos.webhooks.duplicate', /from 0 to 1/],
    [{ webhook: {} }, 'chaos.webhook', /did you mean `webhooks`/],
  ])('%j → %s', (chaos, param, message) => {
    const refused = refusal(chaos);
    expect(refused).toMatchObject({ code: 'invalid_options', param });
    expect(refused.message).toMatch(message);
  });
});
