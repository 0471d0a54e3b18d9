import { writtenExample } from '../core/examples.js';
import {
  annotated,
  array,
  boolean,
  integer,
  literal,
  nullable,
  number,
  object,
  oneOf,
  optional,
  type Schema,
  timestamp,
} from '../core/schema.js';
import { anyString, tagged } from '../core/schema-values.js';
import { DELIVERY_CHAOS, DELIVERY_STATES } from '../webhooks/delivery.js';
import { callSchema, id, recordingSchema } from '../state/resources.js';
import { EVENT_TYPES, eventDataSchema, type EventType, type SandboxEvent } from '../state/events.js';
import { faultMethod, faultPath, faultRetryAfter } from './faults.js';
import { keySettings, planSchema, scopesSchema, testKey } from './keys.js';

// The resources, as the server reads them: through the scripting layer, which returns them.
export { callSchema, messageSchema, phoneNumberSchema, recordingSchema, transcriptSchema } from '../state/resources.js';
export { EVENT_TYPES, EVENTS, subscriptionSchema } from '../state/events.js';

/**
 * The schemas of what the scripting members return, as the standalone server's control API sends
 * them (src/server/control/): written once with the kit, as the resources are
 * (src/state/resources.ts), whose schemas they embed. Each gives the control document's
 * description of an answer, and its type is the public type's (test/types/scripting-answers.test-d.ts).
 */

/** Counts with no cap of their own: as far as a number is exact. */
const COUNT_MAX = Number.MAX_SAFE_INTEGER;

/** `{data: [...]}`: a control list read whole (the paged ones are `/v1`'s list envelope); `description` says what `data` holds. */
export function dataList<T>(item: Schema<T>, description: string) {
  return object({ data: array(item, { description }) }, { description: 'A list, whole.' });
}

/*
 * Examples of the control answers, telling the story of the resources' own
 * (src/state/resources.ts): the call placed at the start completes at 21 s, and its
 * call.completed event reaches the subscription at the first attempt.
 */
const call = writtenExample(callSchema);
const recording = writtenExample(recordingSchema);
/** The example call answered by a person at 5 s, its transcript live from then. */
const answeredCall = {
  ...call,
  status: 'answered' as const,
  answered_by: 'human' as const,
  transcript_id: recording.transcript_id,
  answered_at: '2026-01-01T00:00:05.000Z',
};
/** And hung up at 21 s. */
const completedCall = {
  ...answeredCall,
  status: 'completed' as const,
  disposition: 'answered' as const,
  duration: 16,
  recording_id: recording.id,
  recording_url: recording.url,
  ended_at: '2026-01-01T00:00:21.000Z',
};
/** The first event of the log: the example call placed. */
export const STARTED_EVENT_EXAMPLE: SandboxEvent = {
  id: 'evt_6Yp3Kd8Wm1Qz5Rx2',
  type: 'call.started',
  created_at: call.created_at,
  data: call,
};
/** The call.completed event of the example call: what a delivery and its attempts carry. */
export const COMPLETED_EVENT_EXAMPLE: SandboxEvent<'call.completed'> = {
  id: 'evt_1Hs7Tb4Ng9Wc2Kq5',
  type: 'call.completed',
  created_at: completedCall.ended_at,
  data: completedCall,
};
/** What the example call emits after it was placed: answered, then completed. */
export const CALL_EVENTS_EXAMPLE: SandboxEvent[] = [
  { id: 'evt_9Vn4Jc7Rt2Xm6Pb8', type: 'call.answered', created_at: answeredCall.answered_at, data: answeredCall },
  COMPLETED_EVENT_EXAMPLE,
];

/** One event type's envelope (docs/webhooks.md): its `data` the resource the type carries. */
function eventOf<K extends EventType>(type: K) {
  return object(
    {
      id: id('evt', 'The event (the same across retries and replays)'),
      type: literal(type, 'The event type.'),
      created_at: timestamp('When it happened, in virtual time (ISO 8601 UTC).'),
      data: eventDataSchema(type),
    },
    { description: `A ${type} event.` },
  );
}

/** Each type's envelope, from the one list of events (state/events.ts). */
const envelopes = Object.fromEntries(EVENT_TYPES.map((type) => [type, eventOf(type)])) as {
  [K in EventType]: ReturnType<typeof eventOf<K>>;
};

/** One event of the log, any type: the same object is the webhook body. */
export const eventSchema = annotated(
  tagged('type', envelopes, 'One platform event in the envelope of docs/webhooks.md, told apart by `type`.'),
  { example: STARTED_EVENT_EXAMPLE },
);

/** The fields an attempt and its delivery share. */
const toOneSubscription = {
  eventId: anyString('The event it carries (`evt_…`).'),
  eventType: oneOf(EVENT_TYPES, 'The type of that event.'),
  subscriptionId: anyString('The subscription (`wh_…`).'),
  url: anyString("The subscription's receiver."),
};

const ATTEMPT_EXAMPLE = {
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

/** `WebhookAttempt` (src/webhooks/delivery.ts): `webhooks.attempts()`. */
export const attemptSchema = object(
  {
    deliveryId: anyString('The delivery (`dlv_…`) it is an attempt of.'),
    ...toOneSubscription,
    attempt: integer({
      description: '1-based, as sent in `X-Service-Delivery-Attempt`; starts over at 1 on a replay.',
      min: 1,
      max: COUNT_MAX,
    }),
    replay: integer({ description: '0 for the run that began at emission, 1 for the first replay, and so on.', min: 0, max: COUNT_MAX }),
    at: timestamp('Virtual instant the attempt was sent (ISO 8601 UTC).'),
    status: nullable(
      integer({ description: "The receiver's HTTP status; null when no response arrived (network error, timeout).", min: 100, max: 999 }),
    ),
    ok: boolean('A 2xx within the timeout.'),
    durationMs: number({ description: 'Real (wall-clock) milliseconds the attempt took: the one non-deterministic field.', min: 0 }),
    error: nullable(anyString('Why the attempt failed; null when it succeeded.')),
  },
  { description: 'One HTTP attempt of one webhook delivery.', example: ATTEMPT_EXAMPLE },
);

/** `WebhookDelivery`: `webhooks.deliveries()` and `deadLetters()`. */
export const deliverySchema = object(
  {
    id: anyString('`dlv_…`: names this delivery (and the dead letter it may become) for `replay()`.'),
    ...toOneSubscription,
    state: oneOf(
      DELIVERY_STATES,
      '`pending` while attempts remain, `delivered`, `dead` (a dead letter) or `canceled` with its subscription.',
    ),
    attempts: array(attemptSchema, { description: 'Every attempt so far, replays included, oldest first.' }),
    nextAttemptAt: nullable(timestamp('Virtual instant of the next scheduled attempt; null unless a retry is waiting.')),
    replays: integer({ description: 'How many times it was replayed from the dead-letter queue.', min: 0, max: COUNT_MAX }),
    event: annotated(eventSchema, { description: 'The event, as every attempt sent it.' }),
    chaos: optional(oneOf(DELIVERY_CHAOS, 'Only on a delivery the chaos profile made: a duplicate, or held back (docs/chaos.md).')),
  },
  {
    description: 'One event on its way to one subscription.',
    example: {
      id: ATTEMPT_EXAMPLE.deliveryId,
      eventId: ATTEMPT_EXAMPLE.eventId,
      eventType: ATTEMPT_EXAMPLE.eventType,
      subscriptionId: ATTEMPT_EXAMPLE.subscriptionId,
      url: ATTEMPT_EXAMPLE.url,
      state: 'delivered',
      attempts: [ATTEMPT_EXAMPLE],
      nextAttemptAt: null,
      replays: 0,
      event: COMPLETED_EVENT_EXAMPLE,
    },
  },
);

/**
 * `ActiveFault` (src/state/faults.ts): `faults.list()`, each field as the rule that was injected
 * takes it (src/scripting/faults.ts), null where the rule left it to any.
 */
export const activeFaultSchema = object(
  {
    method: nullable(faultMethod),
    path: nullable(faultPath),
    // The rule's 429 or 5xx, as one range: a 3.0 document cannot say a choice of ranges or null.
    status: nullable(
      integer({ description: 'The status of the error answer (429 or 5xx); null for a network fault.', min: 429, max: 599 }),
    ),
    network: boolean('A connection failure instead of an answer.'),
    retryAfter: nullable(faultRetryAfter),
    // The library's `Infinity`, which JSON writes as null.
    remaining: nullable(integer({ description: 'Hits left; null: until cleared (times: Infinity).', min: 1, max: COUNT_MAX })),
  },
  {
    description: 'An injected fault with hits left.',
    example: { method: 'POST', path: '/v1/calls', status: 503, network: false, retryAfter: 2, remaining: 1 },
  },
);

/** `ApiKey` (src/state/accounts.ts): a key made by `keys.create`, with what it was made with. */
export const apiKeySchema = object(
  { key: testKey, createdAt: timestamp('Virtual instant it was made (ISO 8601 UTC).'), ...keySettings.shape },
  {
    description: 'A test key; `account`, `plan` and `scopes` when it was made with them.',
    // A key made with a plan and scopes (the session's own key lists `key` and `createdAt` only).
    example: {
      key: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_Vq2Lm8Xr5Tk1Wz7N',
      createdAt: '2026-01-01T00:00:00.000Z',
      plan: 'standard',
      scopes: ['calls:read', 'messages:*'],
    },
  },
);

/** A key as the control API makes one: its plan and scopes spelled out, the defaults included. */
export const madeKeySchema = object(
  { key: testKey, plan: planSchema, scopes: scopesSchema },
  {
    description: 'The key made, with its plan and scopes (the defaults spelled out: standard, every scope).',
    example: { key: writtenExample(apiKeySchema).key, plan: 'standard', scopes: ['calls:read', 'messages:*'] },
  },
);
