import { DURATION_HINT, DURATION_JSON_SCHEMA, parseDuration, type Duration } from '../core/duration.js';
import { custom, invalid, name, object, oneOf, optional, phoneNumber, show, string, type Schema, said } from '../core/schema.js';
import { ANSWERERS, CALL_OUTCOMES, MESSAGE_OUTCOMES, type CallBehavior, type MessageBehavior } from '../sim/carrier.js';
import type { Network } from '../state/network.js';
import { act, check, type ControlContext, change } from './context.js';

/** A duration, or `'manual'`: "until the test acts". */
const durationOrManual: Schema<Duration | 'manual'> = custom({
  hint: `'manual', or ${DURATION_HINT}`,
  parse(value, path) {
    if (value === 'manual' || parseDuration(value) !== null) return value as Duration | 'manual';
    throw invalid(
      said`${name(path)} is not a duration: pass ${DURATION_HINT}, or 'manual' to wait for the test (got ${show(value)}).`,
      path,
    );
  },
  openapi: () => ({
    anyOf: [...DURATION_JSON_SCHEMA.anyOf, { type: 'string', const: 'manual', description: 'Until the test answers or hangs up.' }],
  }),
});

/** `CallBehavior`, checked: the type the compiler holds this schema to is the documented interface. */
export const callBehavior = object(
  {
    outcome: optional(oneOf(CALL_OUTCOMES, 'How the call ends when nobody intervenes.')),
    ring: optional(durationOrManual),
    talk: optional(durationOrManual),
    answeredBy: optional(oneOf(ANSWERERS, 'Who picks up an answered call.')),
    agent: optional(string({ description: 'Name of the human agent who answers', max: 64 })),
  },
  { description: 'What the simulated network does with calls to one destination (docs/calls.md).', label: 'option' },
) satisfies Schema<CallBehavior>;

/** `MessageBehavior`, checked. */
export const messageBehavior = object(
  {
    outcome: optional(
      custom({
        hint: '"delivered" or "failed"',
        parse(value, path) {
          const outcome = oneOf(MESSAGE_OUTCOMES, 'How the delivery report ends.');
          if (value === 'unreachable') {
            throw invalid(
              said`${name(path)} must be "delivered" or "failed": an unreachable destination is set with network.setBehavior, for calls and messages alike.`,
              path,
            );
          }
          return outcome.parse(value, path);
        },
        openapi: () => oneOf(MESSAGE_OUTCOMES, 'How the delivery report ends.').openapi(),
      }),
    ),
  },
  { description: 'How the delivery reports of messages to one destination end.', label: 'option' },
) satisfies Schema<MessageBehavior>;

const destination = phoneNumber('A destination number, E.164.');

/** `sandbox.network`: the simulated carrier, scripted per destination (docs/scripting.md). */
export interface NetworkScripting {
  /** Every later call to `number` behaves so (until cleared). */
  setBehavior(number: string, behavior: CallBehavior): void;
  /** The next calls to `number` take these behaviours, one each, before the standing one applies again. */
  queueBehavior(number: string, ...behaviors: CallBehavior[]): void;
  /** Every later message to `number` ends so (until cleared): `{ outcome: 'failed' }` or `'delivered'`. */
  setMessageBehavior(number: string, behavior: MessageBehavior): void;
  /** The next messages to `number` take these behaviours, one each, before the standing one applies again. */
  queueMessageBehavior(number: string, ...behaviors: MessageBehavior[]): void;
  /** Forgets scripted call and message behaviour of `number`, or of every number. */
  clearBehavior(number?: string): void;
}

/**
 * Builds `sandbox.network`. Every behaviour is checked when it is given, so a typo fails
 * where it was written, not at the next call; a queue with one bad entry adds nothing.
 *
 * @example
 * sandbox.network.setBehavior('+14155550123', { outcome: 'busy' });
 * sandbox.network.queueBehavior('+14155550124', { outcome: 'no_answer' }, { outcome: 'answered' });
 * sandbox.network.setMessageBehavior('+14155550125', { outcome: 'failed' });
 */
export function networkScripting(ctx: ControlContext, network: Network): NetworkScripting {
  const number = (value: unknown, where: string) => check(destination, value, `network.${where}`, 'number');
  const many = <B>(schema: Schema<B>, list: unknown[], where: string): B[] =>
    list.map((b, i) => check(schema, b, `network.${where}`, `behaviors[${i}]`));
  return {
    setBehavior: change(ctx, 'network.setBehavior', (to, behavior) =>
      act(ctx, 'script the network', () =>
        network.setBehavior(number(to, 'setBehavior'), check(callBehavior, behavior, 'network.setBehavior', 'behavior')),
      ),
    ),
    queueBehavior: change(ctx, 'network.queueBehavior', (to, ...behaviors) =>
      act(ctx, 'script the network', () =>
        network.queueBehavior(number(to, 'queueBehavior'), many(callBehavior, behaviors, 'queueBehavior')),
      ),
    ),
    setMessageBehavior: change(ctx, 'network.setMessageBehavior', (to, behavior) =>
      act(ctx, 'script the network', () =>
        network.setMessageBehavior(
          number(to, 'setMessageBehavior'),
          check(messageBehavior, behavior, 'network.setMessageBehavior', 'behavior'),
        ),
      ),
    ),
    queueMessageBehavior: change(ctx, 'network.queueMessageBehavior', (to, ...behaviors) =>
      act(ctx, 'script the network', () =>
        network.queueMessageBehavior(number(to, 'queueMessageBehavior'), many(messageBehavior, behaviors, 'queueMessageBehavior')),
      ),
    ),
    clearBehavior: change(ctx, 'network.clearBehavior', (to) =>
      act(ctx, 'script the network', () => network.clearBehavior(to === undefined ? undefined : number(to, 'clearBehavior'))),
    ),
  };
}
