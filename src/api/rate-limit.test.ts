import { describe, expect, it } from 'vitest';
import { MAX_WINDOWS, RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('counts per bucket within a second and starts afresh in the next', () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 3; i++) limiter.take('a', 3, 1_000_500);
    expect(limiter.take('a', 3, 1_000_999).allowed).toBe(false);
    expect(limiter.take('b', 3, 1_000_999).allowed).toBe(true);
    expect(limiter.take('a', 3, 1_001_000).headers['x-ratelimit-remaining']).toBe('2');
  });

  it('regression: a flood of distinct junk tokens no longer grows its memory past the current second', () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 1000; i++) limiter.take(`junk-${i}`, 100, 5_000);
    limiter.take('a', 100, 6_000);
    expect(limiter.size).toBe(1);
  });

  it('within one second keeps at most MAX_WINDOWS windows: a key without one then is not counted until the next second', () => {
    const limiter = new RateLimiter();
    limiter.take('first', 100, 5_000);
    limiter.take('first', 100, 5_000);
    for (let i = 1; i < MAX_WINDOWS; i++) expect(limiter.take(`key-${i}`, 100, 5_000).counted).toBe(true);
    expect(limiter.size).toBe(MAX_WINDOWS);
    // No window is dropped: the first key goes on counting.
    expect(limiter.take('first', 100, 5_000).headers['x-ratelimit-remaining']).toBe('97');
    // A key past them has no window this second: each request is its own, counted nowhere.
    for (let i = 0; i < 3; i++) {
      const late = limiter.take('late', 100, 5_000);
      expect([late.counted, late.allowed, late.headers['x-ratelimit-remaining']]).toEqual([false, true, '99']);
    }
    expect(limiter.size).toBe(MAX_WINDOWS);
    // The next second starts afresh, the late key with a window of its own.
    expect(limiter.take('late', 100, 6_000).counted).toBe(true);
    expect(limiter.take('late', 100, 6_000).headers['x-ratelimit-remaining']).toBe('98');
  });

  it('peek() shows the headers without counting', () => {
    const limiter = new RateLimiter();
    limiter.take('a', 10, 7_000);
    expect(limiter.peek('a', 10, 7_200).headers).toEqual({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': '8',
    });
    expect(limiter.peek('a', 10, 7_200).headers['x-ratelimit-remaining']).toBe('9');
    expect(limiter.peek('b', 10, 7_200).headers['x-ratelimit-remaining']).toBe('10');
    expect(limiter.peek('a', 10, 8_000).headers['x-ratelimit-remaining']).toBe('10'); // a new second
  });
});
