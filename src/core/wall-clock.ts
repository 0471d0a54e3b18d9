/**
 * The clocks a virtual clock can follow besides its own: its modes, the wall clock (real time and
 * real timers, for the `realtime` mode and a chaos profile's latency) and the process's own
 * `Date` and timers (the `global` mode). The one place in the sandbox that reads real time and
 * sets real timers; core/clock.ts is the virtual clock itself.
 */

/**
 * How the virtual clock moves (docs/clock-and-determinism.md, "Clock modes"): `manual`, only
 * by `advance`; `realtime`, also with the wall clock, 1 ms per ms, running due work by itself.
 * These two are the modes of every road (createSandbox, the server, its sessions).
 */
export const CLOCK_MODES = ['manual', 'realtime'] as const;
/**
 * The modes of an in-process sandbox: those of {@link CLOCK_MODES}, and `global`, where virtual
 * time is the process's own `Date` and timers, real or faked by the test (docs/clock-and-determinism.md,
 * "The test's own clock"). A server has no test's clock to share, so it offers only the first two.
 */
export const SANDBOX_CLOCK_MODES = [...CLOCK_MODES, 'global'] as const;
export type ClockMode = (typeof SANDBOX_CLOCK_MODES)[number];

/** Real time and real timers: what a `realtime` clock follows. */
export interface WallClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/**
 * The wall clock, for the `realtime` mode and the chaos profile's latency: the one place in the
 * sandbox that reads real time and sets real timers. Taken when this module loads, so a test's
 * `vi.useFakeTimers()` installed later neither freezes nor drives a realtime sandbox. A realtime
 * clock may be given another ({@link WALL_CLOCK}): the tests drive a fake-timers clock instead of
 * sleeping.
 */
export const WALL: WallClock = {
  now: Date.now,
  setTimeout: globalThis.setTimeout.bind(globalThis),
  clearTimeout: globalThis.clearTimeout.bind(globalThis) as (id: unknown) => void,
};

/**
 * The key of an internal option of `createSandbox` and `startServer`: the {@link WallClock} a
 * `realtime` clock follows, and a chaos profile's latency is spent on, instead of the real one. Not part of the public options (no user needs
 * it: `clock: 'global'` puts a sandbox on the test's fake timers); the tests of the realtime mode
 * use it to move wall time without waiting for it.
 */
export const WALL_CLOCK: unique symbol = Symbol('svc-sandbox wall clock');

/**
 * The process's own clock, for the `global` mode: `Date.now`, `setTimeout` and `clearTimeout`
 * looked up on `globalThis` at each use, so fake timers a test installs (vitest, Jest, sinon)
 * count from the moment they are installed, before or after the sandbox was made.
 */
export function processNow(): number {
  return globalThis.Date.now();
}

/**
 * Sets a timer on the process's timers as they are now; returns the function that clears it
 * with the `clearTimeout` of the same timers, even if the test has swapped its fakes since.
 * `unref`'d where the timers allow it: like the realtime pump, a sandbox never keeps a process alive.
 */
export function processTimeout(fn: () => void, ms: number): () => void {
  const clear = globalThis.clearTimeout;
  const id: unknown = globalThis.setTimeout(fn, ms);
  (id as { unref?: () => void } | null)?.unref?.();
  return () => clear(id as Parameters<typeof clearTimeout>[0]);
}

/**
 * Waits `ms` of real (wall-clock) time, or less if one of `signals` aborts first: the one real wait
 * outside the realtime mode, for the added latency of a chaos profile (docs/chaos.md), whose
 * point is a client's own timeouts. On the wall clock taken at load, so a test's
 * `vi.useFakeTimers()` neither freezes nor speeds it; on `wall` when the sandbox was given one
 * ({@link WALL_CLOCK}), so a test moves that time instead of waiting for it.
 */
export function realDelay(ms: number, signals: readonly AbortSignal[], wall: WallClock = WALL): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    const done = () => {
      wall.clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = wall.setTimeout(done, ms);
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}
