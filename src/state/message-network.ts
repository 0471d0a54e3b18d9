import { SandboxError } from '../core/errors.js';
import { checkNumber } from './network.js';
import { PerNumber } from './per-number.js';

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

/** How the carrier's delivery report for an outbound message ends. */
export type MessageOutcome = 'delivered' | 'failed';

/**
 * What the simulated messaging network does with messages to one destination. Whether a
 * destination is reachable at all is the carrier's, for calls and messages alike:
 * `network.setBehavior(number, { outcome: 'unreachable' })`.
 *
 * @example
 * sandbox.network.setMessageBehavior('+14155550123', { outcome: 'failed' });
 */
export interface MessageBehavior {
  /** Default `delivered` (`failed` for +15005550009). */
  outcome?: MessageOutcome;
}

const MESSAGE_OUTCOMES: readonly MessageOutcome[] = ['delivered', 'failed'];

/**
 * Per-destination message outcomes set by a test: a standing one, and one-shot ones queued
 * for the next messages. Taken when a message is accepted, as a call's behaviour is when it
 * is placed, so a queued outcome belongs to the message that used it up.
 */
export class MessageNetwork {
  private readonly scripted = new PerNumber<MessageBehavior>();

  setBehavior(number: string, behavior: MessageBehavior): void {
    this.scripted.set(checkNumber(number, 'setMessageBehavior'), checkMessageBehavior(behavior, 'setMessageBehavior'));
  }

  queueBehavior(number: string, behaviors: MessageBehavior[]): void {
    const key = checkNumber(number, 'queueMessageBehavior');
    this.scripted.queue(key, behaviors.map((b) => checkMessageBehavior(b, 'queueMessageBehavior')));
  }

  clearBehavior(number?: string): void {
    this.scripted.clear(number);
  }

  /** The outcome of a message accepted for `to` now; uses up one queued behaviour. */
  nextMessage(to: string): MessageOutcome {
    return this.scripted.take(to)?.outcome ?? MAGIC_MESSAGE_NUMBERS[to] ?? 'delivered';
  }
}

function checkMessageBehavior(behavior: MessageBehavior, where: string): MessageBehavior {
  if (behavior === null || typeof behavior !== 'object' || Array.isArray(behavior)) {
    throw new SandboxError(`${where}: the behaviour must be an object such as { outcome: 'failed' }.`);
  }
  for (const key of Object.keys(behavior)) {
    if (key !== 'outcome') throw new SandboxError(`${where}: unknown behaviour field '${key}'; a message behaviour has only outcome.`);
  }
  if (behavior.outcome !== undefined && !MESSAGE_OUTCOMES.includes(behavior.outcome)) {
    throw new SandboxError(
      `${where}: outcome must be 'delivered' or 'failed'; got ${JSON.stringify(behavior.outcome)}. (An unreachable destination is set with network.setBehavior, for calls and messages alike.)`,
    );
  }
  return { ...behavior };
}
