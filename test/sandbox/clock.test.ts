import { afterEach, vi } from 'vitest';
import { createSandbox, SandboxError } from '../../src/index.js';
import { describe, expect, test as fixtureTest } from '../fixture.js';
import { client, TO } from '../helpers.js';

// The file's options: an extension of its own (a top-level override would change the shared test API for every file after this one in a worker).
const test = fixtureTest.extend({ sandboxOptions: { startTime: '2026-03-01T12:00:00Z' } });
const it = test;
afterEach(() => vi.useRealTimers());

describe('virtual clock', () => {
  it('starts at startTime and moves only with advance', async ({ sandbox }) => {
    expect(sandbox.now().toISOString()).toBe('2026-03-01T12:00:00.000Z');
    await sandbox.advance(1500);
    expect(sandbox.now().toISOString()).toBe('2026-03-01T12:00:01.500Z');
    for (const [d, ms] of [
      ['500ms', 500],
      ['30s', 30_000],
      ['5m', 300_000],
      ['2h', 7_200_000],
      ['1d', 86_400_000],
    ] as const) {
      const before = sandbox.now().getTime();
      await sandbox.advance(d);
      expect(sandbox.now().getTime() - before).toBe(ms);
    }
  });

  it('idle time costs nothing: 30 days with nothing pending returns at once', async ({ sandbox }) => {
    const started = performance.now();
    await sandbox.advance('30d');
    await sandbox.advance('365d');
    expect(sandbox.now().toISOString()).toBe('2027-03-31T12:00:00.000Z');
    // A bound no machine load decides: the two advances take about a millisecond, over 1,000 times
    // less; a walk through the idle time step by step (a millisecond at a time) would take hours.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('runs work due in a long window, even beyond 24.8 days of timers', async ({ sandbox }) => {
    sandbox.network.setBehavior(TO, { ring: '30d', outcome: 'no_answer' });
    const { body: call } = await client(sandbox).placeCall();
    await sandbox.advance('29d');
    expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
    await sandbox.advance('1d');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', ended_at: '2026-03-31T12:00:00.000Z' });
  });

  it('concurrent advances queue instead of interleaving', async ({ sandbox }) => {
    await Promise.all([sandbox.advance('10s'), sandbox.advance('5s')]);
    expect(sandbox.now().toISOString()).toBe('2026-03-01T12:00:15.000Z');
  });

  it('refuses a bad duration with a SandboxError naming the forms', async ({ sandbox }) => {
    await expect(sandbox.advance('-1s')).rejects.toThrow(SandboxError);
    await expect(sandbox.advance('soon')).rejects.toThrow(/'500ms', '30s', '5m', '2h' or '1d'/);
    await expect(sandbox.advance(-5)).rejects.toThrow(SandboxError);
    await expect(sandbox.advance(Number.NaN)).rejects.toThrow(SandboxError);
  });

  it('a whole scenario works under vi.useFakeTimers(), and the user’s fake clock does not move the sandbox', async ({ sandbox, api }) => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const { body: call } = await api.placeCall();
    expect(call.created_at).toBe('2026-03-01T12:00:00.000Z');
    vi.advanceTimersByTime(3_600_000);
    expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
    await sandbox.advance('65s');
    expect((await api.get(`/v1/calls/${call.id}`)).body).toMatchObject({ status: 'completed', duration: 60 });
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
    expect(Date.now()).toBe(Date.parse('2030-01-01T01:00:00Z'));
  });
});

describe('options', () => {
  it.each([
    [{ seed: 1.5 }, /`seed` must be an integer/],
    [{ baseUrl: 'not a url' }, /`baseUrl` .* is not a URL/],
    [{ baseUrl: 'ftp://x.test' }, /http or https/],
    [{ startTime: 'yesterday' }, /`startTime` .* is not a date/],
    [{ startTime: 8.64e15 + 1 }, /outside the range a Date can hold/],
    [{ startTime: '+275760-09-14T00:00:00Z' }, /is not a date/],
    [{ keys: { SVC_LIVE_x: {} } }, /production key/],
    [{ keys: { mykey: {} } }, /not a test key/],
    [{ keys: { SVC_TEST_a: { scopes: ['calls:delete'] } } }, /`keys.SVC_TEST_a.scopes\[0\]` must be '<resource>:read'/],
    [{ keys: { SVC_TEST_a: { plan: 'gold' } } }, /`keys.SVC_TEST_a.plan` must be one of "standard", "enterprise"/],
    [{ dialInterval: 'fast' }, /dialInterval/],
    [{ sede: 1 }, /Unknown option `sede`: did you mean `seed`\?/],
  ])('createSandbox(%j) throws a SandboxError', (options, message) => {
    expect(() => createSandbox(options as never)).toThrow(SandboxError);
    expect(() => createSandbox(options as never)).toThrow(message);
    expect(() => createSandbox(options as never)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
