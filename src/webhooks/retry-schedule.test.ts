import { describe, expect, it } from 'vitest';
import { attemptOffset, MAX_ATTEMPTS, RETRY_WINDOW_MS, WEBHOOK_RETRY_SCHEDULE } from './retry-schedule.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;

describe('webhook retry schedule', () => {
  it('starts at emission, then waits 30 s, 1 m, 2 m, ... doubling, and ends exactly 24 h after the first', () => {
    expect(WEBHOOK_RETRY_SCHEDULE).toEqual([
      0,
      30 * s,
      1 * m + 30 * s,
      3 * m + 30 * s,
      7 * m + 30 * s,
      15 * m + 30 * s,
      31 * m + 30 * s,
      1 * h + 3 * m + 30 * s,
      2 * h + 7 * m + 30 * s,
      4 * h + 15 * m + 30 * s,
      8 * h + 31 * m + 30 * s,
      17 * h + 3 * m + 30 * s,
      24 * h,
    ]);
    const doubling = WEBHOOK_RETRY_SCHEDULE.slice(0, -1);
    const waits = doubling.slice(1).map((t, i) => t - (doubling[i] ?? Number.NaN));
    for (const [i, wait] of waits.entries()) expect(wait).toBe(30 * s * 2 ** i);
  });

  it('doubles while an attempt starts before 24 h, then makes its last attempt at exactly 24 h (the spec window)', () => {
    expect(MAX_ATTEMPTS).toBe(13);
    expect(WEBHOOK_RETRY_SCHEDULE.at(-1)).toBe(RETRY_WINDOW_MS);
    const beforeLast = WEBHOOK_RETRY_SCHEDULE.at(-2) ?? Number.NaN;
    expect(beforeLast).toBeLessThan(RETRY_WINDOW_MS);
    // The doubling's next attempt would start past the window.
    expect(beforeLast + 30 * s * 2 ** (MAX_ATTEMPTS - 2)).toBeGreaterThan(RETRY_WINDOW_MS);
  });

  it('maps attempt numbers (1-based) to offsets, null past the last', () => {
    expect(attemptOffset(1)).toBe(0);
    expect(attemptOffset(4)).toBe(210 * s);
    expect(attemptOffset(13)).toBe(24 * h);
    expect(attemptOffset(14)).toBeNull();
  });

  it('cannot be changed by a user', () => {
    expect(Object.isFrozen(WEBHOOK_RETRY_SCHEDULE)).toBe(true);
  });
});
