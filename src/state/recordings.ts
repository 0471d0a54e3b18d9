import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Duration } from '../core/duration.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import { iso, isoOrNull } from '../core/time.js';
import type { CallEvents, CallRecord, CallService } from './calls.js';
import type { EventBus } from './event-bus.js';
import type { Recording, RecordingStatus } from './resources.js';
import type { TranscriptService } from './transcripts.js';

/**
 * When a finished call's media become ready (docs/calls.md defaults: 10 s, then 20 s).
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

/** A timing with the milliseconds resolved; unset fields keep the sandbox-wide value. */
export interface ResolvedTiming {
  recordingMs?: number;
  transcriptMs?: number;
}

const DEFAULT_TIMING = { recordingMs: 10_000, transcriptMs: 20_000 };

interface RecordingServiceDeps {
  clock: VirtualClock;
  bus: EventBus;
  events: Channel<CallEvents>;
  calls: CallService;
  transcripts: TranscriptService;
  baseUrl: string;
  /** Runs work at the end of the current step, still at this instant (core/steps.ts). */
  later: (fn: () => void) => void;
}

/**
 * The recordings of answered calls. When such a call completes, its transcript is cut at the
 * hang-up, a `processing` recording is stored, and on the clock it becomes `ready`
 * (`recording.ready`), then the transcript and its summary (`transcript.ready`). Unanswered
 * calls get nothing. See docs/recordings.md.
 */
export class RecordingService implements Service {
  readonly store = new Collection<RecordingRecord>();
  private readonly timings = new Map<string, ResolvedTiming>();
  private defaultTiming = DEFAULT_TIMING;

  constructor(private readonly deps: RecordingServiceDeps) {
    deps.events.on('call:completed', ({ call }) => this.callCompleted(call));
  }

  /** Timing (validated by the caller) for every call that ends from now on, or for one call that has not ended. */
  setTiming(timing: ResolvedTiming, callId?: string): void {
    const resolved = { ...this.defaultTiming, ...timing };
    if (callId === undefined) this.defaultTiming = resolved;
    else this.timings.set(callId, resolved);
  }

  /** The public JSON of a recording. */
  toJson(recording: RecordingRecord): Recording {
    const { transcripts } = this.deps;
    const transcript = transcripts.store.find(recording.transcriptId);
    const ready = transcript?.status === 'ready' ? transcripts.toJson(transcript) : null;
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

  reset(): void {
    this.store.clear();
    this.timings.clear();
    this.defaultTiming = DEFAULT_TIMING;
  }

  private callCompleted(call: CallRecord): void {
    const timing = this.timings.get(call.id) ?? this.defaultTiming;
    this.timings.delete(call.id);
    if (call.recordingId === null || call.answeredMs === null || call.endedMs === null) return;
    const { clock, bus, transcripts } = this.deps;
    const durationS = this.deps.calls.toJson(call).duration ?? 0;
    const transcript = transcripts.end(call, call.recordingId, durationS);
    if (!transcript) return;
    const now = clock.now();
    const recording = this.store.insert({
      id: call.recordingId,
      account: call.account,
      seq: this.store.allocateSeq(),
      createdMs: now,
      createdAt: iso(now),
      callId: call.id,
      agent: call.agent,
      durationS,
      status: 'processing',
      transcriptId: transcript.id,
      readyMs: null,
    });
    this.after(timing.recordingMs ?? DEFAULT_TIMING.recordingMs, () => {
      recording.status = 'ready';
      recording.readyMs = clock.now();
      bus.publish(recording.account, 'recording.ready', this.toJson(recording));
      this.after(timing.transcriptMs ?? DEFAULT_TIMING.transcriptMs, () => {
        transcripts.ready(transcript, durationS);
        // The recording's JSON carries the ready transcript and its summary from now on.
        this.store.touched(recording);
        bus.publish(transcript.account, 'transcript.ready', transcripts.toJson(transcript));
      });
    });
  }

  /**
   * Runs `fn` after `ms` of virtual time. A zero delay means this very instant, but after the
   * step in progress (a timer would add 1 ms inside a tick; running at once would publish
   * recording.ready before the call.completed it follows).
   */
  private after(ms: number, fn: () => void): void {
    if (ms === 0) this.deps.later(fn);
    else this.deps.clock.setTimeout(fn, ms);
  }
}
