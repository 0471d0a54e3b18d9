import type { Duration } from '../core/duration.js';
import { parseDuration } from '../core/duration.js';

/**
 * The simulated carrier and messaging network, as pure data and rules: the defaults and
 * magic numbers of docs/calls.md, and how a call's behaviour resolves. Which behaviour a
 * test scripted for which number is state (src/state/network.ts).
 */

/** How an ended call ended (docs/contract.md). */
export const DISPOSITIONS = ['answered', 'busy', 'no_answer', 'failed', 'canceled'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

/** Who picked up an answered call. */
export const ANSWERED_BY = ['human', 'voicemail', 'ai_receptionist'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/** How a call ends when nobody intervenes. `unreachable` refuses the call at creation (422). */
export const CALL_OUTCOMES = ['answered', 'busy', 'no_answer', 'failed', 'unreachable'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * Who picks up an answered call, when a test scripts it. Scripted, it wins over the AI
 * receptionist: voicemail (or a person) picks up before the receptionist would (docs/calls.md,
 * "Who answers").
 */
export const ANSWERERS = ['human', 'voicemail'] as const;
export type Answerer = (typeof ANSWERERS)[number];

/**
 * What the simulated network does with calls to one destination. Every field is
 * optional; unset ones fall back to the defaults of docs/calls.md.
 *
 * @example
 * sandbox.network.setBehavior('+14155550123', { ring: '12s', answeredBy: 'voicemail', talk: '20s' });
 * sandbox.network.setBehavior('+14155550124', { ring: 'manual' }); // rings until sandbox.calls.answer/hangUp
 */
export interface CallBehavior {
  /** Default `answered`. */
  outcome?: CallOutcome;
  /**
   * How long it rings before the outcome; `'manual'` rings until the test answers or hangs up.
   * Default 5 s (busy and failed 1 s, no answer 30 s).
   */
  ring?: Duration | 'manual';
  /** How long an answered call lasts; `'manual'` until the test hangs up. Default 60 s. */
  talk?: Duration | 'manual';
  /**
   * Who picks up. Default `human`, or the AI receptionist on a call placed with
   * `ai_receptionist: true`; given, it wins over the receptionist (`'voicemail'`: the AI call
   * reaches voicemail, `answered_by: 'voicemail'`).
   */
  answeredBy?: Answerer;
  /** Name of the human agent who answers, shown as the call's `agent`. Default none. */
  agent?: string;
}

/** A behaviour with every default applied; `null` durations mean "until the test acts". */
export interface ResolvedBehavior {
  outcome: Exclude<CallOutcome, 'unreachable'>;
  ringMs: number | null;
  talkMs: number | null;
  /** Null when the test scripted nobody: the call's own default answers (the AI receptionist, or a person). */
  answeredBy: Answerer | null;
  agent: string | null;
}

const DEFAULT_RING_MS: Record<CallOutcome, number> = {
  answered: 5_000,
  busy: 1_000,
  no_answer: 30_000,
  failed: 1_000,
  unreachable: 0,
};
const DEFAULT_TALK_MS = 60_000;

/** The magic destinations of docs/calls.md for calls (and, for `unreachable`, messages). */
export const MAGIC_NUMBERS: Readonly<Record<string, CallBehavior>> = Object.freeze({
  '+15005550001': { outcome: 'unreachable' },
  '+15005550002': { outcome: 'busy' },
  '+15005550003': { outcome: 'no_answer' },
  '+15005550004': { outcome: 'failed' },
});

/** Destinations under this prefix belong to no carrier (docs/contract.md). */
const UNASSIGNED_PREFIX = '+999';

/** What a call to `to` gets when nothing is scripted for it. */
export function defaultBehavior(to: string): CallBehavior {
  return MAGIC_NUMBERS[to] ?? (to.startsWith(UNASSIGNED_PREFIX) ? { outcome: 'unreachable' } : {});
}

/**
 * Applies the defaults to a behaviour that was validated when it was given. A destination
 * that became unreachable after a campaign was accepted fails at once when dialled.
 */
export function resolveBehavior(behavior: CallBehavior): ResolvedBehavior {
  const outcome = behavior.outcome ?? 'answered';
  if (outcome === 'unreachable') return { outcome: 'failed', ringMs: 0, talkMs: 0, answeredBy: null, agent: null };
  const ring = behavior.ring ?? DEFAULT_RING_MS[outcome];
  const talk = behavior.talk ?? DEFAULT_TALK_MS;
  return {
    outcome,
    ringMs: ring === 'manual' ? null : (parseDuration(ring) ?? DEFAULT_RING_MS[outcome]),
    talkMs: talk === 'manual' ? null : (parseDuration(talk) ?? DEFAULT_TALK_MS),
    answeredBy: behavior.answeredBy ?? null,
    agent: behavior.agent ?? null,
  };
}

/** From acceptance (`queued`) to `sent`. */
export const SENT_AFTER_MS = 1_000;
/** From `sent` to the carrier's delivery report (`delivered` or `failed`). */
export const REPORT_AFTER_MS = 2_000;

/** How the carrier's delivery report for an outbound message ends. */
export const MESSAGE_OUTCOMES = ['delivered', 'failed'] as const;
export type MessageOutcome = (typeof MESSAGE_OUTCOMES)[number];

/** Destinations whose messages end `failed` (the call magic numbers are `MAGIC_NUMBERS`). */
export const MAGIC_MESSAGE_NUMBERS: Readonly<Record<string, 'failed'>> = Object.freeze({
  '+15005550009': 'failed',
});

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

/** What a message to `to` gets when nothing is scripted for it. */
export function defaultMessageOutcome(to: string): MessageOutcome {
  return MAGIC_MESSAGE_NUMBERS[to] ?? 'delivered';
}
