import type { TranscriptStreams } from '../api/transcript-stream.js';
import type { ConversationLine } from '../sim/conversations.js';
import type { Recording, RecordingService, RecordingTiming } from '../state/recordings.js';
import type { Transcript } from '../state/transcripts.js';

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

/**
 * Builds `sandbox.recordings`.
 *
 * @example
 * sandbox.recordings.setTiming({ recordingDelay: '1s', transcriptDelay: '2s' }, callId);
 * await sandbox.advance('2m');
 * sandbox.recordings.get(sandbox.calls.get(callId)!.recording_id!)?.summary;
 */
export function recordingScripting(service: RecordingService, assertOpen: (what: string) => void): RecordingScripting {
  return {
    get: (id) => {
      const recording = service.recordings.find(id);
      return recording && service.recordingJson(recording);
    },
    setTiming: (timing, callId) => {
      assertOpen('set recording timing');
      service.setTiming(timing, callId);
    },
  };
}

/**
 * Builds `sandbox.transcripts`.
 *
 * @example
 * const { id } = await (await fetch(...POST /v1/calls...)).json();
 * sandbox.transcripts.setScript(id, [
 *   { speaker: 'agent', text: 'Northwind, how can I help?' },
 *   { speaker: 'customer', text: 'I would like to book an appointment.' },
 * ]);
 */
export function transcriptScripting(service: RecordingService, streams: TranscriptStreams, assertOpen: (what: string) => void): TranscriptScripting {
  return {
    get: (id) => {
      const transcript = service.transcripts.find(id);
      return transcript && service.transcriptJson(transcript);
    },
    setScript: (callId, lines) => {
      assertOpen('set a conversation script');
      service.setScript(callId, lines);
    },
    openStreams: () => streams.count,
  };
}
