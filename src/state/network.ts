import { RuleViolation } from '../core/errors.js';
import type { Service } from '../core/lifecycle.js';
import {
  defaultBehavior,
  defaultMessageOutcome,
  resolveBehavior,
  type CallBehavior,
  type MessageBehavior,
  type MessageOutcome,
  type ResolvedBehavior,
} from '../sim/carrier.js';
import type { Chaos } from './chaos.js';
import { PerNumber } from './per-number.js';

/**
 * The simulated network as a test scripted it: per destination number, a standing call
 * behaviour and message outcome, and one-shot ones queued for the next calls or messages.
 * Behaviours arrive validated (src/scripting/network.ts); a queued one is taken when a call
 * is placed or a message accepted, so it belongs to the call or message that used it up.
 * A call or message to a number nothing scripted (and no magic number) takes the chaos
 * profile's mix, when there is one.
 */
export class Network implements Service {
  private readonly calls = new PerNumber<CallBehavior>();
  private readonly messages = new PerNumber<MessageBehavior>();

  constructor(private readonly chaos?: Chaos) {}

  setBehavior(number: string, behavior: CallBehavior): void {
    this.calls.set(number, behavior);
  }

  queueBehavior(number: string, behaviors: readonly CallBehavior[]): void {
    this.calls.queue(number, behaviors);
  }

  setMessageBehavior(number: string, behavior: MessageBehavior): void {
    this.messages.set(number, behavior);
  }

  queueMessageBehavior(number: string, behaviors: readonly MessageBehavior[]): void {
    this.messages.queue(number, behaviors);
  }

  /** Forgets scripted call and message behaviour of `number`, or of every number. */
  clearBehavior(number?: string): void {
    this.calls.clear(number);
    this.messages.clear(number);
  }

  /** Whether creating a call (or message) to `to` is refused with 422 `unreachable_destination`. */
  isUnreachable(to: string): boolean {
    return (this.calls.peek(to) ?? defaultBehavior(to)).outcome === 'unreachable';
  }

  /**
   * The behaviour of an outbound call being placed to `to` now (one queued behaviour used up),
   * or a refusal when no carrier serves `to`. `param` names the field that gave `to`.
   */
  routeCall(to: string, param: string): ResolvedBehavior {
    this.assertReachable(to, param, 'Call another number');
    return this.nextCall(to);
  }

  /** The outcome of an outbound message to `to`, or a refusal when no carrier serves `to`. */
  routeMessage(to: string, param: string): MessageOutcome {
    this.assertReachable(to, param, 'Send to another number');
    return this.nextMessage(to);
  }

  /** Refuses `to` (given as `param`) when no carrier serves it; `fix` says what to do instead. */
  assertReachable(to: string, param: string, fix: string): void {
    if (this.isUnreachable(to)) throw unreachable(to, param, fix);
  }

  /** The behaviour of a call being placed to `to` now; uses up one queued behaviour. */
  nextCall(to: string): ResolvedBehavior {
    return resolveBehavior(this.calls.take(to) ?? this.unscriptedCall(to));
  }

  /** The outcome of a message accepted for `to` now; uses up one queued behaviour. */
  nextMessage(to: string): MessageOutcome {
    const scripted = this.messages.take(to);
    if (scripted) return scripted.outcome ?? defaultMessageOutcome(to);
    const fallback = defaultMessageOutcome(to);
    return fallback === 'delivered' ? (this.chaos?.message() ?? fallback) : fallback;
  }

  /** A magic number's behaviour, else the chaos mix's draw, else the carrier's default. */
  private unscriptedCall(to: string): CallBehavior {
    const fallback = defaultBehavior(to);
    return fallback.outcome === undefined ? (this.chaos?.call() ?? fallback) : fallback;
  }

  reset(): void {
    this.clearBehavior();
  }
}

function unreachable(to: string, param: string, fix: string): RuleViolation {
  return new RuleViolation(
    'unreachable_destination',
    `\`${param}\` ${to} is unreachable: no carrier serves that destination. ${fix} (in the sandbox, +15005550001, +999… and numbers ` +
      `scripted \`outcome: 'unreachable'\` are unreachable by design).`,
    param,
  );
}
