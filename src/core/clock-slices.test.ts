import { describe, expect, it } from 'vitest';
import { turnsDuring } from '../../test/support/turns.js';
import { VirtualClock } from './clock.js';
import { Emitter } from './emitter.js';
import { Steps } from './steps.js';

// Regression: a long advance with many due timers held the event loop for its whole length (a server answered nothing else meanwhile).

/** A clock, and a cascade of timers on it that records each firing (virtual instant, timer) and schedules more. */
function cascade(sliceMs: number) {
  const onError = (error: unknown) => {
    throw error;
  };
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'), {
    onError,
    events: new Emitter(),
    steps: new Steps(onError),
    sliceMs,
  });
  const fired: string[] = [];
  const start = (id: number, delay: number, depth: number) =>
    clock.setTimeout(() => {
      fired.push(`${clock.now()}:${id}`);
      // Each timer starts two more, one at the same instant: order within an instant counts too.
      if (depth > 0) {
        start(id * 2, (id % 7) * 1000, depth - 1);
        start(id * 2 + 1, 0, depth - 1);
      }
    }, delay);
  for (let id = 1; id <= 40; id++) start(id, id * 250, 5);
  return { clock, fired };
}

describe('advance in slices', () => {
  it('yields to the event loop between instants and fires the same timers in the same order as one that never yields', async () => {
    const whole = cascade(Number.POSITIVE_INFINITY);
    const sliced = cascade(0);
    const once = await turnsDuring(() => whole.clock.advance(3_600_000));
    const often = await turnsDuring(() => sliced.clock.advance(3_600_000));
    // One that never yields lets at most the turn that was already due run; a sliced one, one an instant.
    expect(once.turns).toBeLessThanOrEqual(1);
    expect(often.turns).toBeGreaterThan(100);
    expect(sliced.fired.length).toBe(40 * 63);
    expect(sliced.fired).toEqual(whole.fired);
    expect(sliced.clock.now()).toBe(whole.clock.now());
  });

  it('a stop() during a pause ends the advance as interrupted, and no timer fires after it', async () => {
    const { clock, fired } = cascade(0);
    const advance = clock.advance(3_600_000);
    // A few turns of the event loop: the advance runs an instant in each.
    for (let turn = 0; turn < 100 && fired.length < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    const before = fired.length;
    clock.stop();
    await expect(advance).rejects.toMatchObject({ reason: 'stopped' });
    expect(before).toBeGreaterThanOrEqual(10);
    expect(before).toBeLessThan(40 * 63);
    expect(fired.length).toBe(before);
  });
});
