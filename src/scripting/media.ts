import { callRef, said } from '../core/errors.js';
import { durationSchema, checkedMs } from '../core/duration.js';
import { array, invalid, map, number, object, optional, string, type Schema } from '../core/schema.js';
import type { ConversationLine } from '../sim/conversations.js';
import type { CallRecord, CallService } from '../state/calls.js';
import type { RecordingService, RecordingTiming, ResolvedTiming } from '../state/recordings.js';
import type { Recording, Transcript } from '../state/resources.js';
import type { TranscriptService } from '../state/transcripts.js';
import { act, check, type ControlContext, change, read, refuse } from './context.js';

/** `recordings.setTiming`'s argument, as written (the control API's body). */
export const timingOptions = object(
  { recordingDelay: optional(durationSchema), transcriptDelay: optional(durationSchema) },
  { description: 'When recordings and transcripts become ready.', label: 'option' },
) satisfies Schema<RecordingTiming>;

/** The same, in milliseconds. */
const resolvedTiming: Schema<ResolvedTiming> = map(timingOptions, (t) => ({
  ...(t.recordingDelay === undefined ? {} : { recordingMs: checkedMs(t.recordingDelay) }),
  ...(t.transcriptDelay === undefined ? {} : { transcriptMs: checkedMs(t.transcriptDelay) }),
}));

const line = object(
  {
    speaker: string({ description: 'Who speaks', max: 64 }),
    text: string({ description: 'What is said', max: 2000, multiline: true }),
    start: optional(number({ description: 'Seconds from the answer when the line starts', min: 0 })),
    end: optional(number({ description: 'Seconds from the answer when the line ends', min: 0 })),
  },
  { description: 'One line of a conversation.', label: 'option' },
);

/** A conversation script: lines all timed or none, in order, each ending after it starts. */
export const script: Schema<ConversationLine[]> = map(
  array(line, { description: 'The conversation, in order.', min: 1, max: 1000 }),
  (lines, path) => {
    const timed = lines.some((l) => l.start !== undefined || l.end !== undefined);
    let previousStart = 0;
    lines.forEach((l, i) => {
      const at = `${path}[${i}]`;
      if (!l.speaker.trim() || !l.text.trim()) throw invalid(`\`${at}\`: speaker and text must not be blank.`, at);
      if (!timed) return;
      if (l.start === undefined || l.end === undefined) {
        throw invalid(
          `\`${at}\`: give start and end (seconds from the answer) on every line, or on none to let the sandbox pace the script.`,
          at,
        );
      }
      if (l.end <= l.start) throw invalid(`\`${at}\`: need 0 <= start < end, got start ${l.start} and end ${l.end}.`, at);
      if (l.start < previousStart)
        throw invalid(`\`${at}\` starts at ${l.start} s, before the line before it (${previousStart} s); list lines in order.`, at);
      previousStart = l.start;
    });
    return lines.map((l) => ({ ...l }));
  },
);

/** `sandbox.recordings`: inspecting recordings and timing their processing (docs/recordings.md). */
export interface RecordingScripting {
  /** The recording as the API shows it (any account), or undefined. */
  get(id: string): Recording | undefined;
  /**
   * When recordings and transcripts become ready: for every call that ends from now on,
   * or, with `callId`, for that one call (before it ends). Unset fields keep the current
   * sandbox-wide value (default 10 s, then 20 s). `reset()` restores the defaults.
   */
  setTiming(timing: RecordingTiming, callId?: string): void;
}

/** `sandbox.transcripts`: inspecting transcripts, scripting conversations, watching SSE streams (docs/transcripts.md). */
export interface TranscriptScripting {
  /** The transcript as the API shows it now (any account), by its `trn_` id, or undefined. */
  get(id: string): Transcript | undefined;
  /**
   * The conversation a call will carry, instead of a fixture's: set it while the call
   * rings. Untimed lines are paced and fitted to the call; timed lines (`start`/`end` in
   * seconds) are kept as given. Either way the transcript is cut at the hang-up.
   */
  setScript(callId: string, lines: readonly ConversationLine[]): void;
  /** How many server-sent-event streams are open (0 once every client has gone). */
  openStreams(): number;
}

function callFor(calls: CallService, callId: unknown, where: string): CallRecord {
  const call = typeof callId === 'string' ? calls.store.find(callId) : undefined;
  if (!call) {
    throw refuse(
      where,
      said`no call ${JSON.stringify(callId)} in this sandbox. Use the id from POST /v1/calls or ${callRef('calls.inbound')}.`,
      {
        code: 'not_found',
        param: 'callId',
      },
    );
  }
  return call;
}

/**
 * Builds `sandbox.recordings`.
 *
 * @example
 * sandbox.recordings.setTiming({ recordingDelay: '1s', transcriptDelay: '2s' }, callId);
 * await sandbox.advance('2m');
 * sandbox.recordings.get(sandbox.calls.get(callId)!.recording_id!)?.summary;
 */
export function recordingScripting(ctx: ControlContext, recordings: RecordingService, calls: CallService): RecordingScripting {
  return {
    // The caller's own copy: a ready transcript's segments in it are shared, and frozen, inside the sandbox.
    get: read((id) => {
      const recording = recordings.store.find(id);
      return recording && structuredClone(recordings.toJson(recording));
    }),
    setTiming: change(ctx, 'recordings.setTiming', (timing, callId) =>
      act(ctx, 'set recording timing', () => {
        const where = 'recordings.setTiming';
        const resolved = check(resolvedTiming, timing, where);
        if (callId !== undefined) {
          const call = callFor(calls, callId, where);
          if (call.status === 'completed')
            throw refuse(where, `call ${callId} has already ended; set its timing before it ends.`, {
              code: 'conflict',
              param: 'callId',
            });
        }
        recordings.setTiming(resolved, callId);
      }),
    ),
  };
}

/**
 * Builds `sandbox.transcripts`. `openStreams` counts the live streams the HTTP layer holds.
 *
 * @example
 * const { id } = await (await fetch(...POST /v1/calls...)).json();
 * sandbox.transcripts.setScript(id, [
 *   { speaker: 'agent', text: 'Northwind, how can I help?' },
 *   { speaker: 'customer', text: 'I would like to book an appointment.' },
 * ]);
 */
export function transcriptScripting(
  ctx: ControlContext,
  transcripts: TranscriptService,
  calls: CallService,
  openStreams: () => number,
): TranscriptScripting {
  return {
    // The caller's own copy: a finished transcript's segments are shared, and frozen, inside the sandbox.
    get: read((id) => {
      const transcript = transcripts.store.find(id);
      return transcript && structuredClone(transcripts.toJson(transcript));
    }),
    setScript: change(ctx, 'transcripts.setScript', (callId, lines) =>
      act(ctx, 'set a conversation script', () => {
        const where = 'transcripts.setScript';
        const call = callFor(calls, callId, where);
        const checked = check(script, lines, where, 'lines');
        if (call.status !== 'ringing') {
          throw refuse(
            where,
            `call ${callId} is ${call.status}; set its script while it rings (e.g. right after POST /v1/calls), before it is answered.`,
            { code: 'conflict', param: 'callId' },
          );
        }
        transcripts.setScript(call.id, checked);
      }),
    ),
    openStreams: read(openStreams),
  };
}
