import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

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
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });
});
