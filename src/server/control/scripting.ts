// Longer than most files: one control row per scripting member of the library (docs/server.md's
// table), each a few lines that call that member; the parity test reads them side by side.
import type { Reply } from '../../api/router.js';
import {
  activeFaultSchema,
  attemptSchema,
  CALL_EVENTS_EXAMPLE,
  callSchema,
  dataList,
  EVENT_TYPES,
  eventSchema,
  type madeKeySchema,
  messageSchema,
  recordingSchema,
  transcriptSchema,
} from '../../scripting/json-schemas.js';
import { script as conversationScript, timingOptions as recordingTiming } from '../../scripting/media.js';
import { callBehavior, messageBehavior } from '../../scripting/network.js';
import { webhookFilter } from '../../scripting/webhooks.js';
import { keyOptions } from '../../scripting/keys.js';
import { durationSchema } from '../../core/duration.js';
import { SandboxError } from '../../core/errors.js';
import { journalEntrySchema } from '../../scripting/requests.js';
import {
  annotated,
  array,
  custom,
  integer,
  object,
  oneOf,
  optional,
  string,
  timestamp,
  type Infer,
  type Schema,
} from '../../core/schema.js';
import { anyString } from '../../core/schema-values.js';
import { json } from '../http.js';
import { controlRoute, type ControlRequest as RowRequest, type ControlRoute as Row } from './route.js';
import type { Session } from '../sessions.js';
import { pageOf, pageParameters, slicePage } from './pages.js';

/**
 * The control API's scripting rows beyond docs/server.md's table: one per scripting member of the
 * library that §8 does not cover, so a Python, Go or Ruby suite can script everything a
 * JavaScript test can (docs/server.md, "Parity"; test/server/parity.test.ts keeps the two in
 * step). Each row calls the library's own member on the session's sandbox; bodies are
 * checked with the schemas the library checks with, and errors name the JSON field
 * (control-api.ts `serveControl`).
 */

/** A row that changes the session and answers 204: `act` calls the library. */
function changes<B, P extends string>(act: (ctx: RowRequest<B, undefined, P>) => void): (ctx: RowRequest<B, undefined, P>) => Reply {
  return (ctx) => {
    act(ctx);
    return { status: 204 };
  };
}

/** A GET row answering `{data}`: what `read` returns of the session's sandbox, described by `item`. */
function listRow<T>(
  path: string,
  summary: string,
  operationId: string,
  description: string,
  item: Schema<T>,
  read: (sandbox: Session['sandbox']) => T[],
): Row {
  return {
    method: 'GET',
    path,
    summary,
    operationId,
    description,
    status: 200,
    response: dataList(item, summary).openapi(),
    handle: ({ session }) => ({ status: 200, body: { data: read(session.sandbox) } }),
  };
}

/** A read that names a thing the sandbox lacks: 404 `not_found` naming the path parameter. */
function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined)
    throw new SandboxError(`No ${what} ${JSON.stringify(id.slice(0, 80))} in this session.`, { code: 'not_found', param: 'id' });
  return value;
}

const behaviors = <B>(item: Schema<B>, what: string) =>
  object(
    {
      behaviors: array(item, {
        description: `The ${what}, in order: one per ${what === 'call behaviours' ? 'call' : 'message'}.`,
        min: 1,
        max: 1000,
      }),
    },
    { description: `${what} to queue.` },
  );
const callQueue = behaviors(callBehavior, 'call behaviours');
const messageQueue = behaviors(messageBehavior, 'message behaviours');
const scriptBody = object(
  { lines: conversationScript },
  { description: 'The conversation: lines all timed (start/end in seconds from the answer) or none.' },
);

/** `POST /sessions/{s}/advance` `{until, max?}`: `sandbox.advanceUntil` with an event type. */
const untilBody = object(
  {
    until: oneOf(EVENT_TYPES, 'Advance until an event of this type is emitted.'),
    max: optional(durationSchema),
  },
  { description: 'Advance until an event of a type is emitted, at most `max` of virtual time (default 1d).' },
);

/** Whether an advance body asks for `until` (then {@link advanceUntil} answers it). */
function wantsUntil(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'until' in body;
}

/** The `{until, max?}` form of the advance row's body. */
export type UntilBody = Infer<typeof untilBody>;

/** The advance row's body: `{duration}` or `{until, max?}`, parsed as the one it looks like. */
export function withUntil<T>(advanceBody: Schema<T>): Schema<T | UntilBody> {
  return custom({
    hint: `${advanceBody.hint}, or ${untilBody.hint}`,
    parse: (value, path) => (wantsUntil(value) ? untilBody : advanceBody).parse(value, path),
    openapi: () => ({ oneOf: [advanceBody.openapi(), untilBody.openapi()] }),
  });
}

/** Answers the advance row's `until` form: 200 `{now, events, event}`, or 404 when no such event came within `max`. */
export async function advanceUntil(session: Session, { until, max }: UntilBody): Promise<Reply> {
  const { sandbox } = session;
  // Positions, not copies, as the duration form: the answer costs the events it carries.
  const log = session.internals.events;
  const before = log.length;
  const from = sandbox.now().toISOString();
  try {
    const event = await sandbox.advanceUntil(until, max === undefined ? {} : { max });
    return { status: 200, body: { now: sandbox.now().toISOString(), events: log.after(before, log.length - before), event } };
  } catch (error) {
    if (error instanceof SandboxError && error.code === 'not_found') {
      throw new SandboxError(
        `No ${until} event within ${max ?? '1d'} of virtual time (from ${from} to ${sandbox.now().toISOString()}); raise \`max\`, or see ` +
          `what the session emitted with GET /__sandbox/sessions/${session.id}/events.`,
        { code: 'not_found', param: 'until' },
      );
    }
    throw error;
  }
}

/** A session as the session list and GET /sessions/{s} give it: written once. */
export const sessionSchema = object(
  {
    id: string({ description: '`default`, or `ses_` and 16 characters', max: 100 }),
    seed: integer({ description: 'Its seed', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    now: timestamp('Its virtual now (`sandbox.now()`).'),
  },
  { description: 'A session of the server.', example: { id: 'ses_4kT9wQ2mX7bN1cRz', seed: 42, now: '2026-01-01T09:00:00.000Z' } },
);

/** The advance row's answer, with `event` for the `until` form. */
export const advanceAnswer = object(
  {
    now: timestamp("The session's virtual now once the advance ended (`sandbox.now()`)."),
    events: array(eventSchema, { description: 'The events emitted during the advance, oldest first.' }),
    event: optional(annotated(eventSchema, { description: 'With `until`: the event that stopped the clock.' })),
  },
  {
    description: 'Where the clock stands, and what happened on the way.',
    // `{"duration": "21s"}` once the resources' example call was placed: it is answered at 5 s and ends at 21 s.
    example: { now: '2026-01-01T00:00:21.000Z', events: CALL_EVENTS_EXAMPLE },
  },
);

/** `POST /sessions/{s}/keys`: `sandbox.keys.create` with `plan`, `scopes` (and `account`) for a key of this session. */
export const keyBody = object(
  { plan: keyOptions.shape.plan, scopes: keyOptions.shape.scopes, account: keyOptions.shape.account },
  { description: 'How the key behaves (default: a standard key with every scope, its own account).' },
);
/** Makes a key of `session` as `POST .../keys` does: with its defaults spelled out. */
export function createKey({ sessions, session, body }: RowRequest<Infer<typeof keyBody>>): Reply {
  const key = sessions.makeKey(session, body);
  const made = session.sandbox.keys.list().find((k) => k.key === key)!;
  // Exactly the answer docs/server.md gives: {key, plan, scopes} (GET .../keys also has createdAt).
  const answer: Infer<typeof madeKeySchema> = { key: made.key, plan: made.plan ?? 'standard', scopes: made.scopes ?? ['*'] };
  return { status: 201, body: answer };
}

/** An unexpected exception inside a sandbox, as JSON: what `sandbox.internalErrors()` holds, told. */
const internalErrorSchema = object(
  {
    name: anyString("The error's class (`TypeError`), or `Error` for a value thrown that is none."),
    message: anyString('What it said.'),
    requestId: optional(anyString('The request (`req_…`) it broke, answered 500; absent for one outside a request.')),
    at: anyString('Virtual instant it happened (ISO 8601 UTC).'),
  },
  {
    description: 'One unexpected exception, answered as a 500.',
    example: {
      name: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      requestId: 'req_8Tq2Wm5Kx1Rb7Nc4',
      at: '2026-01-01T00:00:00.000Z',
    },
  },
);

/** The rows, grouped as the library's namespaces. */
export const scriptingRoutes: Row[] = [
  // The sandbox itself
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}',
    summary: 'One session: its seed and virtual now (sandbox.now)',
    operationId: 'getSession',
    description: "One session's seed and virtual now (`sandbox.now()`); 404 for an unknown or deleted session.",
    status: 200,
    response: sessionSchema.openapi(),
    handle: ({ session }) => ({ status: 200, body: { id: session.id, seed: session.seed, now: session.sandbox.now().toISOString() } }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/internal-errors',
    summary: "Unexpected exceptions inside the session's sandbox, each answered as a 500 (sandbox.internalErrors); empty in a healthy run",
    operationId: 'listInternalErrors',
    description:
      'Failures inside the sandbox that answered a request with 500 `internal_error` (`sandbox.internalErrors()`), oldest first: a test ' +
      'can assert there were none.',
    status: 200,
    response: dataList(internalErrorSchema, 'The failures, oldest first.').openapi(),
    handle: ({ session }) =>
      json(200, {
        data: session.sandbox.internalErrors().map(
          ({ error, requestId, at }): Infer<typeof internalErrorSchema> => ({
            name: error instanceof Error ? error.name : 'Error',
            message: error instanceof Error ? error.message : String(error),
            ...(requestId === undefined ? {} : { requestId }),
            at,
          }),
        ),
      }),
  }),
  // calls, messages, recordings, transcripts: reads
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/calls/{id}',

    params: { id: { example: 'call_7mQ2xK9pR4tLw8Zb' } },
    summary: 'A call as the API shows it, any account (sandbox.calls.get)',
    operationId: 'inspectCall',
    description: 'One call of the session, whichever account holds it (`sandbox.calls.get`); 404 naming `id` when there is none.',
    status: 200,
    response: callSchema.openapi(),
    handle: ({ session, params }) => ({ status: 200, body: found(session.sandbox.calls.get(params.id), 'call', params.id) }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/messages/{id}',

    params: { id: { example: 'msg_3Jk8Vw2Qp5Rt9Lx1' } },
    summary: 'A message as the API shows it, any account (sandbox.messages.get)',
    operationId: 'inspectMessage',
    description: 'One message of the session, whichever account holds it (`sandbox.messages.get`); 404 naming `id` when there is none.',
    status: 200,
    response: messageSchema.openapi(),
    handle: ({ session, params }) => ({ status: 200, body: found(session.sandbox.messages.get(params.id), 'message', params.id) }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/recordings/{id}',

    params: { id: { example: 'rec_5Hc2vN8qT1mXy7Ka' } },
    summary: 'A recording as the API shows it, any account (sandbox.recordings.get)',
    operationId: 'inspectRecording',
    description: 'One recording of the session (`sandbox.recordings.get`); 404 naming `id` when there is none.',
    status: 200,
    response: recordingSchema.openapi(),
    handle: ({ session, params }) => ({ status: 200, body: found(session.sandbox.recordings.get(params.id), 'recording', params.id) }),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/transcripts/{id}',

    params: { id: { example: 'trn_9Rb4wL2sK7pQx3Mf' } },
    summary: 'A transcript as the API shows it now, any account (sandbox.transcripts.get)',
    operationId: 'inspectTranscript',
    description: 'One transcript of the session (`sandbox.transcripts.get`); 404 naming `id` when there is none.',
    status: 200,
    response: transcriptSchema.openapi(),
    handle: ({ session, params }) => ({ status: 200, body: found(session.sandbox.transcripts.get(params.id), 'transcript', params.id) }),
  }),
  // recordings and transcripts: scripting
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/recording-timing',
    summary: 'When recordings and transcripts of calls that end from now on become ready (sandbox.recordings.setTiming)',
    operationId: 'setRecordingTiming',
    description:
      'How long after an answered call ends its recording, then its transcript, become ready, for calls that end from now on ' +
      '(`sandbox.recordings.setTiming`). Defaults: 10 s, then 20 s.',
    body: recordingTiming,
    examples: {
      quick: {
        summary: 'Recordings ready 5 s after a call ends, transcripts 15 s after',
        value: { recordingDelay: '5s', transcriptDelay: '15s' },
      },
    },
    status: 204,
    handle: changes(({ session, body }) => session.sandbox.recordings.setTiming(body)),
  }),
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/calls/{id}/recording-timing',

    params: { id: { example: 'call_7mQ2xK9pR4tLw8Zb' } },
    summary:
      'When the recording and transcript of this one call become ready; set it before the call ends (sandbox.recordings.setTiming with callId)',
    operationId: 'setCallRecordingTiming',
    description:
      'The recording and transcript timing of one call, before it ends (`sandbox.recordings.setTiming(timing, id)`); 409 once it has ended.',
    body: recordingTiming,
    examples: { slow: { summary: "This call's transcript takes two minutes", value: { transcriptDelay: '2m' } } },
    status: 204,
    fields: { callId: 'id' },
    handle: changes(({ session, params, body }) => session.sandbox.recordings.setTiming(body, params.id)),
  }),
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/calls/{id}/script',

    params: { id: { example: 'call_7mQ2xK9pR4tLw8Zb' } },
    summary: 'The conversation a ringing call will carry (sandbox.transcripts.setScript)',
    operationId: 'setConversationScript',
    description:
      'What is said on a call, line by line, while it still rings (`sandbox.transcripts.setScript`): its transcript, live stream and ' +
      'summary follow it. 409 once answered.',
    body: scriptBody,
    examples: {
      booking: {
        summary: 'Two lines, timed by the sandbox',
        value: {
          lines: [
            { speaker: 'agent', text: 'Harbour Dental, good morning. How can I help?' },
            { speaker: 'customer', text: 'I would like to book a cleaning on Wednesday.' },
          ],
        },
      },
    },
    status: 204,
    fields: { callId: 'id' },
    handle: changes(({ session, params, body }) => session.sandbox.transcripts.setScript(params.id, body.lines)),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/transcript-streams',
    summary: 'How many transcript streams (server-sent events) are open (sandbox.transcripts.openStreams)',
    operationId: 'countTranscriptStreams',
    description:
      'How many live transcript streams are open (`sandbox.transcripts.openStreams()`): a test can check its client closed them.',
    status: 200,
    response: object(
      { openStreams: integer({ description: 'Transcript streams open now, across the accounts.', min: 0, max: Number.MAX_SAFE_INTEGER }) },
      { description: 'The count of open transcript streams.' },
    ).openapi(),
    handle: ({ session }) => ({ status: 200, body: { openStreams: session.sandbox.transcripts.openStreams() } }),
  }),
  // network
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/network/{number}/queue',

    params: { number: { example: '+14155550123' } },
    summary: 'The next calls to a number take these behaviours, one each (sandbox.network.queueBehavior)',
    operationId: 'queueBehavior',
    description:
      'One-shot behaviours for the next calls to a number, one each, in order (`sandbox.network.queueBehavior`); the standing behaviour applies after them.',
    body: callQueue,
    examples: {
      busyThenAnswered: {
        summary: 'The next call finds the line busy; the one after is answered',
        value: { behaviors: [{ outcome: 'busy' }, { outcome: 'answered', ring: '8s', talk: '45s' }] },
      },
    },
    status: 204,
    handle: changes(({ session, params, body }) => session.sandbox.network.queueBehavior(params.number, ...body.behaviors)),
  }),
  controlRoute({
    method: 'PUT',
    path: '/sessions/{s}/network/{number}/messages',

    params: { number: { example: '+14155550123' } },
    summary: 'How messages to a number end, until cleared (sandbox.network.setMessageBehavior)',
    operationId: 'setMessageBehavior',
    description: 'Whether messages to a number end `delivered` or `failed` from now on (`sandbox.network.setMessageBehavior`).',
    body: messageBehavior,
    examples: { failed: { summary: 'Messages to the number fail from now on', value: { outcome: 'failed' } } },
    status: 204,
    fields: { behavior: '' },
    handle: changes(({ session, params, body }) => session.sandbox.network.setMessageBehavior(params.number, body)),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/network/{number}/messages/queue',

    params: { number: { example: '+14155550123' } },
    summary: 'The next messages to a number take these behaviours, one each (sandbox.network.queueMessageBehavior)',
    operationId: 'queueMessageBehavior',
    description: 'One-shot outcomes for the next messages to a number, one each, in order (`sandbox.network.queueMessageBehavior`).',
    body: messageQueue,
    examples: {
      failThenDeliver: {
        summary: 'The next message fails; the one after is delivered',
        value: { behaviors: [{ outcome: 'failed' }, { outcome: 'delivered' }] },
      },
    },
    status: 204,
    handle: changes(({ session, params, body }) => session.sandbox.network.queueMessageBehavior(params.number, ...body.behaviors)),
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}/network',
    summary: 'Forget the scripted call and message behaviour of every number (sandbox.network.clearBehavior)',
    operationId: 'clearAllBehavior',
    description:
      'Forgets the scripted call and message behaviour of every number (`sandbox.network.clearBehavior()`): the defaults apply again.',
    status: 204,
    handle: changes(({ session }) => session.sandbox.network.clearBehavior()),
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/requests',
    summary: 'The request journal, in arrival order (sandbox.requests.list)',
    operationId: 'listRequests',
    description:
      'The request journal (`sandbox.requests.list()`): every request `/v1` answered in this session, in the order the requests arrived, with ' +
      'its documented path, status, `error.code`, request id, API key and virtual time; the latest 10,000 are kept (`--max-journal-entries`).',
    status: 200,
    response: pageOf(journalEntrySchema),
    query: pageParameters,
    handle: ({ session, query }) =>
      json(
        200,
        slicePage(session.sandbox.requests.list(), (r) => r.requestId, query, 'requests', session.id),
      ),
  }),
  listRow(
    '/sessions/{s}/faults',
    'The injected faults with hits left, in order (sandbox.faults.list)',
    'listFaults',
    'The injected faults that still have hits left, in the order they match (`sandbox.faults.list()`); `remaining` is null for a fault without end.',
    activeFaultSchema,
    (sandbox) => sandbox.faults.list(),
  ),
  listRow(
    '/sessions/{s}/attempts',
    'Every webhook delivery attempt in the order sent (sandbox.webhooks.attempts)',
    'listAttempts',
    'Every webhook delivery attempt of the session in the order sent, replays marked (`sandbox.webhooks.attempts()`).',
    attemptSchema,
    (sandbox) => sandbox.webhooks.attempts(),
  ),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/dead-letters/replay',
    summary: 'Replay every dead letter (matching the filter) whose subscription still exists (sandbox.webhooks.replayAll)',
    operationId: 'replayAllDeadLetters',
    description:
      'Replays every dead letter matching the filter (`sandbox.webhooks.replayAll`), attempt numbers starting over at 1; answers the attempts made.',
    body: webhookFilter,
    examples: { calls: { summary: 'Every dead call.completed delivery', value: { type: 'call.completed' } } },
    status: 200,
    response: dataList(attemptSchema, 'The attempts the replays made, in the order sent.').openapi(),
    handle: async ({ session, body }) => {
      return { status: 200, body: { data: await session.sandbox.webhooks.replayAll(body) } };
    },
  }),
];
