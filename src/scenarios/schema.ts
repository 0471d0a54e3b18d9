// Longer than most files: the scenario file format is one thing, its types, the schema that checks a file and the
// JSON Schema editors read (schemas/scenario.schema.json) written side by side so they cannot drift apart.
import { checkedMs, durationSchema, type Duration } from '../core/duration.js';
import { withinDepth } from '../core/json-depth.js';
import { E164 } from '../core/phone.js';
import {
  array,
  custom,
  dateTimeText,
  either,
  integer,
  invalid,
  literal,
  object,
  oneOf,
  optional,
  phoneNumber,
  record,
  string,
  type JsonSchema,
  type Schema,
} from '../core/schema.js';
import type { ReceiverAnswer } from '../webhooks/receivers.js';
import type { DeliveryState } from '../webhooks/delivery.js';
import type { CallBehavior, MessageBehavior } from '../sim/carrier.js';
import { NUMBER_KINDS, type NumberKind } from '../sim/inventory.js';
import { EVENT_TYPES, type EventType } from '../state/events.js';
import { check } from '../scripting/context.js';
import { callBehavior, messageBehavior } from '../scripting/network.js';
import { inboundCallOptions } from '../scripting/calls.js';
import { inboundMessageOptions } from '../scripting/messages.js';

/**
 * Scenario files (docs/scenarios.md): a declarative story on the virtual clock. The schema
 * below is the one definition: it validates a file (errors name the JSON path and the fix),
 * gives its TypeScript type, and is published as `schemas/scenario.schema.json`
 * (test/scenarios/schema.test.ts keeps the published file equal to {@link scenarioJsonSchema}).
 */

/** The JSON Schema's `$id` (the file ships in the package). */
export const SCENARIO_SCHEMA_ID = 'https://svc-sandbox.dev/schemas/scenario.schema.json';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ref = string({
  description: 'A name later steps use as {{name.field}}',
  pattern: NAME,
  patternHint: 'a name of letters, digits and _ (not starting with a digit), e.g. first_call',
  max: 64,
});

/** Any JSON value (a request body, the fields to expect): checked by the API or compared as given. */
const anyJson: Schema<unknown> = custom({
  hint: 'any JSON value',
  parse: (value) => value,
  openapi: () => ({ description: 'Any JSON value; strings may hold {{name.field}} references.' }),
});
const fieldsSchema: Schema<Record<string, unknown>> = custom({
  hint: 'an object of field → expected value',
  parse(value, path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalid(
        `\`${path}\` must be an object of field → expected value, e.g. {"status": "completed"} (got ` +
          `${Array.isArray(value) ? 'an array' : JSON.stringify(value)}).`,
        path,
      );
    return value as Record<string, unknown>;
  },
  openapi: () => ({
    type: 'object',
    description: 'Fields the resource must have (a partial match, nested objects too); strings may hold {{name.field}} references.',
  }),
});

/** A behaviour, or an array of them queued one per call or message: each checked by `item`, so its errors keep their fix. */
function behaviors<B>(item: Schema<B>, what: string): Schema<B | B[]> {
  const list = array(item, {
    description: `${what}, one per call or message in order; after the last, the default applies again.`,
    min: 1,
    max: 1000,
  });
  return custom({
    hint: `a behaviour object, or a non-empty array of them (${what})`,
    parse: (value, path) => (Array.isArray(value) ? list.parse(value, path) : item.parse(value, path)),
    openapi: () => ({ anyOf: [item.openapi(), list.openapi()] }),
  });
}
const networkSchema = record(behaviors(callBehavior, 'Queued call behaviours'), {
  description:
    'The carrier per destination number: a behaviour for every call to it, or an array queued for the next calls (docs/calls.md).',
  key: E164,
  keyHint: 'an E.164 number, e.g. +14155550123',
});
const messageNetworkSchema = record(behaviors(messageBehavior, 'Queued message behaviours'), {
  description: 'How messages to each destination end: delivered or failed.',
  key: E164,
  keyHint: 'an E.164 number, e.g. +14155550123',
});

const receiverAnswer: Schema<ReceiverAnswer> = either(
  integer({ description: 'The HTTP status the simulated receiver answers every attempt.', min: 100, max: 599 }),
  literal('down', 'No answer at all: the connection is refused.'),
  'an HTTP status such as 200 or 503, or "down"',
);

const numberSchema = object(
  {
    as: ref,
    number: optional(phoneNumber('A number from GET /v1/numbers (else the first available match).')),
    kind: optional(oneOf(NUMBER_KINDS, 'The kind of number.')),
    country: optional(
      string({ description: 'ISO 3166 alpha-2 country code.', pattern: /^[A-Z]{2}$/, patternHint: 'two capital letters, e.g. US' }),
    ),
    area_code: optional(string({ description: 'Area code.', pattern: /^\d{1,5}$/, patternHint: '1 to 5 digits' })),
    routing: optional(anyJson),
    caller_id: optional(anyJson),
    sms: optional(anyJson),
  },
  {
    description:
      'A number the account provisions before the first step (POST /v1/numbers with these fields; `as` names it: {{main.number}}).',
  },
);

const webhookSchema = object(
  {
    as: optional(ref),
    url: string({ description: 'The receiver.', max: 2048 }),
    events: optional(
      array(oneOf(EVENT_TYPES, 'An event type.'), {
        description: 'The events it receives (default: all seven).',
        min: 1,
        max: EVENT_TYPES.length,
      }),
    ),
    receiver: optional(receiverAnswer),
  },
  {
    description:
      'A webhook subscription (POST /v1/webhooks). With `receiver`, its URL is answered inside the sandbox (no HTTP); without, it is posted to for real.',
  },
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const requestSchema = object(
  {
    method: oneOf(METHODS, 'The HTTP method.'),
    path: string({
      description: 'Below the base URL, e.g. /v1/calls/{{first.id}}',
      pattern: /^\/v1\//,
      patternHint: 'a path starting with /v1/, e.g. /v1/calls',
    }),
    body: optional(anyJson),
    as: optional(ref),
    status: optional(integer({ description: 'The status it must answer (default: any 2xx).', min: 100, max: 599 })),
    fields: optional(fieldsSchema),
  },
  { description: "A request to the API with the scenario's key; `as` names its answer for later steps." },
);

/** `inner`, or a string holding a {{name.field}} reference (checked once it is resolved, when the step runs). */
function refOr<T>(inner: Schema<T>): Schema<T> {
  return custom({
    hint: `${inner.hint}, or a {{name.field}} reference`,
    parse: (value, path) => (typeof value === 'string' && REFERENCE.test(value) ? (value as T) : inner.parse(value, path)),
    openapi: () => ({
      anyOf: [
        inner.openapi(),
        { type: 'string', pattern: REFERENCE.source, description: 'A {{name.field}} reference to what an earlier step named.' },
      ],
    }),
  });
}
const REFERENCE = /\{\{[^}]+\}\}/;
const { from: callFrom, to: callTo } = inboundCallOptions.shape;
const { from: messageFrom, to: messageTo } = inboundMessageOptions.shape;

const inboundCallSchema = object(
  { ...inboundCallOptions.shape, from: refOr(callFrom), to: refOr(callTo), as: optional(ref) },
  { description: "An inbound call (sandbox.calls.inbound); `apiKey` defaults to the scenario's.", label: 'field' },
);
const inboundMessageSchema = object(
  { ...inboundMessageOptions.shape, from: refOr(messageFrom), to: refOr(messageTo), as: optional(ref) },
  { description: 'An inbound SMS or MMS (sandbox.messages.inbound).', label: 'field' },
);
const receiverStep = object(
  { url: string({ description: "A subscription's URL.", max: 2048 }), answer: receiverAnswer },
  { description: 'From now on the simulated receiver at `url` answers so.' },
);

const eventMatch = either(
  oneOf(EVENT_TYPES, 'An event type.'),
  object(
    { type: oneOf(EVENT_TYPES, 'An event type.'), data: optional(fieldsSchema) },
    { description: 'An event of this type whose data has these fields.' },
  ),
  'an event type such as "call.completed", or {"type": ..., "data": {...}}',
);
const countsSchema = object(
  {
    delivered: optional(integer({ description: 'Deliveries delivered.', min: 0, max: 1_000_000 })),
    pending: optional(integer({ description: 'Deliveries pending (in flight or waiting for a retry).', min: 0, max: 1_000_000 })),
    dead: optional(integer({ description: 'Dead letters.', min: 0, max: 1_000_000 })),
    canceled: optional(integer({ description: 'Deliveries canceled.', min: 0, max: 1_000_000 })),
    attempts: optional(integer({ description: 'HTTP attempts in all, replays included.', min: 0, max: 1_000_000 })),
  },
  { description: "How many of the account's webhook deliveries are in each state, and how many attempts were made." },
);
const expectSchema = object(
  {
    events: optional(
      array(eventMatch, { description: 'Exactly the events of the account since the scenario began, in order.', max: 10_000 }),
    ),
    eventsInclude: optional(
      array(eventMatch, { description: 'These events in this order, others allowed between them.', min: 1, max: 10_000 }),
    ),
    resources: optional(
      array(
        object(
          {
            path: string({
              description: 'A GET path, e.g. /v1/calls/{{first.id}}',
              pattern: /^\/v1\//,
              patternHint: 'a path starting with /v1/',
            }),
            fields: fieldsSchema,
          },
          { description: 'GET `path` must answer 200 with these fields.' },
        ),
        {
          description: 'Resources read through the API.',
          min: 1,
          max: 1000,
        },
      ),
    ),
    deliveries: optional(countsSchema),
    deadLetters: optional(integer({ description: 'Dead letters of the account now.', min: 0, max: 1_000_000 })),
  },
  { description: "What must hold at this step's time." },
);

/** A step's actions: at most one per step. */
export const STEP_ACTIONS = [
  'request',
  'inboundCall',
  'inboundMessage',
  'network',
  'messageNetwork',
  'answer',
  'hangUp',
  'receiver',
  'replay',
  'expect',
] as const;

const stepSchema = object(
  {
    at: durationSchema,
    note: optional(string({ description: 'A line for the timeline.', max: 200 })),
    request: optional(requestSchema),
    inboundCall: optional(inboundCallSchema),
    inboundMessage: optional(inboundMessageSchema),
    network: optional(networkSchema),
    messageNetwork: optional(messageNetworkSchema),
    answer: optional(string({ description: 'A ringing call to answer: its id, e.g. {{first.id}}.', max: 200 })),
    hangUp: optional(string({ description: 'A live call to hang up: its id, e.g. {{first.id}}.', max: 200 })),
    receiver: optional(receiverStep),
    replay: optional(
      string({ description: '"dead-letters" replays every dead letter of the account; a dlv_ or evt_ id replays those.', max: 200 }),
    ),
    expect: optional(expectSchema),
  },
  {
    description:
      'One moment of the story: `at` (virtual time from the start), and at most one action. A step with no action only moves time to `at`.',
    check(step, path) {
      const given = STEP_ACTIONS.filter((k) => step[k] !== undefined);
      if (given.length > 1)
        throw invalid(
          `\`${path}\` has both \`${given[0]}\` and \`${given[1]}\`: give one action per step (two steps may share an \`at\`).`,
          `${path}.${given[1]}`,
        );
    },
    rules: {
      not: {
        anyOf: STEP_ACTIONS.flatMap((a, i) =>
          STEP_ACTIONS.slice(i + 1).map((b) => ({ required: [a, b], properties: { [a]: true, [b]: true } })),
        ),
      },
    },
  },
);

const KEY = /^SVC_TEST_[A-Za-z0-9_-]{1,191}$/;

/** The whole file. */
export const scenarioSchema = object(
  {
    $schema: optional(string({ description: 'The JSON Schema, for editors.', max: 2048 })),
    name: string({ description: 'What the scenario shows.', max: 200 }),
    description: optional(string({ description: 'More words about it.', max: 4000, multiline: true })),
    seed: optional(
      integer({
        description: 'Seed of the fresh sandbox `svc-sandbox run` makes (--seed overrides it).',
        min: Number.MIN_SAFE_INTEGER,
        max: Number.MAX_SAFE_INTEGER,
      }),
    ),
    startTime: optional(dateTimeText('Virtual start time of the fresh sandbox `svc-sandbox run` makes.')),
    apiKey: optional(
      string({
        description: "The account's key (default SVC_TEST_scenario; on the server, the session's key).",
        pattern: KEY,
        patternHint: 'a test key, SVC_TEST_ and letters, digits, _ or -',
      }),
    ),
    numbers: optional(array(numberSchema, { description: 'Numbers the account provisions first, in order.', max: 100 })),
    webhooks: optional(array(webhookSchema, { description: 'Webhook subscriptions made first, in order.', max: 100 })),
    network: optional(networkSchema),
    messageNetwork: optional(messageNetworkSchema),
    steps: array(stepSchema, { description: 'The story, in time order.', min: 1, max: 10_000 }),
  },
  {
    description: 'A svc-sandbox scenario (docs/scenarios.md).',
    check(value) {
      let last = 0;
      value.steps.forEach((step, i) => {
        const ms = checkedMs(step.at);
        if (ms < last)
          throw invalid(
            `\`steps[${i}].at\` (${JSON.stringify(step.at)}) is earlier than the step before it: steps run in time order; move this step ` +
              `up, or give it a later \`at\`.`,
            `steps[${i}].at`,
          );
        last = ms;
      });
    },
  },
);

/** The JSON Schema of a scenario file: what `schemas/scenario.schema.json` holds. */
export function scenarioJsonSchema(): JsonSchema {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCENARIO_SCHEMA_ID,
    title: 'svc-sandbox scenario',
    ...scenarioSchema.openapi(),
  };
}

export type ScenarioStep = {
  at: Duration;
  note?: string;
  request?: {
    method: (typeof METHODS)[number];
    path: string;
    body?: unknown;
    as?: string;
    status?: number;
    fields?: Record<string, unknown>;
  };
  inboundCall?: { from: string; to: string; apiKey?: string; aiReceptionist?: boolean; behavior?: CallBehavior; as?: string };
  inboundMessage?: { from: string; to: string; body?: string; mediaUrls?: string[]; as?: string };
  network?: Record<string, CallBehavior | CallBehavior[]>;
  messageNetwork?: Record<string, MessageBehavior | MessageBehavior[]>;
  answer?: string;
  hangUp?: string;
  receiver?: { url: string; answer: ReceiverAnswer };
  replay?: string;
  expect?: ScenarioExpectation;
};

/** What must hold at a step (see docs/scenarios.md, "Expectations"). */
export interface ScenarioExpectation {
  events?: Array<EventType | { type: EventType; data?: Record<string, unknown> }>;
  eventsInclude?: Array<EventType | { type: EventType; data?: Record<string, unknown> }>;
  resources?: Array<{ path: string; fields: Record<string, unknown> }>;
  deliveries?: Partial<Record<DeliveryState | 'attempts', number>>;
  deadLetters?: number;
}

/** A scenario file, as `schemas/scenario.schema.json` describes it. */
export interface Scenario {
  $schema?: string;
  name: string;
  description?: string;
  seed?: number;
  startTime?: string;
  apiKey?: string;
  numbers?: Array<{
    as: string;
    number?: string;
    kind?: NumberKind;
    country?: string;
    area_code?: string;
    routing?: unknown;
    caller_id?: unknown;
    sms?: unknown;
  }>;
  webhooks?: Array<{ as?: string; url: string; events?: EventType[]; receiver?: ReceiverAnswer }>;
  network?: Record<string, CallBehavior | CallBehavior[]>;
  messageNetwork?: Record<string, MessageBehavior | MessageBehavior[]>;
  steps: ScenarioStep[];
}

/** Its request bodies and expected fields are any JSON, which the run walks: nested past the limit, refused first. */
const scenarioWithinDepth = withinDepth(scenarioSchema);

/**
 * Validates `input` as a scenario; a SandboxError names the JSON path and the fix.
 *
 * @example
 * parseScenario({ name: 'x', steps: [{ at: 'soon' }] });
 * // SandboxError: `steps[0].at` is not a duration: pass milliseconds ... (param `steps[0].at`)
 */
export function parseScenario(input: unknown): Scenario {
  return check(scenarioWithinDepth, input, 'run', '');
}
