import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import { iso, isoOrNull } from '../core/time.js';
import { ConversationLibrary, type ConversationLine } from '../sim/conversations.js';
import { planSegments, trimSegments, type TimedSegment } from '../sim/speech-timing.js';
import { summarize } from '../sim/summarizer.js';
import type { CallEvents, CallRecord } from './calls.js';
import type { Transcript, TranscriptSegment, TranscriptStatus } from './resources.js';

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
  /**
   * Once the call has ended (the segments no longer change): the segments and text as the API
   * shows them, made once and frozen. Every later JSON of the transcript (its event, the API's
   * answers, the recording's) shares them: a session holds one copy per transcript, not one per
   * event and read.
   */
  said?: Said;
}

/** A transcript's segments as the API shows them, with its text. */
interface Said {
  segments: readonly TranscriptSegment[];
  text: string;
}

/** What the transcript service announces. */
export interface TranscriptEvents {
  /** A live transcript ended (its call completed): live streams send what is left and close. */
  'transcript:ended': { transcript: TranscriptRecord };
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

/** The segments as the API shows them, and the text made of them. */
function saidOf(segments: readonly TimedSegment[]): Said {
  const json = segments.map(segmentJson);
  return { segments: json, text: json.map((s) => `${s.speaker}: ${s.text}`).join('\n') };
}

/** {@link saidOf}, frozen: shared by every JSON of a transcript whose call has ended. */
function frozenSaid(segments: readonly TimedSegment[]): Said {
  const { segments: json, text } = saidOf(segments);
  return Object.freeze({ segments: Object.freeze(json.map((s) => Object.freeze(s))), text });
}

interface TranscriptServiceDeps {
  clock: VirtualClock;
  events: Channel<CallEvents & TranscriptEvents>;
  aiHandler: string;
}

/**
 * The transcripts of answered calls. On answer, the call's live transcript is made from its
 * conversation script (supplied by the test, or a fixture chosen by the call's seeded id);
 * when the call ends the recording service cuts it at the hang-up ({@link end}) and later
 * makes it ready with its AI summary ({@link ready}). See docs/transcripts.md.
 */
export class TranscriptService implements Service {
  readonly store = new Collection<TranscriptRecord>();
  private readonly library = new ConversationLibrary();
  private readonly scripts = new Map<string, ConversationLine[]>();

  constructor(private readonly deps: TranscriptServiceDeps) {
    deps.events.on('call:answered', ({ call, talkMs }) => this.callAnswered(call, talkMs));
  }

  /** The conversation a ringing call will carry, instead of a fixture's (validated by the caller). */
  setScript(callId: string, lines: ConversationLine[]): void {
    this.scripts.set(callId, lines);
  }

  /** Cuts the live transcript of `call` at its end and marks it `processing`; streams are told. */
  end(call: CallRecord, recordingId: string, durationS: number): TranscriptRecord | undefined {
    this.scripts.delete(call.id);
    const transcript = call.transcriptId ? this.store.find(call.transcriptId) : undefined;
    if (!transcript || call.answeredMs === null || call.endedMs === null) return undefined;
    // The transcript fits the recording: cut at the hang-up, and within its whole seconds.
    transcript.segments = trimSegments(transcript.segments, Math.min(call.endedMs - call.answeredMs, durationS * 1000));
    transcript.status = 'processing';
    transcript.recordingId = recordingId;
    transcript.said = frozenSaid(transcript.segments);
    // No event tells of it (transcript.ready comes later): the change feed must, or a console keeps it live.
    this.store.touched(transcript);
    this.deps.events.emit('transcript:ended', { transcript });
    return transcript;
  }

  /** Processing is done: the summary is written and the transcript is `ready`. */
  ready(transcript: TranscriptRecord, durationS: number): void {
    transcript.summary = summarize(transcript.segments, durationS);
    transcript.status = 'ready';
    transcript.readyMs = this.deps.clock.now();
  }

  /** The public JSON of a transcript, now. */
  toJson(transcript: TranscriptRecord): Transcript {
    const { segments, text } = transcript.said ?? saidOf(spokenSegments(transcript, this.deps.clock.now()));
    return {
      id: transcript.id,
      call_id: transcript.callId,
      recording_id: transcript.recordingId,
      status: transcript.status,
      // Shared and frozen once the call has ended; the type says mutable only because the API's JSON type is one.
      segments: segments as TranscriptSegment[],
      text,
      summary: transcript.summary,
      created_at: transcript.createdAt,
      ready_at: isoOrNull(transcript.readyMs),
    };
  }

  reset(): void {
    this.store.clear();
    this.scripts.clear();
  }

  private callAnswered(call: CallRecord, talkMs: number | null): void {
    const lines = this.scripts.get(call.id) ?? this.library.scriptFor(call, this.deps.aiHandler);
    this.scripts.delete(call.id);
    const now = this.deps.clock.now();
    const { transcriptId, answeredMs } = call;
    if (transcriptId === null || answeredMs === null) throw new Error(`transcripts: ${call.id} was announced answered without an answer`);
    this.store.insert({
      id: transcriptId,
      account: call.account,
      seq: this.store.allocateSeq(),
      createdMs: now,
      createdAt: iso(now),
      callId: call.id,
      recordingId: null,
      status: 'live',
      answeredMs,
      segments: planSegments(lines, talkMs),
      summary: null,
      readyMs: null,
    });
  }
}
