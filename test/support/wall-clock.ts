import FakeTimers from '@sinonjs/fake-timers';
import { WALL_CLOCK, type WallClock } from '../../src/core/clock.js';
import type { Sandbox } from '../../src/index.js';
import { within } from './within.js';

export { WALL_CLOCK };

/**
 * A wall clock the test moves itself, for the `realtime` mode: handed to `createSandbox` or
 * `startServer` as the internal option `[WALL_CLOCK]`, it is what the sandbox's time flows
 * with. `await tick(ms)` is `ms` of wall time passing, at once: no test of the realtime mode
 * sleeps. `pending()` counts the real timers the sandbox holds on it; `nextTimer()`, called
 * before the work that sets one, resolves when the sandbox sets its next one (a test awaits that
 * event instead of polling for it).
 */
export function fakeWall(): { wall: WallClock; tick(ms: number): Promise<unknown>; pending(): number; nextTimer(): Promise<void> } {
  const clock = FakeTimers.createClock(0, 10_000);
  let waiting: Array<() => void> = [];
  return {
    wall: {
      now: () => clock.now,
      setTimeout: (fn, ms) => {
        const id = clock.setTimeout(fn, ms);
        const set = waiting;
        waiting = [];
        for (const resolve of set) resolve();
        return id;
      },
      clearTimeout: (id) => clock.clearTimeout(id as ReturnType<typeof clock.setTimeout>),
    },
    tick: (ms) => clock.tickAsync(ms),
    pending: () => clock.countTimers(),
    nextTimer: () => within(new Promise<void>((resolve) => waiting.push(resolve)), 5000, 'the sandbox setting a wall-clock timer'),
  };
}

/**
 * The next webhook attempt `sandbox` records (answered, failed or timed out), or a failure
 * naming `what` after `ms` of real time: a wait for real I/O, bounded so a test fails instead of hanging.
 */
export function nextAttempt(sandbox: Sandbox, what: string, ms = 5000): Promise<void> {
  let stop: () => void = () => undefined;
  const attempt = new Promise<void>((resolve) => {
    stop = sandbox.webhooks.subscribe(() => {
      stop();
      resolve();
    });
  });
  return within(attempt, ms, `${what}: a webhook attempt`).finally(stop);
}
