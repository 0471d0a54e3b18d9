import { SandboxError } from '../core/errors.js';
import { E164 } from '../core/phone.js';
import { toMs, type Duration } from '../core/duration.js';
import { PerNumber } from './per-number.js';

/** How a call ends when nobody intervenes. `unreachable` refuses the call at creation (422). */
export type CallOutcome = 'answered' | 'busy' | 'no_answer' | 'failed' | 'unreachable';

/** Who picks up an answered call (an AI receptionist call is always answered by the AI). */
export type Answerer = 'human' | 'voicemail';

/**
 * What the simulated network does with calls to one destination. Every field is
 * optional; unset ones fall back to the defaults of CONTRACT §7.
 *
 * @example
 * sandbox.network.setBehavior('+14155550123', { ring: '12s', answeredBy: 'voicemail', talk: '20s' });
 * sandbox.network.setBehavior('+14155550124', { ring: 'manual' }); // rings until sandbox.calls.answer/hangUp
 */
export interface CallBehavior {
  /** Default `answered`. */
  outcome?: CallOutcome;
  /** How long it rings before the outcome; `'manual'` rings until the test answers or hangs up. Default 5 s (busy and failed 1 s, no answer 30 s). */
  ring?: Duration | 'manual';
  /** How long an answered call lasts; `'manual'` until the test hangs up. Default 60 s. */
  talk?: Duration | 'manual';
  /** Default `human`. */
  answeredBy?: Answerer;
  /** Name of the human agent who answers, shown as the call's `agent`. Default none. */
  agent?: string;
}

/** A behaviour with every default applied; `null` durations mean "until the test acts". */
export interface ResolvedBehavior {
  outcome: Exclude<CallOutcome, 'unreachable'>;
  ringMs: number | null;
  talkMs: number | null;
  answeredBy: Answerer;
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

/** The magic destinations of CONTRACT §7 (the message one lives with messaging). */
export const MAGIC_NUMBERS: Readonly<Record<string, CallBehavior>> = {
  '+15005550001': { outcome: 'unreachable' },
  '+15005550002': { outcome: 'busy' },
  '+15005550003': { outcome: 'no_answer' },
  '+15005550004': { outcome: 'failed' },
};

/** Destinations under this prefix belong to no carrier (CONTRACT §4). */
const UNASSIGNED_PREFIX = '+999';

const OUTCOMES: readonly CallOutcome[] = ['answered', 'busy', 'no_answer', 'failed', 'unreachable'];
const ANSWERERS: readonly Answerer[] = ['human', 'voicemail'];

/**
 * The simulated carrier's view of destinations: magic numbers, per-number behaviour set
 * by a test, and one-shot behaviours queued for the next calls to a number.
 */
export class Network {
  private readonly scripted = new PerNumber<CallBehavior>();

  setBehavior(number: string, behavior: CallBehavior): void {
    this.scripted.set(checkNumber(number, 'setBehavior'), checkBehavior(behavior, 'setBehavior'));
  }

  queueBehavior(number: string, behaviors: CallBehavior[]): void {
    const key = checkNumber(number, 'queueBehavior');
    this.scripted.queue(key, behaviors.map((b) => checkBehavior(b, 'queueBehavior')));
  }

  clearBehavior(number?: string): void {
    this.scripted.clear(number);
  }

  /** What a call to `to` gets when nothing is scripted for it. */
  private fallback(to: string): CallBehavior {
    return MAGIC_NUMBERS[to] ?? (to.startsWith(UNASSIGNED_PREFIX) ? { outcome: 'unreachable' } : {});
  }

  /** Whether creating a call (or message) to `to` is refused with 422 `unreachable_destination`. */
  isUnreachable(to: string): boolean {
    return (this.scripted.peek(to) ?? this.fallback(to)).outcome === 'unreachable';
  }

  /** The behaviour of a call being placed to `to` now; uses up one queued behaviour. */
  nextCall(to: string): ResolvedBehavior {
    return resolveBehavior(this.scripted.take(to) ?? this.fallback(to));
  }
}

/**
 * Applies the defaults. A destination that became unreachable after a campaign was
 * accepted fails at once when dialled.
 */
export function resolveBehavior(behavior: CallBehavior): ResolvedBehavior {
  const outcome = behavior.outcome ?? 'answered';
  if (outcome === 'unreachable') return { outcome: 'failed', ringMs: 0, talkMs: 0, answeredBy: 'human', agent: null };
  const ring = behavior.ring ?? DEFAULT_RING_MS[outcome];
  const talk = behavior.talk ?? DEFAULT_TALK_MS;
  return {
    outcome,
    ringMs: ring === 'manual' ? null : toMs(ring, 'ring'),
    talkMs: talk === 'manual' ? null : toMs(talk, 'talk'),
    answeredBy: behavior.answeredBy ?? 'human',
    agent: behavior.agent ?? null,
  };
}

export function checkNumber(number: unknown, where: string): string {
  if (typeof number !== 'string' || !E164.test(number)) {
    throw new SandboxError(`${where}: ${JSON.stringify(number)} is not an E.164 number; write it as + and 2 to 15 digits, e.g. +14155550123.`);
  }
  return number;
}

/** Validates a behaviour now, so a typo fails where it was written, not at the next call. */
export function checkBehavior(behavior: CallBehavior, where: string): CallBehavior {
  if (behavior === null || typeof behavior !== 'object') throw new SandboxError(`${where}: the behaviour must be an object such as { outcome: 'busy' }.`);
  const known = ['outcome', 'ring', 'talk', 'answeredBy', 'agent'];
  for (const key of Object.keys(behavior)) {
    if (!known.includes(key)) throw new SandboxError(`${where}: unknown behaviour field '${key}'; use ${known.join(', ')}.`);
  }
  if (behavior.outcome !== undefined && !OUTCOMES.includes(behavior.outcome))
    throw new SandboxError(`${where}: outcome must be one of ${OUTCOMES.join(', ')}; got ${JSON.stringify(behavior.outcome)}.`);
  if (behavior.answeredBy !== undefined && !ANSWERERS.includes(behavior.answeredBy))
    throw new SandboxError(`${where}: answeredBy must be 'human' or 'voicemail'; got ${JSON.stringify(behavior.answeredBy)}.`);
  if (behavior.agent !== undefined && (typeof behavior.agent !== 'string' || behavior.agent === ''))
    throw new SandboxError(`${where}: agent must be a non-empty string.`);
  if (behavior.ring !== undefined && behavior.ring !== 'manual') toMs(behavior.ring, `${where}: ring`);
  if (behavior.talk !== undefined && behavior.talk !== 'manual') toMs(behavior.talk, `${where}: talk`);
  return { ...behavior };
}
