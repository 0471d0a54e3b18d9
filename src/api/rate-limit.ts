import type { Service } from '../core/lifecycle.js';

/** Number-valued stand-in for "no cap" in headers: enterprise keys (see docs/rate-limits.md). */
export const UNCAPPED = 2_147_483_647;

export interface RateDecision {
  allowed: boolean;
  /** The three X-RateLimit headers, for every answer. */
  headers: Record<string, string>;
  /** Whole seconds to the window's end (at least 1), for the 429's Retry-After. */
  retryAfter: number;
}

interface Window {
  start: number;
  count: number;
}

/**
 * Per-key fixed windows of one second of virtual time (CONTRACT §3). Every key's windows
 * share the same boundaries, so when the clock enters a new second every counter is stale
 * and all are dropped: memory holds only the keys seen in the current second (a flood of
 * junk tokens cannot make it grow).
 */
export class RateLimiter implements Service {
  private readonly windows = new Map<string, Window>();
  private current = Number.NaN;

  /** Counts one request of `bucket` at `nowMs` against `limit` (null: no cap). */
  take(bucket: string, limit: number | null, nowMs: number): RateDecision {
    const start = nowMs - (nowMs % 1000);
    if (start !== this.current) {
      this.windows.clear();
      this.current = start;
    }
    let window = this.windows.get(bucket);
    if (!window) {
      window = { start, count: 0 };
      this.windows.set(bucket, window);
    }
    window.count++;
    const end = start + 1000;
    const cap = limit ?? UNCAPPED;
    const allowed = limit === null || window.count <= limit;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(cap),
      'x-ratelimit-remaining': String(Math.max(0, cap - window.count)),
      'x-ratelimit-reset': String(end / 1000),
    };
    return { allowed, headers, retryAfter: Math.max(1, Math.ceil((end - nowMs) / 1000)) };
  }

  reset(): void {
    this.windows.clear();
    this.current = Number.NaN;
  }
}
