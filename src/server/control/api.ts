import { scenarioRoutes } from './scenarios.js';
import { createHash } from 'node:crypto';
import { answerOptions, inboundCallOptions } from '../../scripting/calls.js';
import { faultRule } from '../../scripting/faults.js';
import { check, inControlApi } from '../../scripting/context.js';
import { inboundMessageOptions } from '../../scripting/messages.js';
import { callBehavior } from '../../scripting/network.js';
import { SandboxError } from '../../core/errors.js';
import { segmentsOf } from '../../core/path-pattern.js';
import { object, queryObject, type JsonSchema } from '../../core/schema.js';
import { apiKeyJson, attemptJson, callJson, deliveryJson, eventJson, faultJson, messageJson } from '../../scripting/json-schemas.js';
import { createKey, keyBody, keyAnswer, scriptingRoutes } from './scripting.js';
import { deliveryPage, eventPage, pageOf, pageParameters, slicePage } from './pages.js';
import { snapshotRoutes } from './snapshots.js';
import { json } from '../http.js';
import { consoleRoutes } from './console.js';
import { sessionRoutes } from './sessions.js';
import { callTimelineRoute } from './timeline.js';
import { coverageRoutes } from './coverage.js';
import { controlRoute, type ControlRoute } from './route.js';
import type { Sessions } from '../sessions.js';
import { ApiError, errorEnvelope, refusalOf } from '../../api/errors.js';
import { readJson } from '../../api/request-body.js';
import { RouteTable } from '../../api/router.js';

/**
 * The control API (docs/server.md): JSON in and out, under `/__sandbox`. Every row calls the
 * library's own scripting surface on the session's sandbox (`sandbox.calls.answer`,
 * `sandbox.network.setBehavior`, ...), which validates its input with the same schemas, so
 * the library and the control API are one surface seen twice and cannot drift. Errors are
 * the §4 envelope: a `SandboxError` becomes 400 (bad input, `param` set), 404 (unknown
 * session or thing), 409 (wrong state, or an advance cut short by a reset or delete).
 */

export type { ControlRequest, ControlRoute } from './route.js';

const list = (items: JsonSchema): JsonSchema => ({ type: 'object', required: ['data'], properties: { data: { type: 'array', items } } });
/** The control routes, in the order of docs/server.md's table (then the console's extras). */
export const controlRoutes: ControlRoute[] = [
  ...sessionRoutes,
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/events',
    summary: 'The event log, oldest first, a page at a time (sandbox.events.list)',
    operationId: 'listEvents',
    status: 200,
    response: pageOf(eventJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, eventPage(session.internals.events, query, session.id)),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/deliveries',
    summary: 'Webhook deliveries with their attempts (sandbox.webhooks.deliveries)',
    operationId: 'listDeliveries',
    status: 200,
    response: pageOf(deliveryJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, deliveryPage(session.internals.deliveries, false, query, session.id)),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/dead-letters',
    summary: 'The dead-letter queue (sandbox.webhooks.deadLetters)',
    operationId: 'listDeadLetters',
    status: 200,
    response: pageOf(deliveryJson()),
    query: pageParameters,
    run: ({ session, query }) => json(200, deliveryPage(session.internals.deliveries, true, query, session.id)),
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
  callTimelineRoute,
  ...scriptingRoutes,
  ...scenarioRoutes,
  ...consoleRoutes,
  ...coverageRoutes,
  ...snapshotRoutes,
];

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
 * library argument (scripting/context.ts `inControlApi`).
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
