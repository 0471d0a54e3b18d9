import { array, nullable, object, type Infer } from '../../core/schema.js';
import { attemptSchema, callSchema, recordingSchema, transcriptSchema } from '../../scripting/json-schemas.js';
import { pageOf, pageParameters, slicePage } from './pages.js';
import { controlRoute, type ControlRoute } from './route.js';
import type { Sandbox } from '../../sandbox.js';
import type { Session } from '../sessions.js';

type Call = ReturnType<Sandbox['calls']['list']>[number];
type WebhookAttempt = ReturnType<Sandbox['webhooks']['attempts']>[number];

/** The console's list of calls, each with what its timeline draws (docs/console.md). */

/** When a recording or transcript was made and became ready: its fields as the API shows them. */
const readyOf = (schema: typeof recordingSchema | typeof transcriptSchema, what: string) => {
  const { id, status, created_at, ready_at } = schema.shape;
  return nullable(object({ id, status, created_at, ready_at }, { description: `The call's ${what}; null until there is one.` }));
};
// The attempt fields the timeline draws: those of `webhooks.attempts()`.
const { eventType, deliveryId, attempt, replay, at, status, ok, error } = attemptSchema.shape;
const webhookMark = object(
  { eventType, deliveryId, attempt, replay, at, status, ok, error },
  { description: 'One webhook attempt of an event of the call.' },
);

/** A call as the console's list gives it: the call, and what its timeline draws. */
const callWithTimeline = object(
  {
    ...callSchema.shape,
    timeline: object(
      {
        recording: readyOf(recordingSchema, 'recording'),
        transcript: readyOf(transcriptSchema, 'transcript'),
        webhooks: array(webhookMark, { description: 'Every attempt of its events, in the order sent.' }),
      },
      { description: 'What its timeline draws beside its own instants.' },
    ),
  },
  {
    description: 'A call, with what its timeline draws.',
    // The call example just placed: nothing on its timeline yet.
    example: { ...callSchema.example!, timeline: { recording: null, transcript: null, webhooks: [] } },
  },
);

export const callTimelineRoute: ControlRoute = controlRoute({
  method: 'GET',
  path: '/sessions/{s}/calls',
  summary: 'Every call of the session, newest first, with its timeline (for the console)',
  operationId: 'listSessionCalls',
  description:
    'Every call of the session across its accounts, newest first, each with its timeline of events and deliveries (what the console shows).',
  status: 200,
  response: pageOf(callWithTimeline),
  query: pageParameters,
  handle: ({ session, query }) => {
    const page = slicePage(session.sandbox.calls.list(), (c) => c.id, query, 'calls', session.id);
    return { status: 200, body: { ...page, data: callTimelines(session, page.data) } };
  },
});

/**
 * Each call with what the console draws on its timeline: the call's own instants, when its
 * recording and transcript became ready, and every webhook attempt of its events.
 */
function callTimelines(session: Session, calls: Call[]): Infer<typeof callWithTimeline>[] {
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
