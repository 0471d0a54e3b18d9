import type { ClockMode } from '../core/clock.js';
import type { Service } from '../core/lifecycle.js';

/** Number-valued stand-in for "no cap" in headers: enterprise keys (see docs/rate-limits.md). */
export const UNCAPPED = 2_147_483_647;

/** A request's place in its key's window: whether it may pass, and what the X-RateLimit headers say. */
export class RateDecision {
  constructor(
    readonly allowed: boolean,
    /** `X-RateLimit-Limit`: the cap ({@link UNCAPPED} for no cap). */
    readonly limit: number,
    /** `X-RateLimit-Remaining`. */
    readonly remaining: number,
    /** `X-RateLimit-Reset`: Unix epoch seconds of the window's end. */
    readonly reset: number,
    /** Whole seconds to the window's end (at least 1), for the 429's Retry-After. */
    readonly retryAfter: number,
    /** The request counts in a window kept for the rest of the second (false past {@link MAX_WINDOWS} windows). */
    readonly counted = true,
  ) {}

  /** The three X-RateLimit headers, for every answer. */
  get headers(): Record<string, string> {
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(this.remaining),
      'x-ratelimit-reset': String(this.reset),
    };
  }
}

interface Window {
  start: number;
  count: number;
  /** Kept for the rest of its second (false: made for one request, past {@link MAX_WINDOWS}). */
  kept: boolean;
}

/** Windows kept within one second at the most; past it a key without one is not counted until the next second. */
export const MAX_WINDOWS = 10_000;

/**
 * Per-key fixed windows of one second of virtual time (docs/rate-limits.md). Every key's windows
 * share the same boundaries, so when the clock enters a new second every counter is stale
 * and all are dropped. Within one second (the virtual clock may stand still for a whole test)
 * at most MAX_WINDOWS are kept: a key that has none then is not counted until the next second
 * (no window is ever dropped and opened again, so a second's counts are those of its windows,
 * which is what a snapshot keeps of reads it no longer holds, docs/snapshots.md), and tokens
 * that are no key at all share one window: a flood of distinct tokens cannot make memory grow.
 */
export class RateLimiter implements Service {
  private readonly windows = new Map<string, Window>();

  /** How many windows are kept now: bounded (see `MAX_WINDOWS`). */
  get size(): number {
    return this.windows.size;
  }
  private current = Number.NaN;

  /** Counts one request of `bucket` at `nowMs` against `limit` (null: no cap). */
  take(bucket: string, limit: number | null, nowMs: number): RateDecision {
    const window = this.window(bucket, nowMs);
    window.count++;
    return this.decision(window, limit, nowMs);
  }

  /** Counts `n` requests of `bucket` at `nowMs` at once: a snapshot's elided reads, replayed (docs/snapshots.md). */
  count(bucket: string, n: number, nowMs: number): void {
    this.window(bucket, nowMs).count += n;
  }

  /** The headers a request of `bucket` would see now, counting nothing (CORS preflights). */
  peek(bucket: string, limit: number | null, nowMs: number): RateDecision {
    const start = nowMs - (nowMs % 1000);
    const window = (start === this.current ? this.windows.get(bucket) : undefined) ?? { start, count: 0, kept: false };
    return this.decision(window, limit, nowMs);
  }

  private window(bucket: string, nowMs: number): Window {
    const start = nowMs - (nowMs % 1000);
    if (start !== this.current) {
      this.windows.clear();
      this.current = start;
    }
    let window = this.windows.get(bucket);
    if (!window) {
      window = { start, count: 0, kept: this.windows.size < MAX_WINDOWS };
      if (window.kept) this.windows.set(bucket, window);
    }
    return window;
  }

  private decision(window: Window, limit: number | null, nowMs: number): RateDecision {
    const end = window.start + 1000;
    const cap = limit ?? UNCAPPED;
    return new RateDecision(
      limit === null || window.count <= limit,
      cap,
      Math.max(0, cap - window.count),
      end / 1000,
      Math.max(1, Math.ceil((end - nowMs) / 1000)),
      window.kept,
    );
  }

  reset(): void {
    this.windows.clear();
    this.current = Number.NaN;
  }
}

/**
 * The 429 `rate_limited` message. Windows run on the virtual clock: with a manual clock,
 * waiting in real time never ends one, so the message says how to move the clock; with a
 * realtime clock, waiting `Retry-After` seconds does; with the process's (`global`), the test's
 * fake timers do (docs/rate-limits.md).
 */
export function rateLimitedMessage(limit: number | null, retryAfter: number, clock: ClockMode): string {
  const exceeded = `Rate limit of ${limit ?? UNCAPPED} requests per second exceeded for this key.`;
  const wait = `${retryAfter} s`;
  if (clock === 'realtime') return `${exceeded} Wait ${wait} (the Retry-After header) and retry.`;
  if (clock === 'global') {
    return (
      `${exceeded} Retry after ${wait}: the sandbox's clock is the process's (clock: 'global'), so advancing the test's fake timers ` +
      `by ${wait} (or waiting it, with real timers) ends the window.`
    );
  }
  return (
    `${exceeded} Retry after ${wait} of virtual time: call sandbox.advance('${retryAfter}s') (or POST ` +
    `/__sandbox/sessions/{s}/advance with {"duration": "${retryAfter}s"}) — the sandbox's clock is manual, so waiting in real time does ` +
    `not end the window.`
  );
}
