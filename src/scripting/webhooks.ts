import { callRef, said } from '../core/errors.js';
import type { Channel } from '../core/emitter.js';
import { object, oneOf, optional, string, type Schema } from '../core/schema.js';
import type { Deliveries } from '../webhooks/deliveries.js';
import {
  DELIVERY_STATES,
  type DeliveryFilter,
  type DeliveryState,
  type DeliveryEvents,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../webhooks/delivery.js';
import { EVENT_TYPES, type EventType } from '../state/events.js';
import { accountOf, check, type ControlContext, change, read, refuse } from './context.js';

/** Narrows `sandbox.webhooks` lists; every field is optional and they combine with AND. */
export interface WebhookFilter {
  /** Only the account of this API key (any of its keys). */
  apiKey?: string;
  eventId?: string;
  subscriptionId?: string;
  type?: EventType;
  state?: DeliveryState;
}

export const webhookFilter = object(
  {
    apiKey: optional(string({ description: 'An API key of the account', max: 200 })),
    eventId: optional(string({ description: 'An event id (evt_…)', max: 64 })),
    subscriptionId: optional(string({ description: 'A subscription id (wh_…)', max: 64 })),
    type: optional(oneOf(EVENT_TYPES, 'An event type.')),
    state: optional(oneOf(DELIVERY_STATES, 'A delivery state.')),
  },
  { description: 'Narrows the deliveries.', label: 'option' },
) satisfies Schema<WebhookFilter>;

const deadLetters = callRef('webhooks.deadLetters');

/** The `sandbox.webhooks` namespace (see {@link webhookScripting}). */
export interface WebhookScripting {
  /** Every delivery (one event to one subscription) in creation order, with its attempts. */
  deliveries(filter?: WebhookFilter): WebhookDelivery[];
  /** Every delivery attempt in the order sent: time, status, duration, error, attempt number, subscription, event. */
  attempts(filter?: WebhookFilter): WebhookAttempt[];
  /** The dead-letter queue: deliveries whose every attempt failed. */
  deadLetters(filter?: WebhookFilter): WebhookDelivery[];
  /**
   * Replays dead letters now: a `dlv_` id replays that one, an `evt_` id every dead letter
   * of that event. Same event id and body, `X-Service-Delivery-Attempt` from 1 again,
   * the same retry schedule from now. Resolves with the first attempt of each; rejects
   * (never throws) with a SandboxError when there is nothing to replay.
   */
  replay(id: string): Promise<WebhookAttempt[]>;
  /** Replays every dead letter (matching `filter`) whose subscription still exists. */
  replayAll(filter?: WebhookFilter): Promise<WebhookAttempt[]>;
  /**
   * Calls `listener` with each delivery attempt as it settles (answered, failed or timed
   * out), with the state its delivery moved to, when the step that settled it has ended
   * (so the listener may script the sandbox). With `filter`, `state` is that state. If it
   * throws, the error is rethrown by the next `advance()`. Returns the function that
   * unsubscribes.
   */
  subscribe(listener: (attempt: WebhookAttempt, state: DeliveryState) => void, filter?: WebhookFilter): () => void;
}

/**
 * Deliveries by position, for the standalone server's paginated lists: a page costs what it
 * returns (plus the deliveries a `dead` filter skips), never a copy of the whole list.
 * Internal: not part of `sandbox.webhooks`.
 */
export interface DeliveryPages {
  /** At most `limit` deliveries after position `after` (from 1, creation order); dead letters only with `dead`. */
  page(after: number, limit: number, dead: boolean): { items: WebhookDelivery[]; last: number; more: boolean };
  /** The id of the delivery at `position`, if any (a cursor checks it names the same delivery). */
  idAt(position: number): string | undefined;
}

/** The positions view of a sandbox's deliveries (see {@link DeliveryPages}), for the standalone server. */
export function deliveryPages(service: Deliveries): DeliveryPages {
  return {
    page: (after, limit, dead) => service.page(after, limit, dead ? { state: 'dead' } : {}),
    idAt: (position) => service.idAt(position),
  };
}

interface WebhookScriptingDeps {
  deliveries: Deliveries;
  events: Channel<DeliveryEvents>;
  /** Where a listener's error goes: the sandbox rethrows it from the next `advance()`. */
  onListenerError: (error: unknown) => void;
}

/**
 * Builds the scripting API over the sandbox's webhook deliveries.
 *
 * @example
 * await sandbox.advance('1d');
 * const [dead] = sandbox.webhooks.deadLetters({ apiKey: 'SVC_TEST_me' });
 * const [first] = await sandbox.webhooks.replay(dead.id); // first.attempt === 1
 * const stop = sandbox.webhooks.subscribe((attempt, state) => console.log(attempt.status, state), { state: 'dead' });
 */
export function webhookScripting(
  ctx: ControlContext,
  { deliveries: service, events, onListenerError }: WebhookScriptingDeps,
): WebhookScripting {
  // Reads work after close(), as every namespace's do: they show what happened.
  const resolve = (filter: WebhookFilter | undefined, where: string): DeliveryFilter => {
    if (filter === undefined) return {};
    const { apiKey, ...rest } = check(webhookFilter, filter, `webhooks.${where}`, '');
    return { ...rest, ...(apiKey === undefined ? {} : { account: accountOf(ctx, apiKey, `webhooks.${where}`) }) };
  };

  const replayable = (ids: string[]): Promise<WebhookAttempt[]> => Promise.all(ids.map((id) => service.replay(id)));

  /** The dead letters `id` names, or why there are none to replay. */
  const deadLettersOf = (id: unknown): string[] => {
    ctx.assertOpen('replay a dead letter');
    if (typeof id !== 'string')
      throw refuse('webhooks.replay', said`pass a dead letter id (dlv_…) or an event id (evt_…) from ${deadLetters}.`, {
        param: 'id',
      });
    const dead = id.startsWith('evt_')
      ? service.deliveries({ eventId: id, state: 'dead' })
      : [service.find(id)].filter((d) => d !== undefined);
    if (dead.length === 0) {
      throw refuse(
        'webhooks.replay',
        said`no dead letter ${id}. Pass a dead letter id (dlv_…) or an event id (evt_…) from ${deadLetters}.`,
        {
          code: 'not_found',
          param: 'id',
        },
      );
    }
    for (const delivery of dead) {
      if (delivery.state !== 'dead') {
        throw refuse(
          'webhooks.replay',
          `delivery ${delivery.id} is ${delivery.state}, not in the dead-letter queue; only dead letters can be replayed.`,
          { code: 'conflict', param: 'id' },
        );
      }
      if (!service.canReplay(delivery.id)) {
        throw refuse(
          'webhooks.replay',
          `dead letter ${delivery.id} belongs to subscription ${delivery.subscriptionId}, which was deleted; create a new subscription instead.`,
          { code: 'conflict', param: 'id' },
        );
      }
    }
    return dead.map((d) => d.id);
  };

  // Promise-returning members reject; they never throw synchronously.
  const asPromise = <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return fn();
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const scripting: WebhookScripting = {
    deliveries: read((filter) => service.deliveries(resolve(filter, 'deliveries'))),
    attempts: read((filter) => service.attempts(resolve(filter, 'attempts'))),
    deadLetters: read((filter) => service.deliveries({ ...resolve(filter, 'deadLetters'), state: 'dead' })),
    replay: change(ctx, 'webhooks.replay', (id) => asPromise(() => ctx.steps.run(() => replayable(deadLettersOf(id))))),
    replayAll: change(ctx, 'webhooks.replayAll', (filter) =>
      asPromise(() => {
        ctx.assertOpen('replay dead letters');
        const dead = service.deliveries({ ...resolve(filter, 'replayAll'), state: 'dead' });
        return ctx.steps.run(() => replayable(dead.map((d) => d.id).filter((id) => service.canReplay(id))));
      }),
    ),
    subscribe: read((listener, filter) => {
      ctx.assertOpen('subscribe to webhook attempts');
      const only = resolve(filter, 'subscribe');
      return events.on('attempt:settled', ({ attempt, state, account }) => {
        if (
          (only.account !== undefined && account !== only.account) ||
          (only.eventId !== undefined && attempt.eventId !== only.eventId) ||
          (only.subscriptionId !== undefined && attempt.subscriptionId !== only.subscriptionId) ||
          (only.type !== undefined && attempt.eventType !== only.type) ||
          (only.state !== undefined && state !== only.state)
        ) {
          return;
        }
        ctx.steps.after(() => {
          try {
            listener({ ...attempt }, state);
          } catch (error) {
            onListenerError(error);
          }
        });
      });
    }),
  };
  return scripting;
}
