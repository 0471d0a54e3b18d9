import { parseDuration, durationSchema, type Duration } from '../core/duration.js';
import { SandboxError } from '../core/errors.js';
import { E164 } from '../core/phone.js';
import {
  array,
  custom,
  dateTime,
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
import type { ReceiverAnswer, SimulatedReceivers } from '../events/receivers.js';
import type { DeliveryState, WebhookAttempt } from '../events/deliveries.js';
import { DELIVERY_STATES } from '../events/deliveries.js';
import type { CallBehavior, MessageBehavior } from '../sim/carrier.js';
import { NUMBER_KINDS, type NumberKind } from '../sim/inventory.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from '../state/resources.js';
import type { CallScripting } from './calls.js';
import { check } from './context.js';
import type { EventLog } from './events.js';
import type { MessageScripting } from './messages.js';
import { callBehavior, messageBehavior, type NetworkScripting } from './network.js';
import type { WebhookScripting } from './webhooks.js';
import { inboundCallOptions } from './calls.js';
import { inboundMessageOptions } from './messages.js';

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
    startTime: optional(dateTime('Virtual start time of the fresh sandbox `svc-sandbox run` makes.')),
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
        const ms = parseDuration(step.at)!;
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

/** One line of a run's timeline. */
export interface TimelineEntry {
  /** Virtual milliseconds since the scenario began. */
  offsetMs: number;
  /** Virtual instant, ISO 8601. */
  at: string;
  kind: 'setup' | 'step' | 'request' | 'event' | 'attempt' | 'expect' | 'failure';
  /** The line as `svc-sandbox run` prints it after the time. */
  text: string;
  /** The resource the line is about (a call, message, recording or transcript id), if any. */
  subject?: string;
  /** For an event: its type; for an attempt: the type of the event delivered. */
  eventType?: EventType;
  /** For an attempt: whether the receiver took it. */
  ok?: boolean;
  /** For a call event: the call, for a picture of it. */
  callId?: string;
}

/** The first expectation that did not hold. */
export interface ScenarioFailure {
  /** Index of the step. */
  step: number;
  /** JSON path of what failed in the file, e.g. `steps[4].expect.resources[0].fields.status`. */
  path: string;
  message: string;
  expected: unknown;
  /** What was seen instead. */
  seen: unknown;
}

/** What `sandbox.run` resolves with. */
export interface ScenarioResult {
  name: string;
  passed: boolean;
  /** Expectations checked and held (a request's `status`/`fields` count as one). */
  held: number;
  timeline: TimelineEntry[];
  failure: ScenarioFailure | null;
  startedAt: string;
  endedAt: string;
}

/** Options of `sandbox.run`. */
export interface ScenarioRunOptions {
  /** The account to run as; overrides the file's `apiKey` (the server passes the session's key). */
  apiKey?: string;
}

/** What a run needs of the sandbox: its public members, and its simulated receivers. */
export interface ScenarioHost {
  sandbox: {
    fetch(input: string, init?: RequestInit): Promise<Response>;
    advance(duration: Duration): Promise<void>;
    now(): Date;
    readonly events: EventLog;
    readonly network: NetworkScripting;
    readonly messages: MessageScripting;
    readonly calls: CallScripting;
    readonly webhooks: WebhookScripting;
  };
  receivers: SimulatedReceivers;
}

/** Stops a run at the first expectation that failed. */
class Failed extends Error {
  constructor(readonly failure: ScenarioFailure) {
    super(failure.message);
  }
}

/**
 * Validates `input` as a scenario; a SandboxError names the JSON path and the fix.
 *
 * @example
 * parseScenario({ name: 'x', steps: [{ at: 'soon' }] });
 * // SandboxError: `steps[0].at` is not a duration: pass milliseconds ... (param `steps[0].at`)
 */
export function parseScenario(input: unknown): Scenario {
  return check(scenarioSchema, input, 'run', '') as Scenario;
}

/** Runs a scenario (see `Sandbox.run`). */
export async function runScenario(host: ScenarioHost, input: unknown, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
  const scenario = parseScenario(input);
  return new Run(host, scenario, options.apiKey ?? scenario.apiKey ?? 'SVC_TEST_scenario').play();
}

/** Seconds since the start, as the demo prints them: `+   65s`. */
export function formatOffset(ms: number): string {
  return `+${String(ms / 1000).padStart(5)}s`;
}

/** The timeline as `svc-sandbox run` prints it: one line per entry, the demo's format. */
export function formatTimeline(result: ScenarioResult): string {
  return result.timeline.map((entry) => `${formatOffset(entry.offsetMs)}  ${entry.text}`).join('\n');
}

function eventLine(event: SandboxEvent): Pick<TimelineEntry, 'text' | 'subject' | 'callId'> {
  const type = `${event.type.padEnd(17)} `;
  switch (event.type) {
    case 'call.started':
    case 'call.answered':
    case 'call.completed': {
      const c = event.data;
      const extra =
        event.type === 'call.completed'
          ? ` disposition=${c.disposition} duration=${c.duration}s`
          : event.type === 'call.answered'
            ? ` by=${c.answered_by}${c.agent ? ` agent=${c.agent}` : ''}`
            : ` ${c.direction} ${c.from} -> ${c.to}`;
      return { text: `${type}${c.id} ${c.status}${extra}`, subject: c.id, callId: c.id };
    }
    case 'message.received':
    case 'message.delivered': {
      const m = event.data;
      return {
        text:
          `${type}${m.id} ${m.status} ${m.from} -> ` +
          `${m.to}${m.body === null ? '' : ` ${JSON.stringify(m.body.length > 40 ? `${m.body.slice(0, 40)}…` : m.body)}`}`,
        subject: m.id,
      };
    }
    case 'recording.ready':
      return {
        text: `${type}${event.data.id} ${event.data.status} call=${event.data.call_id} duration=${event.data.duration}s`,
        subject: event.data.id,
        callId: event.data.call_id,
      };
    case 'transcript.ready':
      return {
        text: `${type}${event.data.id} ${event.data.status} call=${event.data.call_id} segments=${event.data.segments.length}`,
        subject: event.data.id,
        callId: event.data.call_id,
      };
  }
}

/** Where `expected` (a partial value) differs from `seen`: the path below and the two values, or null when it matches. */
export function difference(expected: unknown, seen: unknown, path: string): { path: string; expected: unknown; seen: unknown } | null {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (seen === null || typeof seen !== 'object' || Array.isArray(seen)) return { path, expected, seen };
    for (const [key, value] of Object.entries(expected)) {
      const diff = difference(value, (seen as Record<string, unknown>)[key], `${path}.${key}`);
      if (diff) return diff;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(seen) || seen.length !== expected.length) return { path, expected, seen };
    for (let i = 0; i < expected.length; i += 1) {
      const diff = difference(expected[i], seen[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(expected, seen) ? null : { path, expected, seen: seen === undefined ? null : seen };
}

class Run {
  private readonly timeline: TimelineEntry[] = [];
  private readonly named = new Map<string, unknown>();
  private readonly events: SandboxEvent[] = [];
  private readonly startMs: number;
  private held = 0;
  private step = -1;

  constructor(
    private readonly host: ScenarioHost,
    private readonly scenario: Scenario,
    private readonly apiKey: string,
  ) {
    this.startMs = host.sandbox.now().getTime();
    this.named.set('apiKey', apiKey);
  }

  private get sandbox() {
    return this.host.sandbox;
  }

  private add(kind: TimelineEntry['kind'], text: string, more: Partial<TimelineEntry> = {}): void {
    const now = this.sandbox.now();
    this.timeline.push({ offsetMs: now.getTime() - this.startMs, at: now.toISOString(), kind, text, ...more });
  }

  async play(): Promise<ScenarioResult> {
    const { sandbox } = this;
    const stops = [
      sandbox.events.subscribe(
        (event) => {
          this.events.push(event);
          this.add('event', eventLine(event).text, { ...eventLine(event), eventType: event.type });
        },
        { apiKey: this.apiKey },
      ),
      sandbox.webhooks.subscribe(
        (attempt, state) =>
          this.add('attempt', attemptLine(attempt, state), { eventType: attempt.eventType, ok: attempt.ok, subject: attempt.deliveryId }),
        { apiKey: this.apiKey },
      ),
    ];
    const startedAt = sandbox.now().toISOString();
    let failure: ScenarioFailure | null = null;
    try {
      await this.setUp();
      for (const [i, step] of this.scenario.steps.entries()) {
        this.step = i;
        const wait = this.startMs + parseDuration(step.at)! - sandbox.now().getTime();
        if (wait > 0) await sandbox.advance(wait);
        await this.perform(step, `steps[${i}]`);
      }
    } catch (error) {
      if (!(error instanceof Failed)) {
        if (!(error instanceof SandboxError)) throw error;
        failure = {
          step: this.step,
          path: this.step < 0 ? 'numbers' : `steps[${this.step}]`,
          message: error.message,
          expected: null,
          seen: null,
        };
        if (error.code === 'interrupted' || error.code === 'closed') throw error;
      } else failure = error.failure;
      this.add('failure', `FAILED ${failure.path}: ${failure.message}`);
    } finally {
      for (const stop of stops) stop();
    }
    return {
      name: this.scenario.name,
      passed: failure === null,
      held: this.held,
      timeline: this.timeline,
      failure,
      startedAt,
      endedAt: sandbox.now().toISOString(),
    };
  }

  private fail(path: string, message: string, expected: unknown, seen: unknown): never {
    throw new Failed({ step: this.step, path, message, expected, seen });
  }

  /** Numbers, subscriptions and the carrier, before the first step. */
  private async setUp(): Promise<void> {
    const s = this.scenario;
    for (const [i, n] of (s.numbers ?? []).entries()) {
      const { as, ...body } = n;
      const made = await this.api('POST', '/v1/numbers', body, `numbers[${i}]`, 201, true);
      this.named.set(as, made);
      this.add('setup', `number ${as}: ${(made as { number: string }).number}`);
    }
    for (const [i, w] of (s.webhooks ?? []).entries()) {
      if (w.receiver !== undefined) this.host.receivers.set(w.url, w.receiver);
      const made = await this.api(
        'POST',
        '/v1/webhooks',
        { url: w.url, events: w.events ?? [...EVENT_TYPES] },
        `webhooks[${i}]`,
        201,
        true,
      );
      if (w.as) this.named.set(w.as, made);
      this.add(
        'setup',
        `webhook ${w.url} for ${w.events?.join(', ') ?? 'every event'}${w.receiver === undefined ? '' : ` (simulated receiver answers ${w.receiver})`}`,
      );
    }
    this.script(s.network, s.messageNetwork);
  }

  private script(network: Scenario['network'], messages: Scenario['messageNetwork']): void {
    for (const [number, behavior] of Object.entries(network ?? {})) {
      if (Array.isArray(behavior)) this.sandbox.network.queueBehavior(number, ...behavior);
      else this.sandbox.network.setBehavior(number, behavior);
      this.add('setup', `network ${number}: ${describeBehavior(behavior)}`);
    }
    for (const [number, behavior] of Object.entries(messages ?? {})) {
      if (Array.isArray(behavior)) this.sandbox.network.queueMessageBehavior(number, ...behavior);
      else this.sandbox.network.setMessageBehavior(number, behavior);
      this.add('setup', `messages to ${number}: ${describeBehavior(behavior)}`);
    }
  }

  private async perform(step: ScenarioStep, path: string): Promise<void> {
    const { sandbox } = this;
    if (step.note) this.add('step', `# ${step.note}`);
    if (step.request) {
      const r = step.request;
      const target = this.resolve(r.path, `${path}.request.path`) as string;
      const body = r.body === undefined ? undefined : this.resolve(r.body, `${path}.request.body`);
      const answer = await this.api(r.method, target, body, `${path}.request`, r.status);
      if (r.fields) this.expectFields(r.fields, answer, `${path}.request.fields`);
      if (r.as) this.named.set(r.as, answer);
    } else if (step.inboundCall) {
      const { as, ...options } = this.resolve(step.inboundCall, `${path}.inboundCall`) as NonNullable<ScenarioStep['inboundCall']>;
      this.add('step', `inbound call ${options.from} -> ${options.to}`);
      const call = sandbox.calls.inbound({ apiKey: this.apiKey, ...options });
      if (as) this.named.set(as, call);
    } else if (step.inboundMessage) {
      const { as, ...options } = this.resolve(step.inboundMessage, `${path}.inboundMessage`) as NonNullable<ScenarioStep['inboundMessage']>;
      this.add(
        'step',
        `inbound message ${options.from} -> ${options.to}${options.body === undefined ? '' : ` ${JSON.stringify(options.body)}`}`,
      );
      const message = sandbox.messages.inbound(options);
      if (as) this.named.set(as, message);
    } else if (step.network || step.messageNetwork) {
      this.script(step.network, step.messageNetwork);
    } else if (step.answer !== undefined) {
      const call = sandbox.calls.answer(this.resolve(step.answer, `${path}.answer`) as string);
      this.add('step', `answer ${call.id}`, { subject: call.id });
    } else if (step.hangUp !== undefined) {
      const call = sandbox.calls.hangUp(this.resolve(step.hangUp, `${path}.hangUp`) as string);
      this.add('step', `hang up ${call.id}`, { subject: call.id });
    } else if (step.receiver) {
      this.host.receivers.set(step.receiver.url, step.receiver.answer);
      this.add('step', `receiver ${step.receiver.url} now answers ${step.receiver.answer}`);
    } else if (step.replay !== undefined) {
      const what = this.resolve(step.replay, `${path}.replay`) as string;
      const attempts =
        what === 'dead-letters' ? await sandbox.webhooks.replayAll({ apiKey: this.apiKey }) : await sandbox.webhooks.replay(what);
      this.add('step', `replay ${what}: ${attempts.length} ${attempts.length === 1 ? 'delivery' : 'deliveries'}`);
    } else if (step.expect) {
      await this.check(step.expect, `${path}.expect`);
    }
  }

  /** A `/v1` request with the scenario's key: its answer, or a failure when the status is not the one expected. */
  private async api(method: string, target: string, body: unknown, path: string, status?: number, quiet = false): Promise<unknown> {
    const before = this.timeline.length;
    const response = await this.sandbox.fetch(target, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // A recording's audio or a live transcript is no JSON: the scenario sees its status, and no body.
    const json = (response.headers.get('content-type') ?? '').includes('json');
    // Its body is let go, not awaited: nothing reads it, and a failed cancel changes nothing.
    if (!json) void response.body?.cancel().catch(() => undefined);
    const text = json ? await response.text() : '';
    const answer: unknown = text ? JSON.parse(text) : null;
    const error = (answer as { error?: { code: string; message: string } } | null)?.error;
    const id = (answer as { id?: string } | null)?.id;
    if (!quiet) {
      // Before the events the request caused, at the instant it was answered.
      const answered = (answer as { status?: string } | null)?.status;
      const outcome = error ? ` ${error.code}: ${error.message}` : id ? ` ${id}${answered ? ` ${answered}` : ''}` : '';
      this.add('request', `${method} ${target} -> ${response.status}${outcome}`, id ? { subject: id } : {});
      this.timeline.splice(before, 0, this.timeline.pop()!);
    }
    const ok = status === undefined ? response.status < 300 : response.status === status;
    if (!ok) {
      this.fail(
        status === undefined ? path : `${path}.status`,
        `${method} ${target} answered ${response.status}${error ? ` ${error.code}: ${error.message}` : ''}, expected ` +
          `${status ?? 'a 2xx'}${status === undefined ? ' (give `status` to expect an error)' : ''}.`,
        status ?? '2xx',
        response.status,
      );
    }
    if (status !== undefined && !quiet) this.held += 1;
    return answer;
  }

  private expectFields(fields: Record<string, unknown>, seen: unknown, path: string): void {
    const expected = this.resolve(fields, path);
    const diff = difference(expected, seen, path);
    if (diff)
      this.fail(
        diff.path,
        `${diff.path}: expected ${JSON.stringify(diff.expected)}, saw ${JSON.stringify(diff.seen)}.`,
        diff.expected,
        diff.seen,
      );
    this.held += 1;
  }

  private async check(expect: ScenarioExpectation, path: string): Promise<void> {
    const seenTypes = () => this.events.map((e) => e.type);
    if (expect.events) {
      const wanted = expect.events;
      const p = `${path}.events`;
      if (wanted.length !== this.events.length || wanted.some((w, i) => !this.eventMatches(w, this.events[i]!, `${p}[${i}]`))) {
        const at = wanted.findIndex((w, i) => this.events[i] === undefined || !this.eventMatches(w, this.events[i]!, `${p}[${i}]`));
        const where = at < 0 ? `${p}` : `${p}[${at}]`;
        this.fail(
          where,
          `${where}: expected the events ${JSON.stringify(wanted.map(typeOf))}, saw ${JSON.stringify(seenTypes())}.`,
          wanted,
          seenTypes(),
        );
      }
      this.held += 1;
      this.add('expect', `ok   events: ${wanted.length} in order`);
    }
    if (expect.eventsInclude) {
      const p = `${path}.eventsInclude`;
      let from = 0;
      for (const [i, w] of expect.eventsInclude.entries()) {
        const found = this.events.findIndex((e, j) => j >= from && this.eventMatches(w, e, `${p}[${i}]`));
        if (found < 0)
          this.fail(
            `${p}[${i}]`,
            `${p}[${i}]: no ${JSON.stringify(w)} after the events matched before it; saw ${JSON.stringify(seenTypes())}.`,
            w,
            seenTypes(),
          );
        from = found + 1;
      }
      this.held += 1;
      this.add('expect', `ok   events include: ${expect.eventsInclude.map(typeOf).join(', ')}`);
    }
    for (const [i, r] of (expect.resources ?? []).entries()) {
      const p = `${path}.resources[${i}]`;
      const target = this.resolve(r.path, `${p}.path`) as string;
      const answer = await this.api('GET', target, undefined, p, 200, true);
      this.expectFields(r.fields, answer, `${p}.fields`);
      this.add('expect', `ok   GET ${target}: ${Object.keys(r.fields).join(', ')}`);
    }
    if (expect.deliveries) {
      const p = `${path}.deliveries`;
      const deliveries = this.sandbox.webhooks.deliveries({ apiKey: this.apiKey });
      const seen: Record<string, number> = Object.fromEntries(
        DELIVERY_STATES.map((s) => [s, deliveries.filter((d) => d.state === s).length]),
      );
      seen.attempts = deliveries.reduce((n, d) => n + d.attempts.length, 0);
      for (const [key, count] of Object.entries(expect.deliveries)) {
        if (seen[key] !== count)
          this.fail(
            `${p}.${key}`,
            `${p}.${key}: expected ${count}, saw ${seen[key]} (deliveries now: ${JSON.stringify(seen)}).`,
            count,
            seen[key],
          );
      }
      this.held += 1;
      this.add('expect', `ok   deliveries: ${JSON.stringify(expect.deliveries)}`);
    }
    if (expect.deadLetters !== undefined) {
      const p = `${path}.deadLetters`;
      const dead = this.sandbox.webhooks.deadLetters({ apiKey: this.apiKey }).length;
      if (dead !== expect.deadLetters)
        this.fail(p, `${p}: expected ${expect.deadLetters} dead letters, saw ${dead}.`, expect.deadLetters, dead);
      this.held += 1;
      this.add('expect', `ok   dead letters: ${dead}`);
    }
  }

  private eventMatches(
    wanted: EventType | { type: EventType; data?: Record<string, unknown> },
    event: SandboxEvent,
    path: string,
  ): boolean {
    if (typeof wanted === 'string') return event.type === wanted;
    if (event.type !== wanted.type) return false;
    return wanted.data === undefined || difference(this.resolve(wanted.data, `${path}.data`), event.data, '') === null;
  }

  /** `value` with every {{name.field}} replaced by what an earlier step named so. */
  private resolve(value: unknown, path: string): unknown {
    if (typeof value === 'string') {
      const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value);
      if (whole) return this.lookup(whole[1]!, path);
      return value.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => String(this.lookup(name, path)));
    }
    if (Array.isArray(value)) return value.map((v, i) => this.resolve(v, `${path}[${i}]`));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, `${path}.${k}`)]));
    return value;
  }

  private lookup(reference: string, path: string): unknown {
    const [head, ...rest] = reference.split('.');
    if (!this.named.has(head!)) {
      const known = [...this.named.keys()].join(', ');
      this.fail(
        path,
        `${path}: {{${reference}}} names \`${head}\`, which no earlier step made: name a request, number or inbound step with \`as\` (named so far: ${known}).`,
        reference,
        null,
      );
    }
    let value: unknown = this.named.get(head!);
    for (const key of rest) {
      if (value === null || typeof value !== 'object' || !(key in value))
        this.fail(path, `${path}: {{${reference}}}: \`${head}\` has no field \`${key}\`.`, reference, value);
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  }
}

function typeOf(w: EventType | { type: EventType }): EventType {
  return typeof w === 'string' ? w : w.type;
}

function describeBehavior(behavior: object | object[]): string {
  const one = (b: object) =>
    Object.entries(b)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'default';
  return Array.isArray(behavior) ? behavior.map(one).join(', then ') : one(behavior);
}

function attemptLine(attempt: WebhookAttempt, state: DeliveryState): string {
  const answer = attempt.status === null ? 'no answer' : String(attempt.status);
  return (
    `${'webhook'.padEnd(17)} ${attempt.eventType} -> ${attempt.url} ${answer} (attempt ` +
    `${attempt.attempt}${attempt.replay ? `, replay ${attempt.replay}` : ''}; ${state})`
  );
}

/** The JSON Schema of a {@link ScenarioResult}, for the control API's document. */
export function scenarioResultJsonSchema(): JsonSchema {
  const entry = {
    type: 'object',
    additionalProperties: false,
    required: ['offsetMs', 'at', 'kind', 'text'],
    properties: {
      offsetMs: { type: 'integer', minimum: 0, description: 'Virtual milliseconds since the scenario began.' },
      at: { type: 'string', format: 'date-time' },
      kind: { type: 'string', enum: ['setup', 'step', 'request', 'event', 'attempt', 'expect', 'failure'] },
      text: { type: 'string', description: 'The line as `svc-sandbox run` prints it after the time.' },
      subject: { type: 'string' },
      eventType: { type: 'string', enum: [...EVENT_TYPES] },
      ok: { type: 'boolean' },
      callId: { type: 'string' },
    },
  };
  return {
    type: 'object',
    description: 'What a scenario run came to: passed, its timeline, and the first expectation that failed with what was seen instead.',
    additionalProperties: false,
    required: ['name', 'passed', 'held', 'timeline', 'failure', 'startedAt', 'endedAt'],
    properties: {
      name: { type: 'string' },
      passed: { type: 'boolean' },
      held: { type: 'integer', minimum: 0, description: 'Expectations checked that held.' },
      timeline: { type: 'array', items: entry },
      failure: {
        anyOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['step', 'path', 'message', 'expected', 'seen'],
            properties: {
              step: { type: 'integer', minimum: -1 },
              path: { type: 'string', description: 'JSON path in the file, e.g. steps[4].expect.events[2].' },
              message: { type: 'string' },
              expected: {},
              seen: {},
            },
          },
          { type: 'null' },
        ],
      },
      startedAt: { type: 'string', format: 'date-time' },
      endedAt: { type: 'string', format: 'date-time' },
    },
  };
}
