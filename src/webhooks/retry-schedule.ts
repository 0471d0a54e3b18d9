/** The first retry waits this long; each later one waits twice the one before (no jitter). */
export const FIRST_RETRY_MS = 30_000;
/** No attempt starts later than this after the first one (spec: retried for up to 24 hours). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

function offsets(): number[] {
  const list = [0];
  for (let wait = FIRST_RETRY_MS; list[list.length - 1]! + wait <= RETRY_WINDOW_MS; wait *= 2) {
    list.push(list[list.length - 1]! + wait);
  }
  return list;
}

/**
 * When each delivery attempt starts, in ms after the first (which is the event's
 * emission, or the replay): 12 attempts at 0, 30 s, 1 m 30 s, 3 m 30 s, 7 m 30 s,
 * 15 m 30 s, 31 m 30 s, 1 h 3 m 30 s, 2 h 7 m 30 s, 4 h 15 m 30 s, 8 h 31 m 30 s and
 * 17 h 3 m 30 s. The 13th would start at 34 h 7 m 30 s, past the 24-hour window, so a
 * delivery whose 12th attempt fails is dead-lettered then. The spec leaves the intervals
 * open; docs/webhooks.md and docs/webhooks.md fix them.
 *
 * @example
 * import { WEBHOOK_RETRY_SCHEDULE } from 'svc-sandbox';
 * WEBHOOK_RETRY_SCHEDULE[3]; // 210000: attempt 4 starts 3 m 30 s after attempt 1
 */
export const WEBHOOK_RETRY_SCHEDULE: readonly number[] = Object.freeze(offsets());

/** Attempts per delivery (and per replay) before the dead-letter queue. */
export const MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE.length;

/** Offset from the first attempt at which attempt `attempt` (1-based) starts, or null after the last. */
export function attemptOffset(attempt: number): number | null {
  return WEBHOOK_RETRY_SCHEDULE[attempt - 1] ?? null;
}
