import { check, inControlApi } from '../control/context.js';
import { apiKeyJson, attemptJson, callJson, EVENT_TYPES, eventJson, faultJson, messageJson, recordingJson, transcriptJson } from '../control/json-schemas.js';
import { script as conversationScript, timingOptions as recordingTiming } from '../control/media.js';
import { callBehavior, messageBehavior } from '../control/network.js';
import { webhookFilter } from '../control/webhooks.js';
import { keyOptions } from '../control/keys.js';
import { durationSchema } from '../core/duration.js';
import { SandboxError } from '../core/errors.js';
import { array, custom, object, oneOf, optional, type JsonSchema, type Schema } from '../core/schema.js';
import { json } from './http.js';
import type { ControlRequest as RowRequest, ControlRoute as Row } from './control-route.js';
import type { Session } from './sessions.js';
import { eventPositions } from '../control/events.js';
import { pageOf, pageParameters, slicePage } from './control-pages.js';

/**
 * The control API's scripting rows beyond docs/server.md's table: one per scripting member of the
 * library that §8 does not cover, so a Python, Go or Ruby suite can script everything a
 * JavaScript test can (docs/server.md, "Parity"; test/server/parity.test.ts keeps the two in
 * step). Each row calls the library's own member on the session's sandbox; bodies are
 * checked with the schemas the library checks with, and errors name the JSON field
 * ({@link spoken}).
 */

const list = (items: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: false, required: ['data'], properties: { data: { type: 'array', items } } });

/** The body checked with `schema`; no body stands for `{}`. A refusal names the field (control/context.ts). */
function bodyOf<T>(schema: Schema<T>, body: unknown): T {
  return check(schema, body === undefined ? {} : body, '');
}

/** A row that changes the session and answers 204: `act` calls the library. */
function changes(act: (ctx: RowRequest) => void): Row['run'] {
  return (ctx) => {
    act(ctx);
    return json(204, null);
  };
}

/** A GET row answering `{data}`: what `read` returns of the session's sandbox. */
function listRow(path: string, summary: string, operationId: string, item: JsonSchema, read: (sandbox: Session['sandbox']) => unknown[]): Row {
  return { method: 'GET', path, summary, operationId, status: 200, response: list(item), run: ({ session }) => json(200, { data: read(session.sandbox) }) };
}

/** A read that names a thing the sandbox lacks: 404 `not_found` naming the path parameter. */
function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new SandboxError(`No ${what} ${JSON.stringify(id.slice(0, 80))} in this session.`, { code: 'not_found', param: 'id' });
  return value;
}

const behaviors = <B>(item: Schema<B>, what: string) =>
  object({ behaviors: array(item, { description: `The ${what}, in order: one per ${what === 'call behaviours' ? 'call' : 'message'}.`, min: 1, max: 1000 }) }, { description: `${what} to queue.` });
const callQueue = behaviors(callBehavior, 'call behaviours');
const messageQueue = behaviors(messageBehavior, 'message behaviours');
const scriptBody = object({ lines: conversationScript }, { description: 'The conversation: lines all timed (start/end in seconds from the answer) or none.' });

/** `POST /sessions/{s}/advance` `{until, max?}`: `sandbox.advanceUntil` with an event type. */
const untilBody = object(
  {
    until: oneOf(EVENT_TYPES, 'Advance until an event of this type is emitted.'),
    max: optional(durationSchema),
  },
  { description: 'Advance until an event of a type is emitted, at most `max` of virtual time (default 1d).' },
);

/** Whether an advance body asks for `until` (then {@link advanceUntil} answers it). */
export function wantsUntil(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'until' in body;
}

/** The advance row's body: `{duration}` or `{until, max?}`, for the OpenAPI document. */
export function withUntil<T>(advanceBody: Schema<T>): Schema<unknown> {
  return custom({ hint: `${advanceBody.hint}, or ${untilBody.hint}`, parse: (value, path) => (wantsUntil(value) ? untilBody : advanceBody).parse(value, path), openapi: () => ({ oneOf: [advanceBody.openapi(), untilBody.openapi()] }) });
}

/** Answers the advance row's `until` form: 200 `{now, events, event}`, or 404 when no such event came within `max`. */
export async function advanceUntil(session: Session, body: unknown): Promise<Response> {
  const { until, max } = bodyOf(untilBody, body);
  const { sandbox } = session;
  // Positions, not copies, as the duration form: the answer costs the events it carries.
  const log = eventPositions(sandbox.events);
  const before = log.length;
  const from = sandbox.now().toISOString();
  try {
    const event = await sandbox.advanceUntil(until, max === undefined ? {} : { max });
    return json(200, { now: sandbox.now().toISOString(), events: log.after(before, log.length - before), event });
  } catch (error) {
    if (error instanceof SandboxError && error.code === 'not_found') {
      throw new SandboxError(
        `No ${until} event within ${max ?? '1d'} of virtual time (from ${from} to ${sandbox.now().toISOString()}); raise \`max\`, or see what the session emitted with GET /__sandbox/sessions/${session.id}/events.`,
        { code: 'not_found', param: 'until' },
      );
    }
    throw error;
  }
}

/** The advance row's answer, with `event` for the `until` form. */
export const advanceAnswer: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['now', 'events'],
  properties: { now: { type: 'string', format: 'date-time' }, events: { type: 'array', items: eventJson() }, event: { ...eventJson(), description: 'With `until`: the event that stopped the clock.' } },
};

/** `POST /sessions/{s}/keys`: `sandbox.keys.create` with `plan`, `scopes` (and `account`) for a key of this session. */
export const keyBody = object({ plan: keyOptions.shape.plan, scopes: keyOptions.shape.scopes, account: keyOptions.shape.account }, { description: 'How the key behaves (default: a standard key with every scope, its own account).' });
export const keyAnswer: JsonSchema = {
  ...apiKeyJson(),
  required: ['key', 'plan', 'scopes'],
};

/** Makes a key of `session` as `POST .../keys` does: with its defaults spelled out. */
export function createKey({ sessions, session, body }: RowRequest): Response {
  const options = bodyOf(keyBody, body);
  const key = sessions.makeKey(session, options);
  const made = session.sandbox.keys.list().find((k) => k.key === key)!;
  // Exactly the answer docs/server.md gives: {key, plan, scopes} (GET .../keys also has createdAt).
  return json(201, { key: made.key, plan: made.plan ?? 'standard', scopes: made.scopes ?? ['*'] });
}

/**
 * A route whose errors speak the HTTP client's language: what the library call it makes
 * throws names the JSON field (`fields` maps the library's argument names to the body's or
 * the path's) and no library call. Every control route runs so.
 */
export function spoken<R extends Pick<Row, 'fields' | 'run'>>(route: R): R {
  const fields = route.fields ?? {};
  return { ...route, run: (ctx) => inControlApi(fields, () => route.run(ctx)) };
}

/** The rows, grouped as the library's namespaces. */
export const scriptingRoutes: Row[] = [
  // The sandbox itself
  {
    method: 'GET',
    path: '/sessions/{s}',
    summary: 'One session: its seed and virtual now (sandbox.now)',
    operationId: 'getSession',
    status: 200,
    response: { type: 'object', additionalProperties: false, required: ['id', 'seed', 'now'], properties: { id: { type: 'string' }, seed: { type: 'integer' }, now: { type: 'string', format: 'date-time' } } },
    run: ({ session }) => json(200, { id: session.id, seed: session.seed, now: session.sandbox.now().toISOString() }),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/internal-errors',
    summary: 'Unexpected exceptions inside the session\'s sandbox, each answered as a 500 (sandbox.internalErrors); empty in a healthy run',
    operationId: 'listInternalErrors',
    status: 200,
    response: list({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'message', 'at'],
      properties: { name: { type: 'string' }, message: { type: 'string' }, requestId: { type: 'string' }, at: { type: 'string' } },
    }),
    run: ({ session }) =>
      json(200, {
        data: session.sandbox.internalErrors().map(({ error, requestId, at }) => ({
          name: error instanceof Error ? error.name : 'Error',
          message: error instanceof Error ? error.message : String(error),
          ...(requestId === undefined ? {} : { requestId }),
          at,
        })),
      }),
  },
  // calls, messages, recordings, transcripts: reads
  {
    method: 'GET',
    path: '/sessions/{s}/calls/{id}',
    summary: 'A call as the API shows it, any account (sandbox.calls.get)',
    operationId: 'inspectCall',
    status: 200,
    response: callJson(),
    run: ({ session, params }) => json(200, found(session.sandbox.calls.get(params.id!), 'call', params.id!)),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/messages/{id}',
    summary: 'A message as the API shows it, any account (sandbox.messages.get)',
    operationId: 'inspectMessage',
    status: 200,
    response: messageJson(),
    run: ({ session, params }) => json(200, found(session.sandbox.messages.get(params.id!), 'message', params.id!)),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/recordings/{id}',
    summary: 'A recording as the API shows it, any account (sandbox.recordings.get)',
    operationId: 'inspectRecording',
    status: 200,
    response: recordingJson(),
    run: ({ session, params }) => json(200, found(session.sandbox.recordings.get(params.id!), 'recording', params.id!)),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/transcripts/{id}',
    summary: 'A transcript as the API shows it now, any account (sandbox.transcripts.get)',
    operationId: 'inspectTranscript',
    status: 200,
    response: transcriptJson(),
    run: ({ session, params }) => json(200, found(session.sandbox.transcripts.get(params.id!), 'transcript', params.id!)),
  },
  // recordings and transcripts: scripting
  {
    method: 'PUT',
    path: '/sessions/{s}/recording-timing',
    summary: 'When recordings and transcripts of calls that end from now on become ready (sandbox.recordings.setTiming)',
    operationId: 'setRecordingTiming',
    body: recordingTiming as Schema<unknown>,
    status: 204,
    run: changes(({ session, body }) => session.sandbox.recordings.setTiming(orEmpty(body) as never)),
  },
  {
    method: 'PUT',
    path: '/sessions/{s}/calls/{id}/recording-timing',
    summary: 'When the recording and transcript of this one call become ready; set it before the call ends (sandbox.recordings.setTiming with callId)',
    operationId: 'setCallRecordingTiming',
    body: recordingTiming as Schema<unknown>,
    status: 204,
    fields: { callId: 'id' },
    run: changes(({ session, params, body }) => session.sandbox.recordings.setTiming(orEmpty(body) as never, params.id!)),
  },
  {
    method: 'PUT',
    path: '/sessions/{s}/calls/{id}/script',
    summary: 'The conversation a ringing call will carry (sandbox.transcripts.setScript)',
    operationId: 'setConversationScript',
    body: scriptBody as Schema<unknown>,
    status: 204,
    fields: { callId: 'id' },
    run: changes(({ session, params, body }) => session.sandbox.transcripts.setScript(params.id!, bodyOf(scriptBody, body).lines)),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/transcript-streams',
    summary: 'How many transcript streams (server-sent events) are open (sandbox.transcripts.openStreams)',
    operationId: 'countTranscriptStreams',
    status: 200,
    response: { type: 'object', additionalProperties: false, required: ['openStreams'], properties: { openStreams: { type: 'integer', minimum: 0 } } },
    run: ({ session }) => json(200, { openStreams: session.sandbox.transcripts.openStreams() }),
  },
  // network
  {
    method: 'POST',
    path: '/sessions/{s}/network/{number}/queue',
    summary: 'The next calls to a number take these behaviours, one each (sandbox.network.queueBehavior)',
    operationId: 'queueBehavior',
    body: callQueue as Schema<unknown>,
    status: 204,
    run: changes(({ session, params, body }) => session.sandbox.network.queueBehavior(params.number!, ...bodyOf(callQueue, body).behaviors)),
  },
  {
    method: 'PUT',
    path: '/sessions/{s}/network/{number}/messages',
    summary: 'How messages to a number end, until cleared (sandbox.network.setMessageBehavior)',
    operationId: 'setMessageBehavior',
    body: messageBehavior as Schema<unknown>,
    status: 204,
    fields: { behavior: '' },
    run: changes(({ session, params, body }) => session.sandbox.network.setMessageBehavior(params.number!, orEmpty(body) as never)),
  },
  {
    method: 'POST',
    path: '/sessions/{s}/network/{number}/messages/queue',
    summary: 'The next messages to a number take these behaviours, one each (sandbox.network.queueMessageBehavior)',
    operationId: 'queueMessageBehavior',
    body: messageQueue as Schema<unknown>,
    status: 204,
    run: changes(({ session, params, body }) => session.sandbox.network.queueMessageBehavior(params.number!, ...bodyOf(messageQueue, body).behaviors)),
  },
  {
    method: 'DELETE',
    path: '/sessions/{s}/network',
    summary: 'Forget the scripted call and message behaviour of every number (sandbox.network.clearBehavior)',
    operationId: 'clearAllBehavior',
    status: 204,
    run: changes(({ session }) => session.sandbox.network.clearBehavior()),
  },
  {
    method: 'GET',
    path: '/sessions/{s}/requests',
    summary: 'The request journal, oldest first (sandbox.requests.list)',
    operationId: 'listRequests',
    status: 200,
    response: pageOf({
      type: 'object',
      additionalProperties: false,
      required: ['requestId', 'method', 'path', 'target', 'status', 'errorCode', 'apiKey', 'at'],
      properties: {
        requestId: { type: 'string' },
        method: { type: 'string' },
        path: { type: 'string', description: 'The documented path matched (/v1/calls/{id}), or the request\'s own.' },
        target: { type: 'string' },
        status: { type: 'integer', description: '0 for an injected network fault.' },
        errorCode: { type: ['string', 'null'] },
        apiKey: { type: ['string', 'null'] },
        at: { type: 'string', format: 'date-time' },
      },
    }),
    query: pageParameters,
    run: ({ session, query }) => json(200, slicePage(session.sandbox.requests.list(), (r) => r.requestId, query, 'requests', session.id)),
  },
  listRow('/sessions/{s}/faults', 'The injected faults with hits left, in order (sandbox.faults.list)', 'listFaults', faultJson(), (sandbox) => sandbox.faults.list()),
  listRow('/sessions/{s}/attempts', 'Every webhook delivery attempt in the order sent (sandbox.webhooks.attempts)', 'listAttempts', attemptJson(), (sandbox) => sandbox.webhooks.attempts()),
  {
    method: 'POST',
    path: '/sessions/{s}/dead-letters/replay',
    summary: 'Replay every dead letter (matching the filter) whose subscription still exists (sandbox.webhooks.replayAll)',
    operationId: 'replayAllDeadLetters',
    body: webhookFilter as Schema<unknown>,
    status: 200,
    response: list(attemptJson()),
    run: async ({ session, body }) => {
      const filter = bodyOf(webhookFilter, body);
      return json(200, { data: await session.sandbox.webhooks.replayAll(filter) });
    },
  },
];

/** An absent body stands for `{}`; any other value is the library's to check. */
function orEmpty(body: unknown): unknown {
  return body === undefined ? {} : body;
}
