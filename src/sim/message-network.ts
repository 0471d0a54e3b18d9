/**
 * The simulated messaging network's defaults (CONTRACT §7): an outbound message is
 * `sent` 1 s after it is accepted, and the carrier reports it `delivered` (or `failed`)
 * 2 s after that. Unreachable destinations are refused before this, by the same rule as
 * calls (`Network.isUnreachable`).
 */

/** From acceptance (`queued`) to `sent`. */
export const SENT_AFTER_MS = 1_000;
/** From `sent` to the carrier's delivery report (`delivered` or `failed`). */
export const REPORT_AFTER_MS = 2_000;

/** Destinations whose messages end `failed` (the call magic numbers are `MAGIC_NUMBERS`). */
export const MAGIC_MESSAGE_NUMBERS: Readonly<Record<string, 'failed'>> = {
  '+15005550009': 'failed',
};

/** How the carrier's delivery report for a message to `to` ends. */
export function deliveryOutcome(to: string): 'delivered' | 'failed' {
  return MAGIC_MESSAGE_NUMBERS[to] ?? 'delivered';
}
