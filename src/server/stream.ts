import type { EventPositions } from '../scripting/events.js';
import { sseComment, sseFrame as frame } from '../core/sse.js';
import type { ConsoleItem, ConsoleKind } from '../scripting/console-view.js';
import type { Sandbox } from '../sandbox.js';
import type { SandboxInternals } from '../sandbox.js';

/** The comment a session stream opens with, and the reconnection delay it asks for (also the start of its example in the document). */
export const streamOpening = (): Uint8Array => sseComment('svc-sandbox session stream', 1000);

/** The most events one chunk of a stream carries. */
export const PAGE_EVENTS = 200;
/** A chunk stops growing once it holds this many bytes (one event may take it past). */
export const PAGE_BYTES = 64 * 1024;

/** A reader told of more changed ids than this between two frames is told to read everything again (`resync`). */
export const MAX_PENDING = 500;

/** An entry of the request journal, as `sandbox.requests.list()` gives it. */
type JournalEntry = ReturnType<Sandbox['requests']['list']>[number];

/** A changed thing a reader has still to be told of. */
interface Pending {
  kind: ConsoleKind | 'key' | 'session' | 'request';
  id: string;
  removed: boolean;
}

/**
 * What a `change` frame carries per item: the kind, the id, and the item's JSON now (null once
 * it is gone). A request (a journal entry, by its request id) also says which entry the journal
 * lists just before it (`after`, null for the first), so a page puts a request answered late
 * where the journal lists it: in the order the requests arrived.
 */
export interface ChangeItem {
  kind: Pending['kind'];
  id: string;
  removed: boolean;
  data: ConsoleItem | JournalEntry | Record<string, unknown> | null;
  after?: string | null;
}

/** One open stream: where its reader is in the log, and what it still has to be told. */
interface Reader {
  /** Position of the last event sent (0: none yet). */
  sent: number;
  /** The log's generation that `sent` belongs to. */
  generation: number;
  /** A `change` frame is due (the clock moved, or `pending` holds ids). */
  change: boolean;
  /** The ids changed since the last `change` frame, each once. */
  pending: Map<string, Pending>;
  /** More than {@link MAX_PENDING} ids changed: a `resync` frame is due instead. */
  overflow: boolean;
  /** Resolves the pull that waits for something to send. */
  wake: (() => void) | null;
  closed: boolean;
  close(): void;
}

/**
 * A session's live stream for the console (`GET /__sandbox/sessions/{s}/stream`), as
 * server-sent events:
 *
 * - `event` (with `id`, the event's position in the log, from 1): each platform event, as the
 *   event log holds it. A client that reconnects with `Last-Event-ID: n` gets the events after
 *   the n-th; if the log is shorter than n (the session was reset), it gets `reset` first,
 *   then the whole log.
 * - `change` `{now, changes}`: what changed since the last frame, each item once, with its
 *   JSON as it is now (`{kind, id, removed, data}`; kinds: call, message, number, recording,
 *   transcript, subscription, delivery, key, session), so the page updates those rows in place
 *   and reads nothing. The first frame of a stream has no changes: read the lists then.
 * - `resync` `{now}`: more than {@link MAX_PENDING} ids changed before the reader took them:
 *   read the lists again.
 * - `reset` `{now}`: the session was reset: start over.
 *
 * Each stream is pulled, never pushed: it remembers only its position in the log, and a chunk
 * (at most {@link PAGE_EVENTS} events or about {@link PAGE_BYTES}) is read from the log when the
 * reader has taken the one before. So a reader that pauses, during its catch-up or later, holds
 * at most one chunk on the server, and reads on from where it stopped when it resumes; the log
 * itself is the queue (docs/server.md, "Streams and large logs"). Changes coalesce into one
 * `change` frame, which holds ids until it is sent and reads their JSON then: a step costs the
 * server what it changed, whatever the size of the session (docs/console.md). The stream holds
 * no timer; it ends when the client goes away or the session is deleted.
 */
export class SessionStreams {
  private readonly open = new Set<Reader>();
  private subscribed: (() => void) | null = null;

  /** `sessionJson`: a session of the server as the session list shows it (undefined once deleted). */
  constructor(
    private readonly session: () => { readonly sandbox: Sandbox; readonly internals: SandboxInternals },
    private readonly sessionJson: (id: string) => Record<string, unknown> | null = () => null,
  ) {}

  stream(lastEventId: number, signal: AbortSignal): ReadableStream<Uint8Array> {
    const reader: Reader = {
      sent: lastEventId,
      generation: this.log().generation,
      change: true,
      pending: new Map(),
      overflow: false,
      wake: null,
      closed: false,
      close: () => undefined,
    };
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          reader.close = () => {
            if (reader.closed) return;
            reader.closed = true;
            this.open.delete(reader);
            reader.wake?.();
            try {
              controller.close();
            } catch {
              // already closed by the reader
            }
            if (this.open.size === 0) this.unsubscribe();
          };
          controller.enqueue(streamOpening());
          this.open.add(reader);
          if (signal.aborted) return reader.close();
          signal.addEventListener('abort', () => reader.close(), { once: true });
          this.subscribe();
        },
        pull: async (controller) => {
          for (;;) {
            if (reader.closed) return;
            const chunk = this.nextChunk(reader);
            if (chunk) {
              controller.enqueue(chunk);
              return;
            }
            await new Promise<void>((resolve) => (reader.wake = resolve));
            reader.wake = null;
          }
        },
        cancel: () => reader.close(),
      },
      // One chunk queued at most: the next is read from the log when the reader takes it.
      { highWaterMark: 1 },
    );
  }

  /**
   * Tells every reader that these things changed: each gets a `change` frame with their JSON
   * as it is when the frame is sent (the sandbox's own changes come from its change feed;
   * the server adds the session list's).
   */
  changed(items: readonly Pending[] = []): void {
    for (const reader of this.open) {
      reader.change = true;
      if (!reader.overflow) {
        for (const item of items) reader.pending.set(`${item.kind}:${item.id}`, item);
        if (reader.pending.size > MAX_PENDING) {
          reader.overflow = true;
          reader.pending.clear();
        }
      }
      reader.wake?.();
    }
  }

  closeAll(): void {
    for (const reader of [...this.open]) reader.close();
    this.unsubscribe();
  }

  /** How many streams are open. */
  get count(): number {
    return this.open.size;
  }

  /**
   * What `reader` is to get next, read from the log from its position: a `reset` when the log
   * it was reading is gone, then a page of events, else a `change` if one is due; null when
   * there is nothing to send.
   */
  protected nextChunk(reader: Reader): Uint8Array | null {
    const log = this.log();
    const frames: Uint8Array[] = [];
    if (log.generation !== reader.generation || log.length < reader.sent) {
      reader.generation = log.generation;
      reader.sent = 0;
      reader.change = true;
      reader.pending.clear();
      reader.overflow = false;
      frames.push(frame('reset', { now: this.now() }));
    }
    let bytes = 0;
    for (const event of log.after(reader.sent, PAGE_EVENTS)) {
      const bytesOf = frame('event', event, reader.sent + 1);
      frames.push(bytesOf);
      reader.sent += 1;
      bytes += bytesOf.byteLength;
      if (bytes >= PAGE_BYTES) break;
    }
    if (reader.sent === log.length && reader.change && bytes === 0) {
      reader.change = false;
      if (reader.overflow) {
        reader.overflow = false;
        frames.push(frame('resync', { now: this.now() }));
      } else {
        // Each id's JSON is read now, once per frame: the frame costs the ids that changed.
        const request = this.requests(reader.pending);
        const changes = [...reader.pending.values()].map((item) => this.item(item, request));
        reader.pending.clear();
        frames.push(frame('change', { now: this.now(), changes }));
      }
    }
    return frames.length === 0 ? null : concat(frames);
  }

  private log(): EventPositions {
    return this.session().internals.events;
  }

  /** A changed id with its JSON now (null once it is gone); a request as `request` read it ({@link requests}). */
  protected item({ kind, id, removed }: Pending, request: (id: string) => ChangeItem): ChangeItem {
    if (kind === 'request') return request(id);
    const { sandbox, internals } = this.session();
    let data: ChangeItem['data'] = null;
    if (!removed) {
      if (kind === 'key') data = (sandbox.keys.list().find((k) => k.key === id) as Record<string, unknown> | undefined) ?? null;
      else if (kind === 'session') data = this.sessionJson(id);
      else data = internals.view().get(kind, id) ?? null;
    }
    return { kind, id, removed: removed || data === null, data };
  }

  /** The requests among `pending`, found in the journal once per frame: each with its entry and the request listed before it. */
  private requests(pending: ReadonlyMap<string, Pending>): (id: string) => ChangeItem {
    const wanted = new Set<string>();
    for (const item of pending.values()) if (item.kind === 'request') wanted.add(item.id);
    const found = wanted.size > 0 ? this.session().internals.requests(wanted) : new Map();
    return (id) => {
      const hit = found.get(id);
      return hit
        ? { kind: 'request', id, removed: false, data: hit.entry, after: hit.after }
        : { kind: 'request', id, removed: true, data: null };
    };
  }

  private now(): string {
    return this.session().sandbox.now().toISOString();
  }

  private subscribe(): void {
    if (this.subscribed) return;
    const { internals } = this.session();
    const wakeAll = () => {
      for (const reader of this.open) reader.wake?.();
    };
    const offEvents = this.log().watch(wakeAll);
    // What each step changed, from the library's own change feed: calls, messages, numbers,
    // recordings, transcripts, subscriptions, deliveries (an attempt settled, during an
    // advance or after it), keys, and the clock. A reset is seen in the log's generation.
    const offChanges = internals.changes.subscribe((batch) => {
      if (batch.kind === 'reset') return wakeAll();
      this.changed(batch.records.filter((r) => r.kind !== 'clock') as Pending[]);
    });
    this.subscribed = () => {
      offEvents();
      offChanges();
    };
  }

  private unsubscribe(): void {
    this.subscribed?.();
    this.subscribed = null;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const [only] = chunks;
  if (chunks.length === 1 && only) return only;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
