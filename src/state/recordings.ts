import { SandboxError } from '../core/errors.js';
import type { EventBus } from './event-bus.js';
import type { VirtualClock } from '../core/clock.js';
import { checkScript, ConversationLibrary, type ConversationLine } from '../sim/conversations.js';
import { toMs, type Duration } from '../core/duration.js';
import { planSegments, trimSegments } from '../sim/speech-timing.js';
import { summarize } from '../sim/summarizer.js';
import type { CallRecord, CallService } from './calls.js';
import { Collection, type StoredItem } from '../core/collection.js';
import { transcriptJson, type Transcript, type TranscriptRecord } from './transcripts.js';
import { iso, isoOrNull } from '../core/time.js';

export type RecordingStatus = 'processing' | 'ready';

/** The recording resource (CONTRACT §5; `transcript_id` and `ready_at` are sandbox additions). */
export interface Recording {
  id: string;
  call_id: string;
  /** Who had the call when it ended: the AI handler's name, a scripted agent, a transfer target, or null. */
  agent: string | null;
  /** Whole seconds, the call's duration. */
  duration: number;
  status: RecordingStatus;
  /** The audio (a WAV), served by the sandbox with the same key; 409 until `ready`. */
  url: string;
  transcript_id: string;
  /** The transcript, once `transcript.ready` has been emitted; null before. */
  transcript: Transcript | null;
  /** The AI summary, with the transcript. */
  summary: string | null;
  created_at: string;
  ready_at: string | null;
}

/**
 * When a finished call's media become ready (CONTRACT §7 defaults: 10 s, then 20 s).
 *
 * @example
 * sandbox.recordings.setTiming({ recordingDelay: '2s', transcriptDelay: '3s' });
 */
export interface RecordingTiming {
  /** From the end of the call to `recording.ready`. Default `'10s'`. */
  recordingDelay?: Duration;
  /** From `recording.ready` to `transcript.ready`. Default `'20s'`. */
  transcriptDelay?: Duration;
}

export interface RecordingRecord extends StoredItem {
  callId: string;
  agent: string | null;
  durationS: number;
  status: RecordingStatus;
  transcriptId: string;
  readyMs: number | null;
}

interface ResolvedTiming {
  recordingMs: number;
  transcriptMs: number;
}

const DEFAULT_TIMING: ResolvedTiming = { recordingMs: 10_000, transcriptMs: 20_000 };

interface RecordingServiceDeps {
  clock: VirtualClock;
  bus: EventBus;
  calls: CallService;
  baseUrl: string;
  aiHandler: string;
}

/**
 * The media pipeline of answered calls. On answer, the call's live transcript is created
 * from its conversation script (supplied by the test or a fixture). On completion, the
 * transcript is cut at the hang-up, a `processing` recording is stored, and on the clock
 * it becomes `ready` (`recording.ready`), then the transcript and its summary
 * (`transcript.ready`). Unanswered calls get nothing. See docs/recordings.md.
 */
export class RecordingService {
  readonly recordings = new Collection<RecordingRecord>();
  readonly transcripts = new Collection<TranscriptRecord>();
  private readonly library = new ConversationLibrary();
  private readonly scripts = new Map<string, ConversationLine[]>();
  private readonly timings = new Map<string, ResolvedTiming>();
  private defaultTiming = DEFAULT_TIMING;
  private readonly endedListeners = new Set<(transcript: TranscriptRecord) => void>();

  constructor(private readonly deps: RecordingServiceDeps) {
    deps.calls.onCallAnswered((call, talkMs) => this.callAnswered(call, talkMs));
    deps.calls.onCallCompleted((call) => this.callCompleted(call));
  }

  /** Runs `listener` when a live transcript ends (its call completed); the SSE streams use it. */
  onTranscriptEnded(listener: (transcript: TranscriptRecord) => void): () => void {
    this.endedListeners.add(listener);
    return () => void this.endedListeners.delete(listener);
  }

  /** The conversation `callId` will carry, instead of a fixture's. Only before the call is answered. */
  setScript(callId: string, lines: readonly ConversationLine[]): void {
    const where = 'transcripts.setScript';
    const call = this.callForScripting(callId, where);
    if (call.status !== 'ringing') {
      throw new SandboxError(`${where}: call ${callId} is ${call.status}; set its script while it rings (e.g. right after POST /v1/calls), before it is answered.`);
    }
    this.scripts.set(callId, checkScript(lines, where));
  }

  /** Timing for every call that ends from now on, or (with `callId`) for one call that has not ended yet. */
  setTiming(timing: RecordingTiming, callId?: string): void {
    const where = 'recordings.setTiming';
    if (timing === null || typeof timing !== 'object') throw new SandboxError(`${where}: pass an object such as { recordingDelay: '2s', transcriptDelay: '5s' }.`);
    for (const key of Object.keys(timing)) {
      if (key !== 'recordingDelay' && key !== 'transcriptDelay') throw new SandboxError(`${where}: unknown field '${key}'; use recordingDelay and/or transcriptDelay.`);
    }
    const base = this.defaultTiming;
    const resolved: ResolvedTiming = {
      recordingMs: timing.recordingDelay === undefined ? base.recordingMs : toMs(timing.recordingDelay, `${where}: recordingDelay`),
      transcriptMs: timing.transcriptDelay === undefined ? base.transcriptMs : toMs(timing.transcriptDelay, `${where}: transcriptDelay`),
    };
    if (callId === undefined) {
      this.defaultTiming = resolved;
      return;
    }
    const call = this.callForScripting(callId, where);
    if (call.status === 'completed') throw new SandboxError(`${where}: call ${callId} has already ended; set its timing before it ends.`);
    this.timings.set(callId, resolved);
  }

  /** The public JSON of a recording. */
  recordingJson(recording: RecordingRecord): Recording {
    const transcript = this.transcripts.find(recording.transcriptId);
    const ready = transcript?.status === 'ready' ? this.transcriptJson(transcript) : null;
    return {
      id: recording.id,
      call_id: recording.callId,
      agent: recording.agent,
      duration: recording.durationS,
      status: recording.status,
      url: `${this.deps.baseUrl}/v1/recordings/${recording.id}/audio`,
      transcript_id: recording.transcriptId,
      transcript: ready,
      summary: ready?.summary ?? null,
      created_at: recording.createdAt,
      ready_at: isoOrNull(recording.readyMs),
    };
  }

  /** The public JSON of a transcript, now. */
  transcriptJson(transcript: TranscriptRecord): Transcript {
    return transcriptJson(transcript, this.deps.clock.now());
  }

  /** A call of `account` (for lookups of a transcript by its call's id). */
  callOf(account: string, callId: string): CallRecord | undefined {
    return this.deps.calls.store.get(account, callId);
  }

  /** Forgets every recording, transcript, script and timing. */
  clear(): void {
    this.recordings.clear();
    this.transcripts.clear();
    this.scripts.clear();
    this.timings.clear();
    this.defaultTiming = DEFAULT_TIMING;
  }

  private callForScripting(callId: string, where: string): CallRecord {
    const call = typeof callId === 'string' ? this.deps.calls.store.find(callId) : undefined;
    if (!call) throw new SandboxError(`${where}: no call ${JSON.stringify(callId)} in this sandbox. Use the id from POST /v1/calls or calls.inbound().`);
    return call;
  }

  private callAnswered(call: CallRecord, talkMs: number | null): void {
    const lines = this.scripts.get(call.id) ?? this.library.scriptFor(call, this.deps.aiHandler);
    this.scripts.delete(call.id);
    this.transcripts.insert({
      id: call.transcriptId!,
      account: call.account,
      seq: this.transcripts.allocateSeq(),
      createdMs: this.deps.clock.now(),
      createdAt: iso(this.deps.clock.now()),
      callId: call.id,
      recordingId: null,
      status: 'live',
      answeredMs: call.answeredMs!,
      segments: planSegments(lines, talkMs),
      summary: null,
      readyMs: null,
    });
  }

  private callCompleted(call: CallRecord): void {
    const timing = this.timings.get(call.id) ?? this.defaultTiming;
    this.timings.delete(call.id);
    this.scripts.delete(call.id);
    const transcript = call.transcriptId ? this.transcripts.find(call.transcriptId) : undefined;
    if (call.recordingId === null || call.answeredMs === null || call.endedMs === null || !transcript) return;
    const { clock, bus } = this.deps;
    const durationS = this.deps.calls.toJson(call).duration ?? 0;
    // The transcript fits the recording: cut at the hang-up, and within its whole seconds.
    transcript.segments = trimSegments(transcript.segments, Math.min(call.endedMs - call.answeredMs, durationS * 1000));
    transcript.status = 'processing';
    transcript.recordingId = call.recordingId;
    const recording = this.recordings.insert({
      id: call.recordingId,
      account: call.account,
      seq: this.recordings.allocateSeq(),
      createdMs: clock.now(),
      createdAt: iso(clock.now()),
      callId: call.id,
      agent: call.agent,
      durationS,
      status: 'processing',
      transcriptId: transcript.id,
      readyMs: null,
    });
    for (const listener of this.endedListeners) listener(transcript);

    this.after(timing.recordingMs, () => {
      recording.status = 'ready';
      recording.readyMs = clock.now();
      bus.publish(recording.account, 'recording.ready', this.recordingJson(recording) as unknown as Record<string, unknown>);
      this.after(timing.transcriptMs, () => {
        transcript.summary = summarize(transcript.segments, durationS);
        transcript.status = 'ready';
        transcript.readyMs = clock.now();
        bus.publish(transcript.account, 'transcript.ready', this.transcriptJson(transcript) as unknown as Record<string, unknown>);
      });
    });
  }

  /** Runs `fn` after `ms` of virtual time; a zero delay means this very instant (a timer would add 1 ms inside a tick). */
  private after(ms: number, fn: () => void): void {
    if (ms === 0) fn();
    else this.deps.clock.setTimeout(fn, ms);
  }
}
