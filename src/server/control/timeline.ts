import type { JsonSchema } from '../../core/schema.js';
import { attemptJson, callJson, resourceExample } from '../../scripting/json-schemas.js';
import { pageOf, pageParameters, slicePage } from './pages.js';
import { json } from '../http.js';
import { controlRoute, type ControlRoute } from './route.js';
import type { Sandbox } from '../../sandbox.js';
import type { Session } from '../sessions.js';

type Call = ReturnType<Sandbox['calls']['list']>[number];
type WebhookAttempt = ReturnType<Sandbox['webhooks']['attempts']>[number];

/** The console's list of calls, each with what its timeline draws (docs/console.md). */

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
  // The attempt fields the timeline draws: those of `webhooks.attempts()` (scripting/json-schemas.ts).
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

export const callTimelineRoute: ControlRoute = controlRoute({
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
});

/**
 * Each call with what the console draws on its timeline: the call's own instants, when its
 * recording and transcript became ready, and every webhook attempt of its events.
 */
function callTimelines(session: Session, calls: Call[]) {
  const { sandbox } = session;
  // The page's calls only; each attempt's event is found by id, never by walking the log.
  const log = session.internals.events;
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
