import { describe, expect, it } from 'vitest';
import { attemptOffset, MAX_ATTEMPTS, RETRY_WINDOW_MS, WEBHOOK_RETRY_SCHEDULE } from './retry-schedule.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;

describe('webhook retry schedule', () => {
  it('starts at emission, then waits 30 s, 1 m, 2 m, ... doubling', () => {
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
    ]);
    const waits = WEBHOOK_RETRY_SCHEDULE.slice(1).map((t, i) => t - WEBHOOK_RETRY_SCHEDULE[i]!);
    for (const [i, wait] of waits.entries()) expect(wait).toBe(30 * s * 2 ** i);
  });

  it('keeps every attempt inside 24 h, and the next doubling would leave it', () => {
    expect(MAX_ATTEMPTS).toBe(12);
    const last = WEBHOOK_RETRY_SCHEDULE[MAX_ATTEMPTS - 1]!;
    expect(last).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(last + 30 * s * 2 ** (MAX_ATTEMPTS - 1)).toBeGreaterThan(RETRY_WINDOW_MS);
  });

  it('maps attempt numbers (1-based) to offsets, null past the last', () => {
    expect(attemptOffset(1)).toBe(0);
    expect(attemptOffset(4)).toBe(210 * s);
    expect(attemptOffset(13)).toBeNull();
  });

  it('cannot be changed by a user', () => {
    expect(Object.isFrozen(WEBHOOK_RETRY_SCHEDULE)).toBe(true);
  });
});
