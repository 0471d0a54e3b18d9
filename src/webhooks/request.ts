import type { SandboxEvent } from '../state/events.js';

/**
 * What a webhook request carries besides its URL (docs/webhooks.md, "The request"): the body's
 * bytes and the headers. Deliveries and `checkReceiver` both build their requests here, so the
 * check sends what the sandbox sends.
 */

/**
 * The body of every request that delivers `event`: the envelope pretty-printed (two spaces, as
 * some providers send it). Never byte-equal to `JSON.stringify(JSON.parse(body))`, so a receiver
 * that verifies a re-serialised body fails here as it would against the service, whose exact
 * bytes the spec leaves open. Deterministic: the same event gives the same bytes, run after run.
 *
 * @example
 * webhookBody(event); // '{\n  "id": "evt_…",\n  "type": "call.started",\n  …\n}'
 */
export function webhookBody(event: SandboxEvent): string {
  return JSON.stringify(event, null, 2);
}

/** What the headers of one request say. */
export interface DeliveryHeaderParts {
  eventId: string;
  eventType: string;
  /** `X-Service-Signature`; null leaves the header out (a forged request of `checkReceiver`). */
  signature: string | null;
  /** 1-based; starts over at 1 on a replay. */
  attempt: number;
  /** Who sends it: `svc-sandbox-webhooks` for deliveries. */
  userAgent: string;
}

/**
 * The headers of a webhook request, lowercase as Node sends them.
 *
 * @example
 * deliveryHeaders({ eventId: 'evt_1', eventType: 'call.started', signature: 'ab12…', attempt: 1, userAgent: 'svc-sandbox-webhooks' });
 */
export function deliveryHeaders({ eventId, eventType, signature, attempt, userAgent }: DeliveryHeaderParts): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    ...(signature === null ? {} : { 'x-service-signature': signature }),
    'x-service-event-id': eventId,
    'x-service-event-type': eventType,
    'x-service-delivery-attempt': String(attempt),
  };
}
