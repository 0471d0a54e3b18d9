// Longer than most files: the control road (its stages, its table of every control row, the wording of what the
// library refuses in each row's terms) is one runner; the rows themselves live in the files beside it.
import { scenarioRoutes } from './scenarios.js';
import { createHash } from 'node:crypto';
import { answerOptions, inboundCallOptions } from '../../scripting/calls.js';
import { faultRule } from '../../scripting/faults.js';
import { check } from '../../scripting/context.js';
import { inboundMessageOptions } from '../../scripting/messages.js';
import { callBehavior } from '../../scripting/network.js';
import { LIBRARY_NAMING, render, SandboxError } from '../../core/errors.js';
import { segmentsOf } from '../../core/path-pattern.js';
import { object, queryObject } from '../../core/schema.js';
import {
  activeFaultSchema,
  apiKeySchema,
  attemptSchema,
  callSchema,
  dataList,
  deliverySchema,
  eventSchema,
  madeKeySchema,
  messageSchema,
} from '../../scripting/json-schemas.js';
import { createKey, keyBody, scriptingRoutes } from './scripting.js';
import { deliveryPage, eventPage, pageOf, pageParameters, slicePage } from './pages.js';
import { snapshotRoutes } from './snapshots.js';
import { json } from '../http.js';
import { consoleRoutes } from './console.js';
import { servedRoutes } from './served.js';
import { sessionRoutes } from './sessions.js';
import { callTimelineRoute } from './timeline.js';
import { coverageRoutes } from './coverage.js';
import { controlRoute, type ControlAnswer, type ControlRoute } from './route.js';
import type { Session, Sessions } from '../sessions.js';
import { ApiError, errorEnvelope, refusalOf } from '../../api/errors.js';
import { readJson } from '../../api/request-body.js';
import { road, travel, type Road, type Stage } from '../../api/road.js';
import { RouteTable } from '../../api/router.js';
import { checkControl } from '../guard.js';

/**
 * The control API (docs/server.md): JSON in and out, under `/__sandbox`. Every row calls the
 * library's own scripting surface on the session's sandbox (`sandbox.calls.answer`,
 * `sandbox.network.setBehavior`, ...), which validates its input with the same schemas, so
 * the library and the control API are one surface seen twice and cannot drift. Errors are
 * the §4 envelope: a `SandboxError` becomes 400 (bad input, `param` set), 404 (unknown
 * session or thing), 409 (wrong state, or an advance cut short by a reset or delete).
 */

export type { ControlRequest, ControlRoute } from './route.js';

/** The control routes, in the order of docs/server.md's table (then the console's extras). */
export const controlRoutes: ControlRoute[] = [
  ...sessionRoutes,
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/events',
    summary: 'The event log, oldest first, a page at a time (sandbox.events.list)',
    operationId: 'listEvents',
    description: 'Every platform event of the session, oldest first, as webhooks would carry them.',
    status: 200,
    response: pageOf(eventSchema),
    query: pageParameters,
    handle: ({ session, query }) => ({ status: 200, body: eventPage(session.internals.events, query, session.id) }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/deliveries',
    summary: 'Webhook deliveries with their attempts (sandbox.webhooks.deliveries)',
    operationId: 'listDeliveries',
    description: 'Every webhook delivery of the session with its attempts, their status and errors.',
    status: 200,
    response: pageOf(deliverySchema),
    query: pageParameters,
    handle: ({ session, query }) => ({ status: 200, body: deliveryPage(session.internals.deliveries, false, query, session.id) }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/dead-letters',
    summary: 'The dead-letter queue (sandbox.webhooks.deadLetters)',
    operationId: 'listDeadLetters',
    description: 'The deliveries that used up their retries (the dead-letter queue), for inspection and replay.',
    status: 200,
    response: pageOf(deliverySchema),
    query: pageParameters,
    handle: ({ session, query }) => ({ status: 200, body: deliveryPage(session.internals.deliveries, true, query, session.id) }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/dead-letters/{id}/replay',

    params: { id: { example: 'dlv_6Np1Rz8Kq3Wd5Ty2' } },
    summary: 'Replay a dead letter (sandbox.webhooks.replay): a dlv_ id, or an evt_ id for all of that event',
    operationId: 'replayDeadLetter',
    description:
      'Sends a dead letter again (a `dlv_` id), or every dead letter of one event (an `evt_` id), starting the attempt count over at 1. An ' +
      'id with no dead letter is 404; one already delivered is 409.',
    status: 200,
    response: dataList(attemptSchema, 'The attempts the replay made, in the order sent.').openapi(),
    handle: async ({ session, params }) => ({ status: 200, body: { data: await session.sandbox.webhooks.replay(params.id) } }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/keys',
    summary: 'Make a test key of this session, with a plan and scopes (sandbox.keys.create)',
    operationId: 'createKey',
    description: 'Makes a new test API key that routes `/v1` requests to this session.',
    body: keyBody,
    examples: {
      readOnly: {
        summary: 'A key that reads calls and does anything with messages',
        value: { plan: 'standard', scopes: ['calls:read', 'messages:*'] },
      },
    },
    status: 201,
    response: madeKeySchema.openapi(),
    handle: createKey,
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/keys',
    summary: 'The keys made (sandbox.keys.list)',
    operationId: 'listKeys',
    description: 'The keys made for this session, with when each was made.',
    status: 200,
    response: pageOf(apiKeySchema),
    query: pageParameters,
    handle: ({ session, query }) =>
      json(
        200,
        slicePage(session.sandbox.keys.list(), (k) => keyId(k.key), query, 'keys', session.id),
      ),
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/keys/{key}',

    params: { key: { example: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA' } },
    summary: 'Revoke a key (sandbox.keys.revoke): 401 from then on',
    operationId: 'revokeKey',
    description: "Revokes one of this session's keys: requests with it are 401 from then on. A key of another session is 404.",
    status: 204,
    handle: ({ sessions, session, params }) => {
      // A key that names another session is that session's to revoke.
      if (sessions.route(params.key) !== session) {
        throw new SandboxError(`${params.key} is a key of another session; revoke it there.`, { code: 'not_found', param: 'key' });
      }
      session.aliases.delete(params.key);
      session.sandbox.keys.revoke(params.key);
      return { status: 204 };
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/faults',
    summary: 'Inject a fault (sandbox.faults.inject)',
    operationId: 'injectFault',
    description:
      'Makes the next matching `/v1` requests fail: an error status (429 or 500–599, with an optional Retry-After) or a network failure, ' +
      '`times` times (or "Infinity"). It answers with the faults now active.',
    body: faultRule,
    examples: {
      outage: {
        summary: 'The next call placed gets 503 with Retry-After: 2',
        value: { method: 'POST', path: '/v1/calls', status: 503, retryAfter: 2, times: 1 },
      },
    },
    status: 201,
    response: dataList(activeFaultSchema, 'The injected faults with hits left, in order.').openapi(),
    handle: ({ session, body }) => {
      session.sandbox.faults.inject(body);
      return { status: 201, body: { data: session.sandbox.faults.list() } };
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/faults',
    summary: 'Forget every fault (sandbox.faults.clear)',
    operationId: 'clearFaults',
    description: 'Forgets every injected fault of the session.',
    status: 204,
    handle: ({ session }) => {
      session.sandbox.faults.clear();
      return { status: 204 };
    },
  }),
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/network/{number}',

    params: { number: { example: '+14155550123' } },
    summary: 'Script calls to a number (sandbox.network.setBehavior)',
    operationId: 'setBehavior',
    description:
      'Scripts what happens to calls to a number from now on: answered or not, by whom, busy, failed, how long they ring and last.',
    body: callBehavior,
    examples: {
      answered: {
        summary: 'Calls ring 8 s, then Maria answers and talks for 45 s',
        value: { outcome: 'answered', ring: '8s', talk: '45s', answeredBy: 'human', agent: 'maria' },
      },
    },
    status: 204,
    fields: { behavior: '' },
    handle: ({ session, params, body }) => {
      session.sandbox.network.setBehavior(params.number, body);
      return { status: 204 };
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/network/{number}',

    params: { number: { example: '+14155550123' } },
    summary: "Forget a number's scripted behaviour (sandbox.network.clearBehavior)",
    operationId: 'clearBehavior',
    description: "Forgets a number's scripted behaviour: calls to it follow the seeded defaults again.",
    status: 204,
    handle: ({ session, params }) => {
      session.sandbox.network.clearBehavior(params.number);
      return { status: 204 };
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/{id}/answer',

    params: { id: { example: 'call_7mQ2xK9pR4tLw8Zb' } },
    summary: 'Answer a ringing call now (sandbox.calls.answer)',
    operationId: 'answerCall',
    description:
      'Answers a ringing call now, by a human or a machine (`by`), instead of waiting for the clock. A call that is not ringing is 409.',
    body: answerOptions,
    examples: { human: { summary: 'A person picks up', value: { by: 'human' } } },
    status: 200,
    response: callSchema.openapi(),
    handle: ({ session, params, body }) => ({ status: 200, body: session.sandbox.calls.answer(params.id, body) }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/{id}/hang-up',

    params: { id: { example: 'call_7mQ2xK9pR4tLw8Zb' } },
    summary: 'End a live call now (sandbox.calls.hangUp)',
    operationId: 'hangUpCall',
    description: 'Ends a live call now, as if a party hung up. A call already ended is 409.',
    status: 200,
    response: callSchema.openapi(),
    handle: ({ session, params }) => ({ status: 200, body: session.sandbox.calls.hangUp(params.id) }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/calls/inbound',
    summary: 'Ring a number of an account from outside (sandbox.calls.inbound)',
    operationId: 'inboundCall',
    description:
      "Rings one of an account's numbers from outside, as a caller would: the call follows the number's routing and sends its webhooks.",
    body: inboundCallOptions,
    examples: {
      provisioned: {
        summary: "A customer calls one of the account's numbers (`to`: a number it provisioned)",
        value: { from: '+14155550123', to: '+14152585288' },
      },
    },
    status: 201,
    response: callSchema.openapi(),
    handle: ({ session, body }) => ({ status: 201, body: session.sandbox.calls.inbound(body) }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/messages/inbound',
    summary: 'Deliver an inbound SMS or MMS (sandbox.messages.inbound)',
    operationId: 'inboundMessage',
    description:
      "Delivers an SMS or MMS from outside to one of an account's numbers, as a phone would send it: it is stored and its webhook sent.",
    body: inboundMessageOptions,
    examples: {
      sms: {
        summary: "A customer texts one of the account's numbers (`to`: a number it provisioned)",
        value: { from: '+14155550123', to: '+14152585288', body: 'Can I move my cleaning to Thursday?' },
      },
    },
    status: 201,
    response: messageSchema.openapi(),
    handle: ({ session, body }) => ({ status: 201, body: session.sandbox.messages.inbound(body) }),
  }),
  // For the console.
  callTimelineRoute,
  ...scriptingRoutes,
  ...scenarioRoutes,
  ...consoleRoutes,
  ...coverageRoutes,
  ...snapshotRoutes,
  // The stream, the console and the documents: ordinary rows, after the others (the document's order).
  ...servedRoutes(
    () => controlRoutes,
    (method, path) => noEndpoint(method, path),
  ),
];

/** A key as a cursor names it: a short digest (a key may hold `-` and be longer than a cursor's id). */
function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 20);
}

/** The 404 of a path no control row serves, naming the nearest endpoint (`near`: its method, a space, its path under the prefix). */
function noEndpoint(method: string, path: string, near?: string): ApiError {
  const space = near?.indexOf(' ') ?? -1;
  const route = near && space > 0 ? `${near.slice(0, space)} ${CONTROL}${near.slice(space + 1)}` : near;
  const guess = route ? `Did you mean ${route}? ` : '';
  return new ApiError(404, 'not_found', `No control endpoint ${method} ${CONTROL}${path}. ${guess}See GET ${CONTROL}/openapi.json.`);
}

/** The control API's route table: the /v1 matcher (api/router.ts), its 404 wording the control API's. */
const table = new RouteTable<ControlRoute>(
  controlRoutes,
  (method, path, nearest) => noEndpoint(method, path, nearest(method === 'HEAD' ? 'GET' : method, segmentsOf(path))),
  { preflight: false },
);

/** A route without a body schema takes no fields: an empty body, or `{}`. */
const noFields = object({}, { description: 'No fields.' });

/** One request on the control road: what it arrived with, and a slot for what each stage learns (null until then). */
interface ControlExchange {
  readonly request: Request;
  /** The path below `/__sandbox`. */
  readonly path: string;
  readonly sessions: Sessions;
  readonly url: string;
  readonly isOwnOrigin: (origin: string) => boolean;
  route: ControlRoute | null;
  params: Record<string, string> | null;
  /** The row's names for what the library it calls refuses (see {@link reworded}). */
  fields: Readonly<Record<string, string>>;
  session: Session | null;
  body: unknown;
  query: unknown;
}

/** What the row stage adds. */
interface Matched {
  route: ControlRoute;
  params: Record<string, string>;
}

/** What the session stage adds. */
interface Sessioned {
  session: Session;
}

/** The guard (server/guard.ts `checkControl`): a page of another origin, a form, a webhook may not drive the control API. */
const guard: Stage<ControlExchange, unknown, Response> = ({ request, isOwnOrigin }) => {
  const refused = checkControl(request.headers, request.method, declaresBody(request.headers), isOwnOrigin);
  return refused ? json(refused.status, errorEnvelope(refused.code, refused.message, refused.param)) : undefined;
};

/** The row (404 naming the nearest endpoint, 405 with `Allow`, HEAD as GET). */
const match: Stage<ControlExchange, Matched, Response> = (x, out) => {
  const { route, params } = table.match(x.request.method, x.path);
  out.route = route;
  out.params = params;
  x.fields = route.fields ?? {};
  return undefined;
};

/** The session the path names (404), or the default one for a `global` row. */
const session: Stage<ControlExchange & Matched, Sessioned, Response> = (x, out) => {
  // Every row that is not `global` has `{s}` in its path, so the match named a session ('' never is one).
  const named = x.params.s ?? '';
  const found = x.route.global ? x.sessions.default : x.sessions.get(named);
  if (!found) throw unknownSession(named);
  out.session = found;
  return undefined;
};

/** The JSON body as `/v1` reads one (400, 413; an empty body stands for `{}`), parsed with the row's schema. */
const body: Stage<ControlExchange & Matched, unknown, Response> = (x) => {
  const { request, route } = x;
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (route.body) x.body = check(route.body, {}, '');
    return undefined;
  }
  return readJson(request, { optional: true }).then((raw) => {
    x.body = route.body ? check(route.body, raw === undefined ? {} : raw, '') : raw === undefined ? undefined : check(noFields, raw, '');
    return undefined;
  });
};

/** The query, parsed with the row's schema. */
const query: Stage<ControlExchange & Matched, unknown, Response> = (x) => {
  if (x.route.query) x.query = check(x.route.query, queryObject(new URL(x.request.url).searchParams), '');
  return undefined;
};

/**
 * The control road (docs/architecture.md, "One road"): the stages every control row takes, in
 * order, run by the runner `/v1`'s road runs on (api/road.ts): the guard, the row, the session,
 * the body, the query; then the row runs.
 */
const CONTROL_ROAD: Road<ControlExchange, Response> = road<ControlExchange, Response>()
  .stage(guard)
  .stage(match)
  .stage(session)
  .stage(body)
  .stage(query)
  .run((x) => {
    const { request, sessions, url, params, body, query, session } = x;
    const { headers, signal, method } = request;
    const answer = x.route.handle({ sessions, session, params, body, query, headers, signal, method, url });
    return answer instanceof Promise ? answer.then(responseOf) : responseOf(answer);
  });

/** A row's answer as the web `Response` the server writes: a `{ status, body }` is sent as JSON. */
function responseOf(answer: ControlAnswer): Response {
  if (answer instanceof Response) return answer;
  if (answer.raw !== undefined) return new Response(answer.raw, { status: answer.status, headers: answer.headers });
  return json(answer.status, answer.body ?? null, answer.headers);
}

/**
 * Serves a request of the control API on its road ({@link CONTROL_ROAD}). Whatever is thrown
 * becomes an answer in one place (api/errors.ts `refusalOf`) in the row's words
 * ({@link reworded}), and a failure of the sandbox is a 500, never an exception out of the
 * server. Resolves with the answer and the session that gave it.
 */
export async function serveControl(
  request: Request,
  path: string,
  sessions: Sessions,
  url: string,
  isOwnOrigin: (origin: string) => boolean,
): Promise<{ response: Response; session: Session | null }> {
  const x: ControlExchange = {
    request,
    path,
    sessions,
    url,
    isOwnOrigin,
    route: null,
    params: null,
    fields: {},
    session: null,
    body: undefined,
    query: undefined,
  };
  try {
    return { response: await travel(CONTROL_ROAD, x), session: x.session };
  } catch (error) {
    const refusal = refusalOf(reworded(error, x.fields), { library: true });
    return { response: refusal ? json(refusal.status, refusal.toBody(), refusal.headers) : serverFailure(error), session: x.session };
  }
}

/** Whether a request says it carries a body (Content-Length above 0, or a Transfer-Encoding). */
function declaresBody(headers: Headers): boolean {
  return Number(headers.get('content-length') ?? 0) > 0 || headers.has('transfer-encoding');
}

/** The library calls a refusal may name as the fix (its `CallRef` parts), and the control route that does the same for a client of the control API. */
const ROUTE_OF: Readonly<Record<string, string>> = {
  'calls.inbound': 'POST /__sandbox/sessions/{s}/calls/inbound',
  'webhooks.deadLetters': 'GET /__sandbox/sessions/{s}/dead-letters',
};

/**
 * A library refusal in a control row's words (docs/server.md, "Errors"): no library call in
 * front (`network.setBehavior: …`), the first letter capitalised, fields named as the JSON
 * body or the path names them (the row's `fields`: `behavior.outcome` → `outcome`, `callId` →
 * `id`), an unknown one called a field, and a library call offered as a fix said as the route
 * that does the same. Said from the parts the library kept (core/errors.ts `SandboxError`:
 * `where`, the text's field and call parts, `unknown`): the row chooses the words, nothing ambient does.
 */
export function reworded(error: unknown, fields: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof SandboxError)) return error;
  const field = (path: string) => {
    for (const [from, to] of Object.entries(fields)) {
      if (path !== from && !path.startsWith(`${from}.`) && !path.startsWith(`${from}[`)) continue;
      const rest = path.slice(from.length);
      // Under a body that is the argument itself (`behavior` → ''), `behavior.ring` is `ring`.
      return to === '' && rest.startsWith('.') ? rest.slice(1) : `${to}${rest}`;
    }
    return path;
  };
  const call = (name: string) => ROUTE_OF[name] ?? LIBRARY_NAMING.call(name);
  // A refusal of a library call (its `where` set) is said without the call, its fields in the row's names.
  const scripted = error.where !== undefined;
  const named = (path: string) => {
    if (path === '') return LIBRARY_NAMING.field(path);
    const json = field(path);
    return json === '' ? 'the body' : LIBRARY_NAMING.field(json);
  };
  let text = !scripted
    ? render(error.parts, { call })
    : error.unknown
      ? render(['Unknown field ', { field: field(error.unknown.path) }, `: ${error.unknown.fix}`])
      : render(error.parts, { field: named, call });
  if (scripted) text = text.charAt(0).toUpperCase() + text.slice(1);
  return new SandboxError(text, { code: error.code, param: error.param === undefined ? undefined : field(error.param) });
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
