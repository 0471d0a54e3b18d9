/**
 * The instants a JavaScript Date can hold: ±8.64e15 ms around 1970 (ECMA-262 §21.4.1.1).
 * The virtual clock never leaves this range, so `now()` is always a valid Date and every
 * timestamp the sandbox writes is a valid ISO 8601 string.
 */
export const MAX_TIME_MS = 8.64e15;

let lastMs = Number.NaN;
let lastIso = '';

/**
 * An epoch-ms instant as the API writes timestamps (ISO 8601 UTC). A burst of requests, and
 * every event of one instant, share a virtual instant: the last one formatted is kept (a pure
 * function's memo, not state: any sandbox gets the same string for the same instant).
 */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** `iso(ms)`, or null when it has not happened. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** `iso(ms)` that cannot throw: for the paths that report failures, which must never fail themselves. */
export function safeIso(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_TIME_MS ? iso(ms) : String(ms);
}
