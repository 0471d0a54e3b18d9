import type { EventType, SandboxEvent } from '../state/events.js';

/** What a webhook delivery and its attempts are, as `sandbox.webhooks` and the console show them (docs/webhooks.md). */

/**
 * Where a delivery stands: `pending` (in flight, queued or waiting for a retry),
 * `delivered` (a 2xx arrived), `dead` (every attempt failed: the dead-letter queue) or
 * `canceled` (its subscription was deleted before it was delivered, or the sandbox was
 * closed while it was pending: `webhooks.deliveries()` stays readable after `close()`).
 */
export const DELIVERY_STATES = ['pending', 'delivered', 'dead', 'canceled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One HTTP attempt of one delivery, as `sandbox.webhooks.attempts()` shows it. */
export interface WebhookAttempt {
  deliveryId: string;
  eventId: string;
  eventType: EventType;
  subscriptionId: string;
  url: string;
  /** 1-based, as sent in `X-Service-Delivery-Attempt`; starts over at 1 on a replay. */
  attempt: number;
  /** 0 for the run that began at emission, 1 for the first replay, and so on. */
  replay: number;
  /** Virtual instant the attempt was sent (ISO 8601). */
  at: string;
  /** The receiver's HTTP status; null when no response arrived (network error, timeout). */
  status: number | null;
  /** A 2xx within the timeout. */
  ok: boolean;
  /** Real (wall-clock) milliseconds the attempt took: the one non-deterministic field. */
  durationMs: number;
  /** Why the attempt failed; null when it succeeded. */
  error: string | null;
}

/** One event on its way to one subscription: a dead letter when `state` is `dead`. */
export interface WebhookDelivery {
  /** `dlv_…`: names this delivery (and the dead letter it may become) for `replay()`. */
  id: string;
  eventId: string;
  eventType: EventType;
  subscriptionId: string;
  url: string;
  state: DeliveryState;
  /** Every attempt so far, replays included, oldest first. */
  attempts: WebhookAttempt[];
  /** Virtual instant of the next scheduled attempt; null unless a retry is waiting. */
  nextAttemptAt: string | null;
  /** How many times it was replayed from the dead-letter queue. */
  replays: number;
  /** The event, as every attempt sent it. */
  event: SandboxEvent;
  /**
   * Set only when the chaos profile made it (docs/chaos.md): `duplicate`, a second delivery
   * of an event another delivery carries too; `held`, held back so later events overtook it.
   */
  chaos?: DeliveryChaos;
}

/** See {@link WebhookDelivery.chaos}. */
export const DELIVERY_CHAOS = ['duplicate', 'held'] as const;
export type DeliveryChaos = (typeof DELIVERY_CHAOS)[number];

export interface DeliveryFilter {
  account?: string;
  eventId?: string;
  subscriptionId?: string;
  type?: EventType;
  state?: DeliveryState;
}

/** What webhook delivery announces. */
export interface DeliveryEvents {
  /**
   * An attempt came back (answered, failed or timed out) and its delivery moved on to
   * `state`; `account` is the delivery's account.
   */
  'attempt:settled': { attempt: WebhookAttempt; state: DeliveryState; account: string };
}
