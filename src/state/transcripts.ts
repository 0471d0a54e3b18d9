import type { TimedSegment } from '../sim/speech-timing.js';
import type { StoredItem } from '../core/collection.js';
import { isoOrNull } from '../core/time.js';

/**
 * `live` while the call is answered (segments so far), `processing` from the hang-up
 * until `transcript.ready`, then `ready` with the summary (see docs/transcripts.md).
 */
export type TranscriptStatus = 'live' | 'processing' | 'ready';

/** One speaker-labelled stretch of speech; `start` and `end` are seconds from the answer. */
export interface TranscriptSegment {
  speaker: string;
  text: string;
  start: number;
  end: number;
}

/** The transcript resource (CONTRACT §5; `summary`, `created_at` and `ready_at` are sandbox additions). */
export interface Transcript {
  id: string;
  call_id: string;
  /** Set when the call ends (the recording is made then). */
  recording_id: string | null;
  status: TranscriptStatus;
  segments: TranscriptSegment[];
  /** The segments as lines of `speaker: text`. */
  text: string;
  /** The AI summary, once `ready`. */
  summary: string | null;
  created_at: string;
  ready_at: string | null;
}

/** A transcript as stored. It is created when its call is answered. */
export interface TranscriptRecord extends StoredItem {
  callId: string;
  recordingId: string | null;
  status: TranscriptStatus;
  answeredMs: number;
  /** While live: the planned conversation (it may run past the hang-up); afterwards: what was said. */
  segments: TimedSegment[];
  summary: string | null;
  readyMs: number | null;
}

/**
 * The segments said by `nowMs`: a live transcript shows each line once it has been spoken in full.
 *
 * @example
 * spokenSegments(transcript, clock.now()).length; // lines said so far
 */
export function spokenSegments(transcript: TranscriptRecord, nowMs: number): TimedSegment[] {
  if (transcript.status !== 'live') return transcript.segments;
  return transcript.segments.filter((s) => transcript.answeredMs + s.endMs <= nowMs);
}

/**
 * A segment as the API shows it.
 *
 * @example
 * segmentJson({ speaker: 'a', text: 'Hi', startMs: 500, endMs: 1500 }); // { speaker: 'a', text: 'Hi', start: 0.5, end: 1.5 }
 */
export function segmentJson(segment: TimedSegment): TranscriptSegment {
  return { speaker: segment.speaker, text: segment.text, start: segment.startMs / 1000, end: segment.endMs / 1000 };
}

/**
 * The public JSON of a transcript at `nowMs`.
 *
 * @example
 * transcriptJson(transcript, clock.now()).status; // 'live' | 'processing' | 'ready'
 */
export function transcriptJson(transcript: TranscriptRecord, nowMs: number): Transcript {
  const segments = spokenSegments(transcript, nowMs).map(segmentJson);
  return {
    id: transcript.id,
    call_id: transcript.callId,
    recording_id: transcript.recordingId,
    status: transcript.status,
    segments,
    text: segments.map((s) => `${s.speaker}: ${s.text}`).join('\n'),
    summary: transcript.summary,
    created_at: transcript.createdAt,
    ready_at: isoOrNull(transcript.readyMs),
  };
}
