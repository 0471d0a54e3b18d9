import type { TranscriptRecord } from '../../state/transcripts.js';
import { badRequest, notFound } from '../errors.js';
import { defineRoute, type AnyRoute, type IdContext } from '../router.js';
import { transcriptSchema } from '../../state/resources.js';
import type { MediaRoutesDeps } from './recordings.js';

/** Whether the client asks for server-sent events (any `text/event-stream` in Accept). */
function wantsEventStream(accept: string | null): boolean {
  return accept !== null && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}

/** `Last-Event-ID` of a reconnecting SSE client: the index of the last segment it received. */
function lastEventId(header: string | null): number {
  if (header === null || header.trim() === '') return -1;
  if (!/^\d{1,9}$/.test(header.trim())) {
    throw badRequest(
      `Last-Event-ID must be the id of a segment event of this stream (a whole number such as "3"), got ` +
        `${JSON.stringify(header.slice(0, 40))}. Omit it to start from the first segment.`,
      'Last-Event-ID',
    );
  }
  return Number(header.trim());
}

/** The transcript that the path's `{id}` names: its `trn_` id, or its call's or recording's id; else 404. */
function find({ calls, recordings, transcripts }: MediaRoutesDeps, ctx: IdContext): TranscriptRecord {
  const id = ctx.params.id;
  const account = ctx.principal.account;
  let transcriptId: string | null = id;
  if (id.startsWith('call_')) {
    const call = calls.store.get(account, id);
    if (!call) throw notFound(`No call ${id} in this account.`);
    if (call.transcriptId === null)
      throw notFound(`Call ${id} has not been answered, so it has no transcript (a transcript exists from the answer on).`);
    transcriptId = call.transcriptId;
  } else if (id.startsWith('rec_')) {
    transcriptId = recordings.store.get(account, id)?.transcriptId ?? null;
    if (transcriptId === null) throw notFound(`No recording ${id} in this account.`);
  }
  const transcript = transcripts.store.get(account, transcriptId);
  if (!transcript) throw notFound(`No transcript ${id} in this account: pass a call's transcript_id (trn_…), or its call_ or rec_ id.`);
  return transcript;
}

/**
 * GET /v1/transcripts/{id}: the transcript as JSON, or as server-sent events with
 * `Accept: text/event-stream`. The id may be the `trn_` id, or the `call_` or `rec_` id
 * it belongs to (docs/transcripts.md).
 */
export const transcriptRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/transcripts/{id}',
    resource: 'transcripts',
    summary: 'Fetch a transcript (JSON, or server-sent events)',
    operationId: 'getTranscript',
    description:
      "A call's transcript: its segments so far as JSON, or, with `Accept: text/event-stream`, each segment as a server-sent event while " +
      'the call goes on, then `end`. `Last-Event-ID` resumes a stream after that segment.',
    params: {
      id: {
        description: 'The transcript id (`trn_…`), or the id of its call (`call_…`) or recording (`rec_…`).',
        example: 'trn_9Rb4wL2sK7pQx3Mf',
      },
    },
    errors: [400],
    response: {
      status: 200,
      description: 'The transcript now; with `Accept: text/event-stream`, its live segments as server-sent events (docs/transcripts.md).',
      content: {
        'application/json': { schema: () => transcriptSchema.openapi() },
        'text/event-stream': {
          schema: () => ({
            type: 'string',
            description: "Events `segment` (id: the segment's index) and a final `end` carrying the transcript.",
          }),
        },
      },
      headers: { 'Cache-Control': { description: 'no-cache (server-sent events only).', schema: { type: 'string' } } },
    },
    handle(ctx, deps: MediaRoutesDeps) {
      if (!wantsEventStream(ctx.headers.get('accept'))) return { status: 200, body: deps.transcripts.toJson(find(deps, ctx)) };
      const after = lastEventId(ctx.headers.get('last-event-id'));
      const stream = deps.transcriptStreams.stream(find(deps, ctx), { signal: ctx.signal, after });
      return { status: 200, raw: stream, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } };
    },
  }),
];
