import { SandboxError } from '../core/errors.js';
import { nearest } from '../core/suggest.js';
import { EVENT_TYPES, type EventType } from '../state/event-types.js';
import type { DeliveryFilter, DeliveryState, WebhookAttempt, WebhookDelivery, Webhooks } from '../events/deliveries.js';

/** Narrows `sandbox.webhooks` lists; every field is optional and they combine with AND. */
export interface WebhookFilter {
  /** Only the account of this API key (any of its keys). */
  apiKey?: string;
  eventId?: string;
  subscriptionId?: string;
  type?: EventType;
  state?: DeliveryState;
}

const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'dead', 'canceled'];
const FILTER_KEYS = ['apiKey', 'eventId', 'subscriptionId', 'type', 'state'];

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
   * the same retry schedule from now. Resolves with the first attempt of each.
   */
  replay(id: string): Promise<WebhookAttempt[]>;
  /** Replays every dead letter (matching `filter`) whose subscription still exists. */
  replayAll(filter?: WebhookFilter): Promise<WebhookAttempt[]>;
}

/**
 * Builds the scripting API over the sandbox's webhook service. `accountOf` resolves an
 * API key as the sandbox does; `assertOpen` throws once the sandbox is closed.
 *
 * @example
 * await sandbox.advance('1d');
 * const [dead] = sandbox.webhooks.deadLetters({ apiKey: 'SVC_TEST_me' });
 * const [first] = await sandbox.webhooks.replay(dead.id); // first.attempt === 1
 */
export function webhookScripting(
  service: Webhooks,
  accountOf: (apiKey: string, where: string) => string,
  assertOpen: (what: string) => void,
): WebhookScripting {
  const resolve = (filter: WebhookFilter | undefined, where: string): DeliveryFilter => {
    if (filter === undefined) return {};
    if (filter === null || typeof filter !== 'object') throw new SandboxError(`webhooks.${where}: the filter must be an object such as { apiKey: 'SVC_TEST_me' }.`);
    for (const key of Object.keys(filter)) {
      if (!FILTER_KEYS.includes(key)) {
        const guess = nearest(key, FILTER_KEYS);
        throw new SandboxError(`webhooks.${where}: unknown filter '${key}'; ${guess ? `did you mean '${guess}'?` : `use ${FILTER_KEYS.join(', ')}.`}`);
      }
    }
    if (filter.type !== undefined && !(EVENT_TYPES as readonly string[]).includes(filter.type)) {
      const guess = typeof filter.type === 'string' ? nearest(filter.type, EVENT_TYPES) : undefined;
      throw new SandboxError(`webhooks.${where}: type ${JSON.stringify(filter.type)} is not an event type${guess ? `; did you mean '${guess}'?` : `; use one of ${EVENT_TYPES.join(', ')}.`}`);
    }
    if (filter.state !== undefined && !STATES.includes(filter.state)) {
      throw new SandboxError(`webhooks.${where}: state ${JSON.stringify(filter.state)} is not a delivery state; use one of ${STATES.join(', ')}.`);
    }
    const { apiKey, ...rest } = filter;
    return { ...rest, ...(apiKey === undefined ? {} : { account: accountOf(apiKey, `webhooks.${where}`) }) };
  };

  const replayable = (ids: string[]): Promise<WebhookAttempt[]> => Promise.all(ids.map((id) => service.replay(id)));

  return {
    deliveries: (filter) => {
      assertOpen('list webhook deliveries');
      return service.deliveries(resolve(filter, 'deliveries'));
    },
    attempts: (filter) => {
      assertOpen('list webhook attempts');
      return service.attempts(resolve(filter, 'attempts'));
    },
    deadLetters: (filter) => {
      assertOpen('list dead letters');
      return service.deliveries({ ...resolve(filter, 'deadLetters'), state: 'dead' });
    },
    replay: (id) => {
      assertOpen('replay a dead letter');
      if (typeof id !== 'string') throw new SandboxError('webhooks.replay: pass a dead letter id (dlv_…) or an event id (evt_…) from webhooks.deadLetters().');
      const dead = id.startsWith('evt_') ? service.deliveries({ eventId: id, state: 'dead' }) : [service.find(id)].filter((d) => d !== undefined);
      if (dead.length === 0) {
        throw new SandboxError(`webhooks.replay: no dead letter ${id}. Pass a dead letter id (dlv_…) or an event id (evt_…) from webhooks.deadLetters().`);
      }
      for (const delivery of dead) {
        if (delivery.state !== 'dead') {
          throw new SandboxError(`webhooks.replay: delivery ${delivery.id} is ${delivery.state}, not in the dead-letter queue; only dead letters can be replayed.`);
        }
        if (!service.canReplay(delivery.id)) {
          throw new SandboxError(`webhooks.replay: dead letter ${delivery.id} belongs to subscription ${delivery.subscriptionId}, which was deleted; create a new subscription instead.`);
        }
      }
      return replayable(dead.map((d) => d.id));
    },
    replayAll: (filter) => {
      assertOpen('replay dead letters');
      const dead = service.deliveries({ ...resolve(filter, 'replayAll'), state: 'dead' });
      return replayable(dead.map((d) => d.id).filter((id) => service.canReplay(id)));
    },
  };
}
