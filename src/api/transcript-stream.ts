import type { TimerHandle, VirtualClock } from '../core/clock.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import { sseComment, sseFrame } from '../core/sse.js';
import { segmentJson, type TranscriptEvents, type TranscriptRecord, type TranscriptService } from '../state/transcripts.js';

/** The comment a live transcript stream opens with (also the start of its example in the document). */
export const transcriptOpening = (id: string): Uint8Array => sseComment(`transcript ${id}`);

interface OpenStream {
  transcript: TranscriptRecord;
  /** Sends what is left and the final `end` event, then closes. */
  finish(): void;
  /** Closes without the final event (client gone, sandbox closed or reset). */
  stop(): void;
}

/**
 * Live transcripts as server-sent events (docs/transcripts.md). Each open stream sends a
 * comment at once (over `node:http` the headers reach the client only with the first
 * chunk), then every segment already spoken, then each further segment at the virtual
 * instant it has been spoken in full, scheduled on the sandbox clock, then an `end` event
 * when the call ends, and closes. A stream holds at most one clock timer, which it drops
 * as soon as the client goes away (request aborted or body cancelled), the sandbox is
 * closed or reset: nothing keeps running for a client that left.
 */
export class TranscriptStreams implements Service {
  private readonly open = new Set<OpenStream>();

  constructor(private readonly deps: { clock: VirtualClock; transcripts: TranscriptService; events: Channel<TranscriptEvents> }) {
    deps.events.on('transcript:ended', ({ transcript }) => {
      for (const stream of [...this.open]) if (stream.transcript === transcript) stream.finish();
    });
  }

  /** How many streams are open. */
  get count(): number {
    return this.open.size;
  }

  /**
   * A stream of `transcript` from the segment after index `after` (-1: from the start;
   * a reconnecting client's `Last-Event-ID`). A transcript that is no longer live is
   * sent whole at once, followed by `end`.
   */
  stream(transcript: TranscriptRecord, options: { signal: AbortSignal; after: number }): ReadableStream<Uint8Array> {
    const { clock, transcripts } = this.deps;
    const { signal } = options;
    let next = Math.max(0, options.after + 1);
    let timer: TimerHandle | null = null;
    let controller!: ReadableStreamDefaultController<Uint8Array>;

    const send = (frame: Uint8Array) => {
      try {
        controller.enqueue(frame);
      } catch {
        handle.stop(); // the reader went away between two events
      }
    };
    const instant = (index: number) => transcript.answeredMs + transcript.segments[index]!.endMs;
    const sendDue = () => {
      const live = transcript.status === 'live';
      while (this.open.has(handle) && next < transcript.segments.length && (!live || instant(next) <= clock.now())) {
        send(sseFrame('segment', { index: next, ...segmentJson(transcript.segments[next]!) }, next));
        next++;
      }
    };
    const schedule = () => {
      if (!this.open.has(handle) || transcript.status !== 'live' || next >= transcript.segments.length) return;
      timer = clock.setTimeout(() => {
        timer = null;
        sendDue();
        schedule();
      }, instant(next) - clock.now());
    };
    const onAbort = () => handle.stop();

    const handle: OpenStream = {
      transcript,
      finish: () => {
        if (!this.open.has(handle)) return;
        sendDue();
        send(sseFrame('end', transcripts.toJson(transcript)));
        handle.stop();
      },
      stop: () => {
        if (!this.open.delete(handle)) return;
        if (timer !== null) clock.clearTimeout(timer);
        timer = null;
        signal.removeEventListener('abort', onAbort);
        try {
          controller.close();
        } catch {
          // already closed or cancelled by the reader
        }
      },
    };

    return new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        this.open.add(handle);
        send(transcriptOpening(transcript.id));
        if (signal.aborted) return handle.stop();
        signal.addEventListener('abort', onAbort);
        if (transcript.status !== 'live') return handle.finish();
        sendDue();
        schedule();
      },
      cancel: () => handle.stop(),
    });
  }

  /** Ends every open stream (without the `end` event): the sandbox is closing or resetting. */
  stop(): void {
    for (const stream of [...this.open]) stream.stop();
  }
}
