import type { JsonSchema } from '../core/schema.js';
import { DELIVERY_CHAOS, DELIVERY_STATES } from '../webhooks/delivery.js';
import { PLANS } from '../state/accounts.js';
import { callSchema, EVENT_DATA_SCHEMAS, EVENT_TYPES, messageSchema, recordingSchema, transcriptSchema } from '../state/resources.js';

export { EVENT_TYPES };

/**
 * JSON Schemas of what the scripting members return, as the standalone server's control API
 * sends them (src/server/control/scripting.ts): its OpenAPI document describes every answer
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

/*
 * Examples of the control answers, telling the story of the resources' own
 * (src/state/resources.ts): the call placed at the start completes at 21 s, and its
 * call.completed event reaches the subscription at the first attempt.
 */
/** The example a resource's schema carries (its `examples[0]`). */
export const resourceExample = (schema: { openapi(): JsonSchema }): Record<string, unknown> =>
  (schema.openapi().examples as Array<Record<string, unknown>>)[0]!;
const call = resourceExample(callSchema);
const recording = resourceExample(recordingSchema);
/** The example call answered by a person at 5 s, its transcript live from then. */
const answeredCall = {
  ...call,
  status: 'answered',
  answered_by: 'human',
  transcript_id: recording.transcript_id,
  answered_at: '2026-01-01T00:00:05.000Z',
};
/** And hung up at 21 s. */
const completedCall = {
  ...answeredCall,
  status: 'completed',
  disposition: 'answered',
  duration: 16,
  recording_id: recording.id,
  recording_url: recording.url,
  ended_at: '2026-01-01T00:00:21.000Z',
};
/** The first event of the log: the example call placed. */
const startedEvent = { id: 'evt_6Yp3Kd8Wm1Qz5Rx2', type: 'call.started', created_at: call.created_at, data: call };
/** The call.completed event of the example call: what a delivery and its attempts carry. */
export const COMPLETED_EVENT_EXAMPLE = {
  id: 'evt_1Hs7Tb4Ng9Wc2Kq5',
  type: 'call.completed',
  created_at: completedCall.ended_at,
  data: completedCall,
};
/** What the example call emits after it was placed: answered, then completed. */
export const CALL_EVENTS_EXAMPLE = [
  { id: 'evt_9Vn4Jc7Rt2Xm6Pb8', type: 'call.answered', created_at: answeredCall.answered_at, data: answeredCall },
  COMPLETED_EVENT_EXAMPLE,
];
const attempt = {
  deliveryId: 'dlv_6Np1Rz8Kq3Wd5Ty2',
  eventId: COMPLETED_EVENT_EXAMPLE.id,
  eventType: COMPLETED_EVENT_EXAMPLE.type,
  subscriptionId: 'wh_2Jf6tY9cB4nRk8Ws',
  url: 'https://example.com/webhooks',
  attempt: 1,
  replay: 0,
  at: COMPLETED_EVENT_EXAMPLE.created_at,
  status: 200,
  ok: true,
  durationMs: 12.4,
  error: null,
};

export const callJson = (): JsonSchema => callSchema.openapi();
export const messageJson = (): JsonSchema => messageSchema.openapi();
export const recordingJson = (): JsonSchema => recordingSchema.openapi();
export const transcriptJson = (): JsonSchema => transcriptSchema.openapi();

/** One event of the log (docs/webhooks.md envelope), any type. */
export const eventJson = (): JsonSchema => ({
  oneOf: EVENT_TYPES.map((type) =>
    closed(
      {
        id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16}$' },
        type: { type: 'string', const: type },
        created_at: instant,
        data: EVENT_DATA_SCHEMAS[type].openapi(),
      },
      `A ${type} event.`,
    ),
  ),
  examples: [startedEvent],
});

/** `WebhookAttempt` (src/webhooks/deliveries.ts). */
export const attemptJson = (): JsonSchema => ({
  ...closed(
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
  ),
  examples: [attempt],
});

/** `WebhookDelivery`. */
export const deliveryJson = (): JsonSchema => ({
  ...closed(
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
      chaos: {
        type: 'string',
        enum: [...DELIVERY_CHAOS],
        description: 'Only on a delivery the chaos profile made: a duplicate, or held back (docs/chaos.md).',
      },
    },
    'One event on its way to one subscription.',
    ['chaos'],
  ),
  examples: [
    {
      id: attempt.deliveryId,
      eventId: attempt.eventId,
      eventType: attempt.eventType,
      subscriptionId: attempt.subscriptionId,
      url: attempt.url,
      state: 'delivered',
      attempts: [attempt],
      nextAttemptAt: null,
      replays: 0,
      event: COMPLETED_EVENT_EXAMPLE,
    },
  ],
});

/** `ActiveFault`; `remaining` is null for a rule injected with `times: Infinity`. */
export const faultJson = (): JsonSchema => ({
  ...closed(
    {
      method: { type: ['string', 'null'] },
      path: { type: ['string', 'null'] },
      status: { type: ['integer', 'null'] },
      network: { type: 'boolean' },
      retryAfter: { type: ['integer', 'null'] },
      remaining: { type: ['integer', 'null'], minimum: 1, description: 'Hits left; null: until cleared (times: Infinity).' },
    },
    'An injected fault with hits left.',
  ),
  examples: [{ method: 'POST', path: '/v1/calls', status: 503, network: false, retryAfter: 2, remaining: 1 }],
});

/** A key made by `keys.create`, with what it was made with. */
export const apiKeyJson = (): JsonSchema => ({
  ...closed(
    {
      key: text,
      createdAt: instant,
      account: text,
      plan: { type: 'string', enum: [...PLANS] },
      scopes: { type: 'array', items: text },
    },
    'A test key.',
    ['account', 'plan', 'scopes'],
  ),
  // A key made with a plan and scopes (the session's own key lists `key` and `createdAt` only).
  examples: [
    {
      key: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_Vq2Lm8Xr5Tk1Wz7N',
      createdAt: '2026-01-01T00:00:00.000Z',
      plan: 'standard',
      scopes: ['calls:read', 'messages:*'],
    },
  ],
});
