import type { JsonSchema } from '../core/schema.js';
import { DELIVERY_CHAOS, DELIVERY_STATES } from '../events/deliveries.js';
import { PLANS } from '../state/accounts.js';
import { callSchema, EVENT_DATA_SCHEMAS, EVENT_TYPES, messageSchema, recordingSchema, transcriptSchema } from '../state/resources.js';

export { EVENT_TYPES };

/**
 * JSON Schemas of what the scripting members return, as the standalone server's control API
 * sends them (src/server/control-scripting.ts): its OpenAPI document describes every answer
 * with these, and the resources with the very schemas the API's document uses.
 */
const text: JsonSchema = { type: 'string' };
const instant: JsonSchema = { type: 'string', format: 'date-time' };
const closed = (properties: Record<string, JsonSchema>, description: string, optional: string[] = []): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: false,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

export const callJson = (): JsonSchema => callSchema.openapi();
export const messageJson = (): JsonSchema => messageSchema.openapi();
export const recordingJson = (): JsonSchema => recordingSchema.openapi();
export const transcriptJson = (): JsonSchema => transcriptSchema.openapi();

/** One event of the log (docs/webhooks.md envelope), any type. */
export const eventJson = (): JsonSchema => ({
  oneOf: EVENT_TYPES.map((type) =>
    closed({ id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16}$' }, type: { type: 'string', const: type }, created_at: instant, data: EVENT_DATA_SCHEMAS[type].openapi() }, `A ${type} event.`),
  ),
});

/** `WebhookAttempt` (src/events/deliveries.ts). */
export const attemptJson = (): JsonSchema =>
  closed(
    {
      deliveryId: text,
      eventId: text,
      eventType: { type: 'string', enum: [...EVENT_TYPES] },
      subscriptionId: text,
      url: text,
      attempt: { type: 'integer', minimum: 1 },
      replay: { type: 'integer', minimum: 0 },
      at: instant,
      status: { type: ['integer', 'null'] },
      ok: { type: 'boolean' },
      durationMs: { type: 'number', minimum: 0 },
      error: { type: ['string', 'null'] },
    },
    'One HTTP attempt of one webhook delivery.',
  );

/** `WebhookDelivery`. */
export const deliveryJson = (): JsonSchema =>
  closed(
    {
      id: text,
      eventId: text,
      eventType: { type: 'string', enum: [...EVENT_TYPES] },
      subscriptionId: text,
      url: text,
      state: { type: 'string', enum: [...DELIVERY_STATES] },
      attempts: { type: 'array', items: attemptJson() },
      nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
      replays: { type: 'integer', minimum: 0 },
      event: eventJson(),
      chaos: { type: 'string', enum: [...DELIVERY_CHAOS], description: 'Only on a delivery the chaos profile made: a duplicate, or held back (docs/chaos.md).' },
    },
    'One event on its way to one subscription.',
    ['chaos'],
  );

/** `ActiveFault`; `remaining` is null for a rule injected with `times: Infinity`. */
export const faultJson = (): JsonSchema =>
  closed(
    {
      method: { type: ['string', 'null'] },
      path: { type: ['string', 'null'] },
      status: { type: ['integer', 'null'] },
      network: { type: 'boolean' },
      retryAfter: { type: ['integer', 'null'] },
      remaining: { type: ['integer', 'null'], minimum: 1, description: 'Hits left; null: until cleared (times: Infinity).' },
    },
    'An injected fault with hits left.',
  );

/** A key made by `keys.create`, with what it was made with. */
export const apiKeyJson = (): JsonSchema =>
  closed(
    {
      key: text,
      createdAt: instant,
      account: text,
      plan: { type: 'string', enum: [...PLANS] },
      scopes: { type: 'array', items: text },
    },
    'A test key.',
    ['account', 'plan', 'scopes'],
  );
