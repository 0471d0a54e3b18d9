import FakeTimers from '@sinonjs/fake-timers';
import { mock } from 'node:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, SandboxError, startServer, type Sandbox } from '../../src/index.js';
import { client, KEY, TO } from '../helpers.js';
import { jestTimers } from '../support/jest-timers.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * `createSandbox({ clock: 'global' })` (docs/clock-and-determinism.md, "The test's own clock"):
 * the sandbox's time is the process's own Date and timers, as the test has them. Each runner's
 * fake timers are driven here as its users drive them: vitest's `vi.useFakeTimers()`, Jest's
 * modern fake timers (the `ModernFakeTimers` that `jest.useFakeTimers()` installs, from
 * @jest/fake-timers: test/support/jest-timers.ts), @sinonjs/fake-timers' `install()` and
 * `node:test`'s `mock.timers`. Nothing waits in real time: the
 * webhook tests wait for real HTTP to a loopback receiver, which `sandbox.advance(0)` awaits.
 */

const open: Sandbox[] = [];
const uninstall: Array<() => void> = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) sandbox.close();
  for (const undo of uninstall.splice(0)) undo();
  vi.useRealTimers();
  await closeReceivers();
});

function make(options: Parameters<typeof createSandbox>[0] = {}): Sandbox {
  const sandbox = createSandbox({ seed: 1, clock: 'global', ...options }).listen();
  open.push(sandbox);
  return sandbox;
}

/** The three ways a test fakes the process's timers, each with its own advance. */
interface Runner {
  name: string;
  /** Fakes the timers, at `now`. */
  install(now: string): void;
  /** `await vi.advanceTimersByTimeAsync(ms)` and its equivalents. */
  advance(ms: number): Promise<unknown>;
}

const vitest: Runner = {
  name: 'vitest',
  install: (now) => vi.useFakeTimers({ now: new Date(now) }),
  advance: (ms) => vi.advanceTimersByTimeAsync(ms),
};

function jest(): Runner {
  const timers = jestTimers();
  return {
    name: 'Jest',
    install: (now) => {
      timers.useFakeTimers({ now: new Date(now) });
      uninstall.push(() => timers.useRealTimers());
    },
    advance: (ms) => timers.advanceTimersByTimeAsync(ms),
  };
}

function sinon(): Runner {
  let clock: ReturnType<typeof FakeTimers.install> | undefined;
  return {
    name: '@sinonjs/fake-timers',
    install: (now) => {
      // Its default also fakes process.nextTick and queueMicrotask, which stops Node's streams (and
      // with them every request) until the clock ticks: leave them real, as vitest and Jest do.
      const installed = FakeTimers.install({ now: new Date(now), toNotFake: ['nextTick', 'queueMicrotask'] });
      clock = installed;
      uninstall.push(() => installed.uninstall());
    },
    advance: (ms) => clock!.tickAsync(ms),
  };
}

function nodeTest(): Runner {
  return {
    name: "node:test's mock.timers",
    install: (now) => {
      mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse(now) });
      uninstall.push(() => mock.timers.reset());
    },
    // Its tick is synchronous: due timers fire in order, and what they start runs once it returns.
    // So the test yields to work under way first, as the others' asynchronous advances do.
    advance: async (ms) => {
      await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const RUNNERS: Array<() => Runner> = [() => vitest, jest, sinon, nodeTest];

/** A client as an SDK writes it: on 429, sleep `Retry-After` seconds with setTimeout, then try again. */
async function sdkGet(url: string, attempts: string[]): Promise<Response> {
  for (;;) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    attempts.push(`${res.status} at ${new Date().toISOString()}`);
    if (res.status !== 429 || attempts.length > 5) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
  }
}

/**
 * Advances the fake timers in steps until `promise` settles: how a test drives a client that
 * sleeps inside (it cannot know when the client's timer is set). Bounded by `maxMs` of fake time.
 */
async function untilSettled<T>(runner: Runner, promise: Promise<T>, maxMs = 60_000, stepMs = 100): Promise<T> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let elapsed = 0; !settled && elapsed < maxMs; elapsed += stepMs) await runner.advance(stepMs);
  return promise;
}

/** 110 requests at once from the start of a fake second: the 101st is refused. */
async function burst(sandbox: Sandbox): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: 101 }, () => fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } })),
  );
}

describe.each(RUNNERS.map((make) => [make().name, make] as const))("clock: 'global' under %s's fake timers", (_, runnerOf) => {
  it('a call rings, is answered and completes as the test advances its fake timers (installed after createSandbox)', async () => {
    const runner = runnerOf();
    const sandbox = make();
    runner.install('2030-01-01T00:00:00Z');
    const api = client(sandbox);
    const { body: call } = await api.placeCall();
    expect(call).toMatchObject({ status: 'ringing', created_at: '2030-01-01T00:00:00.000Z' });
    expect(sandbox.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    await runner.advance(4_999);
    expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
    await runner.advance(1);
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'answered', answered_at: '2030-01-01T00:00:05.000Z' });
    await runner.advance(60_000);
    expect((await api.get(`/v1/calls/${call.id}`)).body).toMatchObject({
      status: 'completed',
      disposition: 'answered',
      duration: 60,
      ended_at: '2030-01-01T00:01:05.000Z',
    });
    expect(sandbox.events.list().map((e) => [e.type, e.created_at])).toEqual([
      ['call.started', '2030-01-01T00:00:00.000Z'],
      ['call.answered', '2030-01-01T00:00:05.000Z'],
      ['call.completed', '2030-01-01T00:01:05.000Z'],
    ]);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('a rate-limit window passes when the fake clock moves a second, and the 429 says so', async () => {
    const runner = runnerOf();
    runner.install('2030-01-01T00:00:00Z');
    const sandbox = make();
    const answers = await burst(sandbox);
    const refused = answers.find((r) => r.status === 429)!;
    expect(answers.filter((r) => r.status === 200)).toHaveLength(100);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error.message).toMatch(/clock: 'global'.*advancing the test's fake timers by 1 s/);
    await runner.advance(999);
    expect((await fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(429);
    await runner.advance(1);
    expect((await fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it('a webhook retry falls due on the fake clock; advance(0) waits for each attempt to a real receiver', async () => {
    const runner = runnerOf();
    runner.install('2030-01-01T00:00:00Z');
    const sandbox = make();
    const receiver = await startReceiver((_, n) => (n === 1 ? 500 : 200), sandbox);
    await subscribe(sandbox, receiver.url, ['call.started']);
    await client(sandbox).placeCall();
    await sandbox.advance(0); // the first attempt, sent for real at once: answered 500
    expect(sandbox.webhooks.attempts().map((a) => [a.status, a.at])).toEqual([[500, '2030-01-01T00:00:00.000Z']]);
    await runner.advance(29_999);
    await sandbox.advance(0);
    expect(receiver.received).toHaveLength(1);
    await runner.advance(1); // the retry falls due 30 s after the first attempt
    await sandbox.advance(0);
    expect(receiver.received.map((r) => [r.headers['x-service-delivery-attempt'], r.virtualAt])).toEqual([
      ['1', '2030-01-01T00:00:00.000Z'],
      ['2', '2030-01-01T00:00:30.000Z'],
    ]);
    expect(sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered']);
  });

  it('an SDK-style client that sleeps Retry-After with setTimeout gets through a 429 with no real waiting', async () => {
    const runner = runnerOf();
    runner.install('2030-01-01T00:00:00Z');
    const sandbox = make();
    await burst(sandbox); // this second's 100 requests are spent
    const attempts: string[] = [];
    const res = await untilSettled(runner, sdkGet(`${sandbox.baseUrl}/v1/calls`, attempts));
    expect(res.status).toBe(200);
    // The retry left exactly when the fake clock reached the Retry-After: its sleep was a fake timer.
    // A real 1 s sleep would have let untilSettled step the fake clock on meanwhile (to its 60 s
    // bound, in 100 ms steps that take no real time), so the retry would be dated later.
    expect(attempts).toEqual(['429 at 2030-01-01T00:00:00.000Z', '200 at 2030-01-01T00:00:01.000Z']);
  });
});

describe("clock: 'global' decisions", () => {
  it('refuses advance(d) for d above 0, naming the fake timers to advance instead; advance(0) moves nothing', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const sandbox = make();
    const error = await sandbox.advance('30s').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'conflict', param: 'duration' });
    expect((error as Error).message).toMatch(
      /clock is 'global'.*vi\.advanceTimersByTimeAsync\(30000\).*jest\.advanceTimersByTimeAsync\(30000\).*clock\.tickAsync\(30000\)/,
    );
    await expect(sandbox.advanceUntil('call.completed')).rejects.toMatchObject({ code: 'conflict', param: 'match' });
    await sandbox.advance(0);
    expect(sandbox.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    // A refused advance is no input: the snapshot holds only advance(0).
    expect(sandbox.snapshot().inputs).toEqual([{ kind: 'advance', at: Date.parse('2030-01-01T00:00:00Z'), ms: 0 }]);
  });

  it("refuses startTime (the time is the process's), and a server refuses the mode, naming realtime", async () => {
    expect(() => createSandbox({ clock: 'global', startTime: '2030-01-01T00:00:00Z' })).toThrow(
      expect.objectContaining({ code: 'invalid_options', param: 'startTime', message: expect.stringMatching(/vi\.setSystemTime/) }),
    );
    await expect(startServer({ port: 0, clock: 'global' })).rejects.toMatchObject({
      code: 'invalid_options',
      param: 'clock',
      message: expect.stringMatching(/in-process.*'realtime'/),
    });
  });

  it('reads the real clock when no fakes are installed, and follows fakes installed and removed later', () => {
    const sandbox = make();
    const before = Date.now();
    const now = sandbox.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    vi.useFakeTimers({ now: new Date('2040-06-01T00:00:00Z') });
    expect(sandbox.now().toISOString()).toBe('2040-06-01T00:00:00.000Z');
    vi.useRealTimers();
    expect(sandbox.now().getTime()).toBeGreaterThanOrEqual(before);
  });

  it("reset() and close() clear its timers on the process clock; reset keeps the time, which is the test's", async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const sandbox = make();
    await client(sandbox).placeCall();
    expect(vi.getTimerCount()).toBe(1); // the ring
    await vi.advanceTimersByTimeAsync(2_000);
    sandbox.reset();
    expect(vi.getTimerCount()).toBe(0);
    expect(sandbox.now().toISOString()).toBe('2030-01-01T00:00:02.000Z');
    expect(sandbox.events.list()).toEqual([]);
    const { body: again } = await client(sandbox).placeCall();
    expect(again.created_at).toBe('2030-01-01T00:00:02.000Z');
    sandbox.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sandbox.calls.get(again.id)?.status).toBe('ringing');
  });

  it('honours a timer longer than 2^31-1 ms on the fake clock (a 30-day ring)', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const sandbox = make();
    sandbox.network.setBehavior(TO, { ring: '30d', outcome: 'no_answer' });
    const { body: call } = await client(sandbox).placeCall();
    await vi.advanceTimersByTimeAsync(29 * 86_400_000);
    expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
    await vi.advanceTimersByTimeAsync(86_400_000);
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', ended_at: '2030-01-31T00:00:00.000Z' });
  });

  it("a snapshot restores as a 'manual' sandbox at the snapshot's instant, in the same state", async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const sandbox = make();
    const { body: call } = await client(sandbox).placeCall();
    await vi.advanceTimersByTimeAsync(10_000);
    const snapshot = sandbox.snapshot();
    expect(snapshot.options).toMatchObject({ clock: 'global', startTime: '2030-01-01T00:00:00.000Z' });
    vi.useRealTimers();
    const copy = createSandbox({ snapshot });
    try {
      expect(copy.now().toISOString()).toBe('2030-01-01T00:00:10.000Z');
      expect(copy.calls.get(call.id)).toEqual(sandbox.calls.get(call.id));
      await copy.advance('55s'); // a clock of its own now
      expect(copy.calls.get(call.id)).toMatchObject({ status: 'completed', ended_at: '2030-01-01T00:01:05.000Z' });
    } finally {
      copy.close();
    }
  });
});
