import { exampleOf } from '../api/openapi.js';
import { methodKey, type OpenAPIDocument, type OpenAPIPathItem } from '../api/openapi-document.js';
import { sseFrame, sseText } from '../core/sse.js';
import { STARTED_EVENT_EXAMPLE } from '../scripting/json-schemas.js';
import type { ControlRoute } from './control/route.js';
import { streamOpening } from './stream.js';

/** The served document's title. */
const TITLE = 'Voice and Messaging API and control API (svc-sandbox server)';

/** The error envelope every answer uses (docs/errors.md): the `/v1` document's `Error` schema. */
const ENVELOPE = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
export const ERROR = { description: 'An error, in the envelope every answer uses (docs/errors.md).', content: ENVELOPE };
/**
 * What the control API answers when the sandbox server fails unexpectedly (control-api.ts
 * `serverFailure`): listed on every control operation, one status, never `5XX`.
 */
export const FAILURE = {
  description: 'The sandbox server failed unexpectedly (a bug): 500 `internal_error`, the failure in its message.',
  content: ENVELOPE,
};

/**
 * What each control operation does and its main rules, by operationId (the document's
 * `description`; the route's `summary` says it in a line). A control route that carries a
 * `description` of its own uses that instead.
 */
const DESCRIPTIONS: Record<string, string> = {
  getSession: "One session's seed and virtual now (`sandbox.now()`); 404 for an unknown or deleted session.",
  listInternalErrors:
    'Failures inside the sandbox that answered a request with 500 `internal_error` (`sandbox.internalErrors()`), oldest first: a test ' +
    'can assert there were none.',
  inspectCall: 'One call of the session, whichever account holds it (`sandbox.calls.get`); 404 naming `id` when there is none.',
  inspectMessage: 'One message of the session, whichever account holds it (`sandbox.messages.get`); 404 naming `id` when there is none.',
  inspectRecording: 'One recording of the session (`sandbox.recordings.get`); 404 naming `id` when there is none.',
  inspectTranscript: 'One transcript of the session (`sandbox.transcripts.get`); 404 naming `id` when there is none.',
  setRecordingTiming:
    'How long after an answered call ends its recording, then its transcript, become ready, for calls that end from now on ' +
    '(`sandbox.recordings.setTiming`). Defaults: 10 s, then 20 s.',
  setCallRecordingTiming:
    'The recording and transcript timing of one call, before it ends (`sandbox.recordings.setTiming(timing, id)`); 409 once it has ended.',
  setConversationScript:
    'What is said on a call, line by line, while it still rings (`sandbox.transcripts.setScript`): its transcript, live stream and ' +
    'summary follow it. 409 once answered.',
  countTranscriptStreams:
    'How many live transcript streams are open (`sandbox.transcripts.openStreams()`): a test can check its client closed them.',
  queueBehavior:
    'One-shot behaviours for the next calls to a number, one each, in order (`sandbox.network.queueBehavior`); the standing behaviour applies after them.',
  setMessageBehavior: 'Whether messages to a number end `delivered` or `failed` from now on (`sandbox.network.setMessageBehavior`).',
  queueMessageBehavior: 'One-shot outcomes for the next messages to a number, one each, in order (`sandbox.network.queueMessageBehavior`).',
  clearAllBehavior:
    'Forgets the scripted call and message behaviour of every number (`sandbox.network.clearBehavior()`): the defaults apply again.',
  listRequests:
    'The request journal (`sandbox.requests.list()`): every request `/v1` answered in this session, in the order the requests arrived, with ' +
    'its documented path, status, `error.code`, request id, API key and virtual time; the latest 10,000 are kept (`--max-journal-entries`).',
  getCoverage:
    "What this session's life exercised (`sandbox.coverage()`; docs/coverage.md): each documented status of each endpoint, every state " +
    'and transition of the call machine, every disposition, `answered_by`, message outcome, webhook path, event type and error code, ' +
    'each with a count (0: never), and `uncovered` listing the zeros. A reset keeps it.',
  getServerCoverage:
    'The union of the coverage of every session this server held, deleted ones included (`mergeCoverage` of them): what `svc-sandbox ' +
    'exec --coverage FILE` writes when its command ends.',
  listFaults:
    'The injected faults that still have hits left, in the order they match (`sandbox.faults.list()`); `remaining` is null for a fault without end.',
  listAttempts: 'Every webhook delivery attempt of the session in the order sent, replays marked (`sandbox.webhooks.attempts()`).',
  replayAllDeadLetters:
    'Replays every dead letter matching the filter (`sandbox.webhooks.replayAll`), attempt numbers starting over at 1; answers the attempts made.',
  health: 'Answers 200 `{"status": "ok"}` while the server is up: poll it before the first test runs.',
  createSession:
    'Starts a session: a sandbox of its own (clock, seed, ids, accounts, webhook queues), so parallel test workers never share state. ' +
    'The answer carries an API key that routes `/v1` requests to it; a server holds at most 1,000 live sessions (409 past that).',
  listSessions: 'The live sessions with their seed and virtual time; `default` always exists.',
  deleteSession:
    'Ends a session: an advance in progress answers 409 `interrupted`, and its keys are 401 from then on. `default` cannot be deleted (409).',
  advance:
    'Moves the session\'s virtual clock forward by `duration` (e.g. "90s", "25h"), running every timer due on the way: call lifecycles, ' +
    'deliveries and their retries. It answers with the events emitted meanwhile, oldest first; a reset or delete during it is 409 ' +
    '`interrupted`.',
  reset: 'Resets the session to its starting state (clock, data, queues) as `sandbox.reset()` does; keys it made stay valid.',
  listEvents: 'Every platform event of the session, oldest first, as webhooks would carry them.',
  listDeliveries: 'Every webhook delivery of the session with its attempts, their status and errors.',
  listDeadLetters: 'The deliveries that used up their retries (the dead-letter queue), for inspection and replay.',
  replayDeadLetter:
    'Sends a dead letter again (a `dlv_` id), or every dead letter of one event (an `evt_` id), starting the attempt count over at 1. An ' +
    'id with no dead letter is 404; one already delivered is 409.',
  createKey: 'Makes a new test API key that routes `/v1` requests to this session.',
  listKeys: 'The keys made for this session, with when each was made.',
  revokeKey: "Revokes one of this session's keys: requests with it are 401 from then on. A key of another session is 404.",
  injectFault:
    'Makes the next matching `/v1` requests fail: an error status (429 or 500–599, with an optional Retry-After) or a network failure, ' +
    '`times` times (or "Infinity"). It answers with the faults now active.',
  clearFaults: 'Forgets every injected fault of the session.',
  setBehavior:
    'Scripts what happens to calls to a number from now on: answered or not, by whom, busy, failed, how long they ring and last.',
  clearBehavior: "Forgets a number's scripted behaviour: calls to it follow the seeded defaults again.",
  answerCall:
    'Answers a ringing call now, by a human or a machine (`by`), instead of waiting for the clock. A call that is not ringing is 409.',
  hangUpCall: 'Ends a live call now, as if a party hung up. A call already ended is 409.',
  inboundCall:
    "Rings one of an account's numbers from outside, as a caller would: the call follows the number's routing and sends its webhooks.",
  inboundMessage:
    "Delivers an SMS or MMS from outside to one of an account's numbers, as a phone would send it: it is stored and its webhook sent.",
  listSessionCalls:
    'Every call of the session across its accounts, newest first, each with its timeline of events and deliveries (what the console shows).',
};

/**
 * A realistic value of each control path parameter, by name (and, for `id`, by what the path
 * names); none for a parameter not known here (test/api/spectral.test.ts then names it).
 */
function controlExample(name: string, path: string): string | undefined {
  if (name === 's') return 'default';
  if (name === 'key') return 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA';
  if (name === 'number') return '+14155550123';
  if (name === 'id' && path.includes('/dead-letters/')) return 'dlv_6Np1Rz8Kq3Wd5Ty2';
  if (name === 'id' && path.includes('/calls/')) return 'call_7mQ2xK9pR4tLw8Zb';
  if (name === 'id' && path.includes('/messages/')) return 'msg_3Jk8Vw2Qp5Rt9Lx1';
  if (name === 'id' && path.includes('/recordings/')) return 'rec_5Hc2vN8qT1mXy7Ka';
  if (name === 'id' && path.includes('/transcripts/')) return 'trn_9Rb4wL2sK7pQx3Mf';
  return undefined;
}

/**
 * The server's OpenAPI 3.1 document (`GET /__sandbox/openapi.json`): the `/v1` API as
 * `sandbox.openapi()` describes it, plus the control API, generated from the control route
 * table and the same schemas its functions validate with.
 */
export function serverOpenApi(api: OpenAPIDocument, routes: readonly ControlRoute[], url: string): OpenAPIDocument {
  const paths: Record<string, OpenAPIPathItem> = { ...api.paths };
  for (const route of routes) {
    const full = `/__sandbox${route.path}`;
    if (route.undocumented) continue;
    // A row whose operation is written out (the stream, the console, these documents).
    if (route.operation) {
      (paths[full] ??= {})[methodKey(route.method)] = route.operation(url);
      continue;
    }
    const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(name === 's' ? { description: 'A session id; `default` always exists.' } : {}),
    }));
    for (const [name, schema] of Object.entries(route.query?.shape ?? {}))
      parameters.push({ name, in: 'query', required: false, schema: schema.openapi() });
    for (const parameter of parameters) {
      if (parameter.in !== 'path') continue;
      const example = controlExample(String(parameter.name), route.path);
      if (example !== undefined) Object.assign(parameter, { example });
    }
    const own = route.description;
    if (route.body && !route.examples) throw new Error(`serverOpenApi: ${route.method} ${full} has a body but no examples.`);
    (paths[full] ??= {})[methodKey(route.method)] = {
      operationId: route.operationId,
      summary: route.summary,
      description: own ?? DESCRIPTIONS[route.operationId] ?? `${route.summary}.`,
      tags: ['control'],
      security: [],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: route.body.openapi(), examples: route.examples } } } }
        : {}),
      responses: {
        [String(route.status)]:
          route.status === 204
            ? { description: 'Done.' }
            : { description: 'Done.', content: { [route.contentType ?? 'application/json']: controlMedia(route) } },
        '400': ERROR,
        // A foreign Origin or Host, or a webhook delivery (docs/server.md, "Security model").
        '403': ERROR,
        '404': ERROR,
        '409': ERROR,
        ...(route.body ? { '413': ERROR } : {}),
        '500': FAILURE,
      },
    };
  }
  uniqueOperationIds(paths);
  return {
    ...api,
    info: { ...api.info, title: TITLE },
    servers: [{ url }],
    tags: [
      ...api.tags,
      {
        name: 'control',
        description:
          "The sandbox server's control API (docs/server.md): sessions, virtual time, scripting. No authentication: it listens on loopback.",
      },
    ],
    paths,
  };
}

/**
 * The media type of a control route's success body: its schema, and an example of the whole
 * body built from it (api/openapi.ts `exampleOf`: the resources' examples, and the `examples`
 * the control schemas carry). A binary body (a recording's WAV) has none: no JSON string can hold its bytes.
 */
function controlMedia(route: ControlRoute): Record<string, unknown> {
  const schema = route.response ?? { type: 'object' };
  if (schema.contentMediaType !== undefined) return { schema };
  return { schema, example: exampleOf(schema, route.operationId) };
}

/** The start of a session stream as server/stream.ts writes it: its comment, the first event of the log, the first `change` frame. */
export function sessionStreamExample(): string {
  const event = STARTED_EVENT_EXAMPLE;
  return sseText([streamOpening(), sseFrame('event', event, 1), sseFrame('change', { now: event.created_at, changes: [] })]);
}

/** The served document, shortened to one operation: its example (the whole document is this very one). */
export function documentExample(openapi: string, url: string): Record<string, unknown> {
  return {
    openapi,
    info: { title: TITLE, version: 'v1' },
    servers: [{ url }],
    paths: {
      '/__sandbox/health': { get: { operationId: 'health', summary: 'Is the server up', responses: { '200': { description: 'Done.' } } } },
    },
  };
}

/** Throws when two operations share an operationId: generated clients would drop or refuse one of them. */
function uniqueOperationIds(paths: Record<string, OpenAPIPathItem>): void {
  const seen = new Map<string, string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const id = (operation as { operationId: string }).operationId;
      const where = `${method.toUpperCase()} ${path}`;
      const other = seen.get(id);
      if (other) throw new Error(`serverOpenApi: the operationId ${id} names both ${other} and ${where}: rename one.`);
      seen.set(id, where);
    }
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON Schema keywords OpenAPI 3.0's schema object lacks: dropped (the server checks them all the same). */
const NOT_IN_30 = new Set([
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedProperties',
  'contentMediaType',
  'const',
  'examples',
  '$schema',
  'prefixItems',
]);

/** One schema in 3.0's dialect (see {@link openApi30}). */
function schema30(input: unknown): Json {
  if (input === true) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return input as Json;
  if (typeof input.$ref === 'string') return { $ref: input.$ref };
  const out: Json = {};
  for (const [key, value] of Object.entries(input)) {
    if (NOT_IN_30.has(key)) continue;
    if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, schema30(s)]));
    else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map(schema30);
    else if (key === 'items' || key === 'not' || (key === 'additionalProperties' && typeof value !== 'boolean')) out[key] = schema30(value);
    else out[key] = value;
  }
  if (Array.isArray(input.type)) {
    const types = input.type.filter((t) => t !== 'null');
    if (types.length !== 1) throw new Error(`openApi30: the type list ${JSON.stringify(input.type)} has no 3.0 form.`);
    out.type = types[0];
    if (types.length < input.type.length) out.nullable = true;
  }
  if ('const' in input) out.enum = [input.const];
  if (Array.isArray(input.examples) && input.examples.length > 0 && !('example' in input)) out.example = input.examples[0];
  if (input.contentMediaType !== undefined) out.format = 'binary';
  for (const bound of ['Minimum', 'Maximum'] as const) {
    const exclusive = input[`exclusive${bound}`];
    if (typeof exclusive === 'number') Object.assign(out, { [bound.toLowerCase()]: exclusive, [`exclusive${bound}`]: true });
  }
  // `anyOf: [X, {type: 'null'}]` (a nullable object): X, nullable.
  const anyOf = out.anyOf as Json[] | undefined;
  if (anyOf?.length === 2 && anyOf.some((s) => s.type === 'null')) {
    const inner = anyOf.find((s) => s.type !== 'null')!;
    delete out.anyOf;
    Object.assign(out, inner.$ref ? { allOf: [inner] } : inner, { nullable: true });
  }
  return out;
}

/** Every `schema` below `node` (parameters, media types, headers) in 3.0's dialect. */
function schemas30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(schemas30);
  if (!isObject(node)) return node;
  // An `example` or `examples` beside a schema is a value, not a schema: kept as it is.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'schema' ? schema30(value) : key === 'example' || key === 'examples' ? value : schemas30(value),
    ]),
  );
}

/**
 * The document in OpenAPI 3.0.3 (`GET /__sandbox/openapi-3.0.json`), for tools that read no
 * 3.1 yet (kin-openapi, older generators): type lists with `null` become `nullable`, `const` an
 * `enum` of one, `examples` the first `example`, numeric exclusive bounds the boolean form,
 * boolean schemas `{}` and `{not: {}}`; what 3.0 cannot say is dropped (`webhooks`, the license
 * `identifier`, `if`/`then`, `propertyNames`), so the 3.1 document stays the exact one: the
 * server refuses all it did before.
 */
export function openApi30(doc: OpenAPIDocument): Record<string, unknown> {
  const { webhooks: _webhooks, info, components = {}, paths, ...rest } = doc;
  const { identifier: _identifier, ...license } = info.license ?? { name: '' };
  const { schemas = {}, ...otherComponents } = components;
  return {
    ...rest,
    openapi: '3.0.3',
    info: { ...info, ...(info.license ? { license } : {}) },
    paths: schemas30(paths),
    components: {
      ...(schemas30(otherComponents) as Json),
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, schema30(s)])),
    },
  };
}
