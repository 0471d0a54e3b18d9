/** Number-valued stand-in for "no cap" in headers: enterprise keys (see docs/rate-limits.md). */
export const UNCAPPED = 2_147_483_647;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  start: number;
  count: number;
}

/**
 * Per-key fixed windows of one second of virtual time (CONTRACT §3). Only the current
 * window of each key is kept, so memory grows with keys, not with requests.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  /** Counts one request of `bucket` at `nowMs` against `limit` (null: no cap). */
  take(bucket: string, limit: number | null, nowMs: number): RateDecision {
    const start = nowMs - (nowMs % 1000);
    let window = this.windows.get(bucket);
    if (!window || window.start !== start) {
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
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((end - nowMs) / 1000)));
    return { allowed, headers };
  }

  clear(): void {
    this.windows.clear();
  }
}
