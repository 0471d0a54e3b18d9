import { sseComment, sseFrame as frame } from '../core/sse.js';
import type { Sandbox } from '../sandbox.js';


/**
 * A session's live stream for the console (`GET /__sandbox/sessions/{s}/stream`), as
 * server-sent events:
 *
 * - `event` (with `id`, the event's position in the log, from 1): each platform event, as the
 *   event log holds it. A client that reconnects with `Last-Event-ID: n` gets the events after
 *   the n-th; if the log is shorter than n (the session was reset), it gets `reset` first,
 *   then the whole log.
 * - `change` `{now}`: something else changed (the clock moved, a key was made, a webhook
 *   attempt settled): read the lists again.
 * - `reset` `{now}`: the session was reset: start over.
 *
 * The stream holds no timer; it ends when the client goes away or the session is deleted.
 */
export class SessionStreams {
  private readonly open = new Set<{ push(chunk: Uint8Array): void; close(): void }>();
  /** How many events the log held at the last announcement (a shorter log means a reset). */
  private seen = 0;
  private subscribed: (() => void) | null = null;

  constructor(private readonly sandbox: () => Sandbox) {}

  stream(lastEventId: number, signal: AbortSignal): ReadableStream<Uint8Array> {
    let client!: { push(chunk: Uint8Array): void; close(): void };
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        client = {
          push: (chunk) => {
            try {
              controller.enqueue(chunk);
            } catch {
              client.close();
            }
          },
          close: () => {
            if (!this.open.delete(client)) return;
            try {
              controller.close();
            } catch {
              // already closed by the reader
            }
            if (this.open.size === 0) this.unsubscribe();
          },
        };
        const sandbox = this.sandbox();
        const log = sandbox.events.list();
        client.push(sseComment('svc-sandbox session stream', 1000));
        let from = lastEventId;
        if (from > log.length) {
          client.push(frame('reset', { now: sandbox.now().toISOString() }));
          from = 0;
        }
        log.slice(from).forEach((event, i) => client.push(frame('event', event, from + i + 1)));
        client.push(frame('change', { now: sandbox.now().toISOString() }));
        this.open.add(client);
        if (signal.aborted) return client.close();
        signal.addEventListener('abort', () => client.close(), { once: true });
        this.subscribe(log.length);
      },
      cancel: () => client.close(),
    });
  }

  /** Something other than an event changed: every client reads its lists again. */
  changed(): void {
    if (this.open.size === 0) return;
    const sandbox = this.sandbox();
    let now: string;
    try {
      now = sandbox.now().toISOString();
    } catch {
      return;
    }
    const length = safeLength(sandbox);
    if (length !== null && length < this.seen) {
      this.seen = length;
      this.broadcast(frame('reset', { now }));
    }
    this.broadcast(frame('change', { now }));
  }

  closeAll(): void {
    for (const client of [...this.open]) client.close();
    this.unsubscribe();
  }

  private subscribe(seen: number): void {
    if (this.subscribed) return;
    this.seen = seen;
    const sandbox = this.sandbox();
    const offEvents = sandbox.events.subscribe((event) => {
      this.seen += 1;
      this.broadcast(frame('event', event, this.seen));
    });
    // Attempts settle during an advance and after it (a slow receiver): the console's
    // deliveries and dead letters follow them as they happen.
    const offAttempts = sandbox.webhooks.subscribe(() => this.changed());
    this.subscribed = () => {
      offEvents();
      offAttempts();
    };
  }

  private unsubscribe(): void {
    this.subscribed?.();
    this.subscribed = null;
  }

  private broadcast(chunk: Uint8Array): void {
    for (const client of [...this.open]) client.push(chunk);
  }
}

function safeLength(sandbox: Sandbox): number | null {
  try {
    return sandbox.events.list().length;
  } catch {
    return null;
  }
}
