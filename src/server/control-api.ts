import { scenarioRoutes } from './control-scenarios.js';
import { createHash } from 'node:crypto';
import { answerOptions, inboundCallOptions } from '../control/calls.js';
import { faultRule } from '../control/faults.js';
import { chaosProfile } from '../control/chaos.js';
import { check, inControlApi } from '../control/context.js';
import { eventPositions } from '../control/events.js';
import { deliveryPages } from '../control/webhooks.js';
import { inboundMessageOptions } from '../control/messages.js';
import { callBehavior } from '../control/network.js';
import { CLOCK_MODES } from '../core/clock.js';
import { durationSchema } from '../core/duration.js';
import { SandboxError } from '../core/errors.js';
import { segmentsOf } from '../core/path-pattern.js';
import { dateTime, integer, object, oneOf, optional, queryObject, string, type JsonSchema } from '../core/schema.js';
import {
  apiKeyJson,
  attemptJson,
  callJson,
  deliveryJson,
  eventJson,
  faultJson,
  messageJson,
  resourceExample,
} from '../control/json-schemas.js';
import { advanceAnswer, advanceUntil, createKey, keyBody, keyAnswer, scriptingRoutes, withUntil } from './control-scripting.js';
import { deliveryPage, eventPage, pageOf, pageParameters, slicePage } from './control-pages.js';
import { snapshotField, snapshotRoutes } from './control-snapshots.js';
import { json } from './http.js';
import { consoleRoutes } from './control-console.js';
import { coverageRoutes } from './control-coverage.js';
import { controlRoute, type ControlRoute } from './control-route.js';
import type { Sandbox } from '../sandbox.js';
import type { Session, Sessions } from './sessions.js';
import { ApiError, errorEnvelope, refusalOf } from '../api/errors.js';
import { readJson } from '../api/request-body.js';
import { RouteTable } from '../api/router.js';

type Call = ReturnType<Sandbox['calls']['list']>[number];
type WebhookAttempt = ReturnType<Sandbox['webhooks']['attempts']>[number];

/**
 * The control API (docs/server.md): JSON in and out, under `/__sandbox`. Every row calls the
 * library's own scripting surface on the session's sandbox (`sandbox.calls.answer`,
 * `sandbox.network.setBehavior`, ...), which validates its input with the same schemas, so
 * the library and the control API are one surface seen twice and cannot drift. Errors are
 * the §4 envelope: a `SandboxError` becomes 400 (bad input, `param` set), 404 (unknown
 * session or thing), 409 (wrong state, or an advance cut short by a reset or delete).
 */

export type { ControlRequest, ControlRoute } from './control-route.js';

const advanceBody = object({ duration: durationSchema }, { description: "How far to move the session's virtual clock." });
const sessionBody = object(
  {
    seed: optional(
      integer({
        description: "The seed of the new sandbox (default: the server's)",
        min: Number.MIN_SAFE_INTEGER,
        max: Number.MAX_SAFE_INTEGER,
      }),
    ),
    startTime: optional(string({ description: "Virtual clock start, ISO 8601 (default: the server's)", max: 64, format: 'date-time' })),
    webhookTimeout: optional(durationSchema), // real time a webhook attempt may take (default: the server's, 10 s)
    clock: optional(
      oneOf(
        CLOCK_MODES,
        "How the session's virtual time moves: only by advance (manual), or also with the wall clock (realtime). Default: the server's.",
      ),
    ),
    deprecation: optional(
      object(
        {
          sunset: dateTime('When /v1 stops answering (the Sunset header).'),
          link: optional(
            string({
              description: 'The successor version\'s documentation (Link: <link>; rel="successor-version")',
              max: 2000,
              format: 'uri',
            }),
          ),
          date: optional(dateTime("When /v1 was deprecated (the Deprecation header). Default: the session's startTime.")),
        },
        { description: "Marks the session's /v1 deprecated: Deprecation, Sunset and Link headers on every answer." },
      ),
    ),
    chaos: optional(chaosProfile), // createSandbox's `chaos` (docs/chaos.md)
    // docs/snapshots.md: start from a snapshot, or fork a session (its snapshot now).
    snapshot: optional(snapshotField),
    from: optional(string({ description: 'A session to fork: the new one starts from its snapshot, now', max: 100 })),
  },
  { description: 'A new session.' },
);

const list = (items: JsonSchema): JsonSchema => ({ type: 'object', required: ['data'], properties: { data: { type: 'array', items } } });
/** A call as the console's list gives it: the call, and what its timeline draws. */
function callWithTimeline(): JsonSchema {
  const call = callJson() as { properties: Record<string, JsonSchema>; required?: string[] };
  // The call example just placed: nothing on its timeline yet.
  const example = { ...resourceExample({ openapi: callJson }), timeline: { recording: null, transcript: null, webhooks: [] } };
  const ready = {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['id', 'status', 'created_at', 'ready_at'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string' },
      created_at: { type: 'string' },
      ready_at: { type: ['string', 'null'] },
    },
  };
  // The attempt fields the timeline draws: those of `webhooks.attempts()` (control/json-schemas.ts).
  const drawn = ['eventType', 'deliveryId', 'attempt', 'replay', 'at', 'status', 'ok', 'error'];
  const attempt = attemptJson() as { properties: Record<string, JsonSchema> };
  const webhookMark = {
    type: 'object',
    additionalProperties: false,
    required: drawn,
    properties: Object.fromEntries(drawn.map((name) => [name, attempt.properties[name]!])),
  };
  return {
    ...call,
    required: [...(call.required ?? []), 'timeline'],
    properties: {
      ...call.properties,
      timeline: {
        type: 'object',
        additionalProperties: false,
        required: ['recording', 'transcript', 'webhooks'],
        properties: { recording: ready, transcript: ready, webhooks: { type: 'array', items: webhookMark } },
      },
    },
    examples: [example],
  };
}

/** A session as the session list and GET /sessions/{s} give it. */
const sessionJson: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'seed', 'now'],
  properties: { id: { type: 'string' }, seed: { type: 'integer' }, now: { type: 'string', format: 'date-time' } },
  examples: [{ id: 'ses_4kT9wQ2mX7bN1cRz', seed: 42, now: '2026-01-01T09:00:00.000Z' }],
};

/** The control routes, in the order of docs/server.md's table (then the console's extras). */
export const controlRoutes: ControlRoute[] = [
  controlRoute({
    method: 'GET',
    path: '/health',
    summary: 'Is the server up',
    operationId: 'health',
    status: 200,
    global: true,
    response: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    run: () => json(200, { status: 'ok' }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions',
    summary: 'Start a session: a sandbox of its own, with its own clock and seed',
    operationId: 'createSession',
    body: sessionBody,
    examples: {
      seeded: {
        summary: 'A session of its own seed, its clock starting at 09:00 UTC',
        value: { seed: 42, startTime: '2026-01-01T09:00:00Z' },
      },
      fork: { summary: 'A fork of the default session: its state now, to diverge from', value: { from: 'default' } },
    },
    status: 201,
    global: true,
    response: {
      type: 'object',
      required: ['id', 'apiKey', 'now'],
      properties: { id: { type: 'string' }, apiKey: { type: 'string' }, now: { type: 'string', format: 'date-time' } },
      examples: [{ id: 'ses_4kT9wQ2mX7bN1cRz', apiKey: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA', now: '2026-01-01T09:00:00.000Z' }],
    },
    run: ({ sessions, body }) => {
      const { session, apiKey } = sessions.create(body);
      return json(201, { id: session.id, apiKey, now: session.sandbox.now().toISOString() });
    },
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions',
    summary: 'List sessions',
    operationId: 'listSessions',
    status: 200,
    global: true,
    response: pageOf(sessionJson),
    query: pageParameters,
    run: ({ sessions, query }) => {
      const page = slicePage(sessions.list(), (s) => s.id, query, 'sessions', '');
      return json(200, { ...page, data: page.data.map((s) => ({ id: s.id, seed: s.seed, now: s.sandbox.now().toISOString() })) });
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}',
    summary: 'End a session; its keys are 401 from then on',
    operationId: 'deleteSession',
    status: 204,
    run: ({ sessions, session }) => {
      sessions.delete(session.id);
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/advance',
    summary: "Move the session's virtual clock by `duration` (sandbox.advance), or until an event of type `until` (sandbox.advanceUntil)",
    operationId: 'advance',
    body: withUntil(advanceBody),
    examples: {
      duration: { summary: 'Ninety seconds of virtual time', value: { duration: '90s' } },
      until: { summary: 'Until the next call completes, an hour at most', value: { until: 'call.completed', max: '1h' } },
    },
    status: 200,
    response: advanceAnswer,
    run: async ({ session, body }) => {
      if ('until' in body) return advanceUntil(session, body);
      const { duration: d } = body;
      // Positions, not copies: the answer costs the events it carries, whatever the log's length.
      const log = eventPositions(session.sandbox.events);
      const before = log.length;
      await session.sandbox.advance(d);
      return json(200, { now: session.sandbox.now().toISOString(), events: log.after(before, log.length - before) });
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/reset',
    summary: 'Reset the session (sandbox.reset); keys it made stay valid',
    operationId: 'reset',
    status: 204,
    run: ({ session }) => {
      session.sandbox.reset();
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/events',
    summary: 'The event log, oldest first, a page at a time (sandbox.events.list)',
    operationId: 'listEvents',
    status: 200,
    response: pageOf(eventJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, eventPage(eventPositions(session.sandbox.events), query, session.id)),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/deliveries',
    summary: 'Webhook deliveries with their attempts (sandbox.webhooks.deliveries)',
    operationId: 'listDeliveries',
    status: 200,
    response: pageOf(deliveryJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, deliveryPage(deliveryPages(session.sandbox.webhooks), false, query, session.id)),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/dead-letters',
    summary: 'The dead-letter queue (sandbox.webhooks.deadLetters)',
    operationId: 'listDeadLetters',
    status: 200,
    response: pageOf(deliveryJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, deliveryPage(deliveryPages(session.sandbox.webhooks), true, query, session.id)),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/dead-letters/{id}/replay',
    summary: 'Replay a dead letter (sandbox.webhooks.replay): a dlv_ id, or an evt_ id for all of that event',
    operationId: 'replayDeadLetter',
    status: 200,
    response: list(attemptJson()),
    run: async ({ session, params }) => json(200, { data: await session.sandbox.webhooks.replay(params.id!) }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/keys',
    summary: 'Make a test key of this session, with a plan and scopes (sandbox.keys.create)',
    operationId: 'createKey',
    body: keyBody,
    examples: {
      readOnly: {
        summary: 'A key that reads calls and does anything with messages',
        value: { plan: 'standard', scopes: ['calls:read', 'messages:*'] },
      },
    },
    status: 201,
    response: keyAnswer,
    run: createKey,
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/keys',
    summary: 'The keys made (sandbox.keys.list)',
    operationId: 'listKeys',
    status: 200,
    response: pageOf(apiKeyJson()),
    query: pageParameters,
    run: ({ session, query }) =>
      json(
        200,
        slicePage(session.sandbox.keys.list(), (k) => keyId(k.key), query, 'keys', session.id),
      ),
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/keys/{key}',
    summary: 'Revoke a key (sandbox.keys.revoke): 401 from then on',
    operationId: 'revokeKey',
    status: 204,
    run: ({ sessions, session, params }) => {
      // A key that names another session is that session's to revoke.
      if (sessions.route(params.key!) !== session) {
        throw new SandboxError(`${params.key} is a key of another session; revoke it there.`, { code: 'not_found', param: 'key' });
      }
      session.aliases.delete(params.key!);
      session.sandbox.keys.revoke(params.key!);
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/faults',
    summary: 'Inject a fault (sandbox.faults.inject)',
    operationId: 'injectFault',
    body: faultRule,
    examples: {
      outage: {
        summary: 'The next call placed gets 503 with Retry-After: 2',
        value: { method: 'POST', path: '/v1/calls', status: 503, retryAfter: 2, times: 1 },
      },
    },
    status: 201,
    response: list(faultJson()),
    run: ({ session, body }) => {
      session.sandbox.faults.inject(body);
      return json(201, { data: session.sandbox.faults.list() });
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/faults',
    summary: 'Forget every fault (sandbox.faults.clear)',
    operationId: 'clearFaults',
    status: 204,
    run: ({ session }) => {
      session.sandbox.faults.clear();
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/network/{number}',
    summary: 'Script calls to a number (sandbox.network.setBehavior)',
    operationId: 'setBehavior',
    body: callBehavior,
    examples: {
      answered: {
        summary: 'Calls ring 8 s, then Maria answers and talks for 45 s',
        value: { outcome: 'answered', ring: '8s', talk: '45s', answeredBy: 'human', agent: 'maria' },
      },
    },
    status: 204,
    fields: { behavior: '' },
    run: ({ session, params, body }) => {
      session.sandbox.network.setBehavior(params.number!, body);
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/network/{number}',
    summary: "Forget a number's scripted behaviour (sandbox.network.clearBehavior)",
    operationId: 'clearBehavior',
    status: 204,
    run: ({ session, params }) => {
      session.sandbox.network.clearBehavior(params.number!);
      return json(204, null);
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/{id}/answer',
    summary: 'Answer a ringing call now (sandbox.calls.answer)',
    operationId: 'answerCall',
    body: answerOptions,
    examples: { human: { summary: 'A person picks up', value: { by: 'human' } } },
    status: 200,
    response: callJson(),
    run: ({ session, params, body }) => json(200, session.sandbox.calls.answer(params.id!, body)),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/{id}/hang-up',
    summary: 'End a live call now (sandbox.calls.hangUp)',
    operationId: 'hangUpCall',
    status: 200,
    response: callJson(),
    run: ({ session, params }) => json(200, session.sandbox.calls.hangUp(params.id!)),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/inbound',
    summary: 'Ring a number of an account from outside (sandbox.calls.inbound)',
    operationId: 'inboundCall',
    body: inboundCallOptions,
    examples: {
      provisioned: {
        summary: "A customer calls one of the account's numbers (`to`: a number it provisioned)",
        value: { from: '+14155550123', to: '+14152585288' },
      },
    },
    status: 201,
    response: callJson(),
    run: ({ session, body }) => json(201, session.sandbox.calls.inbound(body)),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/messages/inbound',
    summary: 'Deliver an inbound SMS or MMS (sandbox.messages.inbound)',
    operationId: 'inboundMessage',
    body: inboundMessageOptions,
    examples: {
      sms: {
        summary: "A customer texts one of the account's numbers (`to`: a number it provisioned)",
        value: { from: '+14155550123', to: '+14152585288', body: 'Can I move my cleaning to Thursday?' },
      },
    },
    status: 201,
    response: messageJson(),
    run: ({ session, body }) => json(201, session.sandbox.messages.inbound(body)),
  }),
  // For the console.
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/calls',
    summary: 'Every call of the session, newest first, with its timeline (for the console)',
    operationId: 'listSessionCalls',
    status: 200,
    response: pageOf(callWithTimeline()),
    query: pageParameters,
    run: ({ session, query }) => {
      const page = slicePage(session.sandbox.calls.list(), (c) => c.id, query, 'calls', session.id);
      return json(200, { ...page, data: callTimelines(session, page.data) });
    },
  }),
  ...scriptingRoutes,
  ...scenarioRoutes,
  ...consoleRoutes,
  ...coverageRoutes,
  ...snapshotRoutes,
];

/**
 * Each call with what the console draws on its timeline: the call's own instants, when its
 * recording and transcript became ready, and every webhook attempt of its events.
 */
function callTimelines(session: Session, calls: Call[]) {
  const { sandbox } = session;
  // The page's calls only; each attempt's event is found by id, never by walking the log.
  const log = eventPositions(sandbox.events);
  const onPage = new Set(calls.map((call) => call.id));
  const attemptsOf = new Map<string, WebhookAttempt[]>();
  for (const attempt of sandbox.webhooks.attempts()) {
    const data = log.find(attempt.eventId)?.data as { id: string; call_id?: string } | undefined;
    const owner = data && (data.call_id ?? data.id);
    if (owner === undefined || !onPage.has(owner)) continue;
    let mine = attemptsOf.get(owner);
    if (!mine) attemptsOf.set(owner, (mine = []));
    mine.push(attempt);
  }
  return calls.map((call) => {
    const recording = call.recording_id ? sandbox.recordings.get(call.recording_id) : undefined;
    const transcript = call.transcript_id ? sandbox.transcripts.get(call.transcript_id) : undefined;
    return {
      ...call,
      timeline: {
        recording: recording
          ? { id: recording.id, status: recording.status, created_at: recording.created_at, ready_at: recording.ready_at }
          : null,
        transcript: transcript
          ? { id: transcript.id, status: transcript.status, created_at: transcript.created_at, ready_at: transcript.ready_at }
          : null,
        webhooks: (attemptsOf.get(call.id) ?? []).map((a) => ({
          eventType: a.eventType,
          deliveryId: a.deliveryId,
          attempt: a.attempt,
          replay: a.replay,
          at: a.at,
          status: a.status,
          ok: a.ok,
          error: a.error,
        })),
      },
    };
  });
}

/** A key as a cursor names it: a short digest (a key may hold `-` and be longer than a cursor's id). */
function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 20);
}

/** The control API's route table: the /v1 matcher (api/router.ts), its 404 wording the control API's. */
const table = new RouteTable<ControlRoute>(
  controlRoutes,
  (method, path, nearest) => {
    const near = nearest(method === 'HEAD' ? 'GET' : method, segmentsOf(path));
    return new ApiError(
      404,
      'not_found',
      `No control endpoint ${method} ${CONTROL}${path}. ${near ? `Did you mean ${near.replace(' ', ` ${CONTROL}`)}? ` : ''}See GET ${CONTROL}/openapi.json.`,
    );
  },
  { preflight: false },
);

/** A route without a body schema takes no fields: an empty body, or `{}`. */
const noFields = object({}, { description: 'No fields.' });

/**
 * Serves one control request (below `/__sandbox`, `path` without that prefix) on the road
 * `/v1` takes (docs/architecture.md): the route table matches it (404, 405 with `Allow`), the
 * session it names is found (404), the JSON body is read as `/v1` reads one (400, 413) and
 * parsed by the route's schemas, so `run` receives typed input or never runs; whatever is
 * thrown becomes an answer in one place (api/errors.ts `refusalOf`), and a failure of the
 * sandbox is a 500, never an exception out of the server. Errors name the JSON field, not the
 * library argument (control/context.ts `inControlApi`).
 */
export async function serveControl(request: Request, path: string, sessions: Sessions): Promise<Response> {
  try {
    const { route, params } = table.match(request.method, path);
    const session = route.global ? sessions.default : sessions.get(params.s!);
    if (!session) throw unknownSession(params.s!);
    const raw = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readJson(request, { optional: true });
    const fields = route.fields ?? {};
    return await inControlApi(fields, () => {
      const body = route.body
        ? check(route.body, raw === undefined ? {} : raw, '')
        : raw === undefined
          ? undefined
          : check(noFields, raw, '');
      const query = route.query ? check(route.query, queryObject(new URL(request.url).searchParams), '') : undefined;
      return route.run({ sessions, session, params, body, query, headers: request.headers, signal: request.signal });
    });
  } catch (error) {
    const refusal = refusalOf(error, { library: true });
    if (refusal) return json(refusal.status, refusal.toBody(), refusal.headers);
    return serverFailure(error);
  }
}

/** What escaped a road's own error handling: a 500, never a crash of the server. */
export function serverFailure(error: unknown): Response {
  return json(
    500,
    errorEnvelope('internal_error', `The sandbox server failed unexpectedly: ${error instanceof Error ? error.message : String(error)}.`),
  );
}

/** The 404 of a session id no session has. */
export function unknownSession(id: string): ApiError<string> {
  return new ApiError(
    404,
    'not_found',
    `No session ${JSON.stringify(id.slice(0, 80))}: list them with GET ${CONTROL}/sessions, or make one with POST ${CONTROL}/sessions.`,
    's',
  );
}

const CONTROL = '/__sandbox';
