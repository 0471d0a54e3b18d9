/** The first retry waits this long; each later one waits twice the one before (no jitter). */
export const FIRST_RETRY_MS = 30_000;
/** The spec's window: a failed delivery is retried for up to 24 hours, and the last attempt starts exactly then. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

function offsets(): number[] {
  const list = [0];
  let last = 0;
  for (let wait = FIRST_RETRY_MS; last + wait < RETRY_WINDOW_MS; wait *= 2) {
    last += wait;
    list.push(last);
  }
  // The doubling would next start past the window: the last attempt closes it instead, so a
  // receiver down for 20 hours still gets the event, as it would from the service.
  list.push(RETRY_WINDOW_MS);
  return list;
}

/**
 * When each delivery attempt starts, in ms after the first (which is the event's emission,
 * or the replay): 13 attempts at 0, 30 s, 1 m 30 s, 3 m 30 s, 7 m 30 s, 15 m 30 s,
 * 31 m 30 s, 1 h 3 m 30 s, 2 h 7 m 30 s, 4 h 15 m 30 s, 8 h 31 m 30 s, 17 h 3 m 30 s and
 * 24 h. The doubling runs while an attempt starts before the 24-hour window ends (the next
 * would be 34 h 7 m 30 s), and a last attempt starts exactly 24 h after the first; a delivery
 * whose 13th attempt fails is dead-lettered then. The spec leaves the intervals open;
 * docs/webhooks.md ("Retry schedule") fixes them.
 *
 * @example
 * import { WEBHOOK_RETRY_SCHEDULE } from 'svc-sandbox';
 * WEBHOOK_RETRY_SCHEDULE[3]; // 210000: attempt 4 starts 3 m 30 s after attempt 1
 * WEBHOOK_RETRY_SCHEDULE.at(-1); // 86400000: the last attempt, 24 h after the first
 */
export const WEBHOOK_RETRY_SCHEDULE: readonly number[] = Object.freeze(offsets());

/** Attempts per delivery (and per replay) before the dead-letter queue. */
export const MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE.length;

/** Offset from the first attempt at which attempt `attempt` (1-based) starts, or null after the last. */
export function attemptOffset(attempt: number): number | null {
  return WEBHOOK_RETRY_SCHEDULE[attempt - 1] ?? null;
}
