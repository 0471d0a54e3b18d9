import { wavAudio } from '../../sim/wav.js';
import type { RecordingRecord, RecordingService } from '../../state/recordings.js';
import { RECORDING_STATUSES, recordingSchema } from '../../state/resources.js';
import { oneOf, optional, string } from '../../core/schema.js';
import { ApiError, notFound } from '../errors.js';
import { listOf, listQuery, paginate } from '../pagination.js';
import { defineRoute, type AnyRoute, type IdContext } from '../router.js';
import type { RouteDeps } from '../route-deps.js';

/** The parts of a sandbox these rows read. */
export type MediaRoutesDeps = Pick<RouteDeps, 'calls' | 'recordings' | 'transcripts' | 'transcriptStreams' | 'cursors'>;

export const listRecordingsQuery = listQuery(
  {
    agent: optional(
      string({
        description: 'Only recordings of calls this agent had when they ended (the AI handler name for AI receptionist calls).',
        max: 64,
      }),
    ),
    call_id: optional(string({ description: 'Only the recording of this call.', max: 64 })),
    status: optional(oneOf(RECORDING_STATUSES, 'Only recordings in this status.')),
  },
  'List call recordings, newest first.',
);

/**
 * Finds a recording of the caller's account (another account's is 404, as the contract says).
 *
 * @example
 * const recording = findRecording(recordings, ctx); // throws ApiError 404 when absent
 */
export function findRecording(recordings: RecordingService, ctx: IdContext): RecordingRecord {
  const id = ctx.params.id;
  const recording = recordings.store.get(ctx.principal.account, id);
  if (!recording) {
    const hint = id.startsWith('call_')
      ? " That is a call id: use the call's recording_id (rec_…)."
      : ' Use the recording_id of a completed, answered call.';
    throw notFound(`No recording ${id} in this account.${hint}`);
  }
  return recording;
}

/** GET /v1/recordings, GET /v1/recordings/{id} and its audio (docs/recordings.md). */
export const recordingRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/recordings',
    resource: 'recordings',
    summary: 'List recordings',
    operationId: 'listRecordings',
    description:
      "The recordings of the account's answered calls, newest first, a page at a time. Filter by `agent`, `call_id`, `status` and " +
      'creation time. A recording appears when its call ends and is `ready` once processed.',
    query: listRecordingsQuery,
    response: {
      status: 200,
      description: 'A page of recordings, newest first.',
      content: { 'application/json': { schema: () => listOf(recordingSchema) } },
    },
    handle(ctx, { recordings, cursors }: MediaRoutesDeps) {
      const q = ctx.query;
      const where =
        q.agent !== undefined || q.call_id !== undefined || q.status !== undefined
          ? (r: RecordingRecord) =>
              (q.agent === undefined || r.agent === q.agent) &&
              (q.call_id === undefined || r.callId === q.call_id) &&
              (q.status === undefined || r.status === q.status)
          : undefined;
      return {
        status: 200,
        body: paginate(cursors, 'recordings', recordings.store, ctx.principal.account, q, (r) => recordings.toJson(r), where),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/recordings/{id}',
    resource: 'recordings',
    summary: 'Fetch a recording',
    operationId: 'getRecording',
    description:
      "A recording with its duration and status and, once ready, its transcript id and AI summary. Another account's recording is 404.",
    params: { id: { description: "The recording id (`rec_…`): a call's `recording_id`.", example: 'rec_5Hc2vN8qT1mXy7Ka' } },
    response: {
      status: 200,
      description: 'The recording, with its transcript and AI summary once ready.',
      content: { 'application/json': { schema: () => recordingSchema.openapi() } },
    },
    handle: (ctx, { recordings }: MediaRoutesDeps) => ({ status: 200, body: recordings.toJson(findRecording(recordings, ctx)) }),
  }),
  // Sandbox addition: the recording's `url`, a WAV file (docs/recordings.md).
  defineRoute({
    method: 'GET',
    path: '/v1/recordings/{id}/audio',
    resource: 'recordings',
    summary: 'Download a recording (audio/wav)',
    operationId: 'getRecordingAudio',
    description:
      "Downloads a recording's audio as an 8 kHz 16-bit mono WAV file. Before the recording is ready it is 409 `recording_not_ready`.",
    params: { id: { description: "The recording id (`rec_…`): a call's `recording_id`.", example: 'rec_5Hc2vN8qT1mXy7Ka' } },
    errors: [409],
    response: {
      status: 200,
      description: 'The audio: 8 kHz 16-bit mono PCM WAV.',
      content: { 'audio/wav': { schema: () => ({ type: 'string', contentMediaType: 'audio/wav' }) } },
      headers: {
        'Content-Length': { description: 'Bytes of the WAV file.', schema: { type: 'integer' } },
        'Content-Disposition': { description: 'attachment; filename="rec_….wav"', schema: { type: 'string' } },
      },
    },
    handle(ctx, { recordings, transcripts }: MediaRoutesDeps) {
      const recording = findRecording(recordings, ctx);
      if (recording.status !== 'ready') {
        throw new ApiError(
          409,
          'recording_not_ready',
          `Recording ${recording.id} is still processing; its audio can be downloaded once it is ready (the recording.ready event, 10 s ` +
            `after the call ends by default).`,
        );
      }
      const transcript = transcripts.store.find(recording.transcriptId);
      const speakers: string[] = [];
      const voiced = (transcript?.segments ?? []).map((s) => {
        if (!speakers.includes(s.speaker)) speakers.push(s.speaker);
        return { startMs: s.startMs, endMs: s.endMs, voice: speakers.indexOf(s.speaker) };
      });
      const { stream, byteLength } = wavAudio(recording.durationS, voiced);
      return {
        status: 200,
        raw: stream,
        headers: {
          'content-type': 'audio/wav',
          'content-length': String(byteLength),
          'content-disposition': `attachment; filename="${recording.id}.wav"`,
        },
      };
    },
  }),
];
