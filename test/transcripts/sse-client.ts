import https from 'node:https';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Sandbox } from '../../src/index.js';
import { KEY } from '../helpers.js';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/**
 * A server-sent-events reader, as a user's client would parse the stream: the framing is
 * eventsource-parser's (the WHATWG rules, independent of the sandbox's writer); `data` must be
 * JSON. A field the spec does not know, a bad `retry`, or data that is not JSON is recorded in
 * `errors`, and makes `waitFor` and `waitForEnd` reject.
 */
export class SseParser {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Reconnection intervals the server sent (`retry:`). */
  readonly retries: number[] = [];
  readonly errors: string[] = [];
  ended = false;
  private waiters: Array<() => void> = [];
  private readonly parser: EventSourceParser = createParser({
    // Without an `event:` field the spec's type is `message`; eventsource-parser leaves it undefined.
    onEvent: ({ event = 'message', id, data }) => {
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        this.errors.push(`event ${event}: data is not JSON: ${data}`);
        return;
      }
      this.events.push({ event, ...(id === undefined ? {} : { id }), data: json });
    },
    onComment: (comment) => this.comments.push(comment),
    onRetry: (retry) => this.retries.push(retry),
    onError: (error) => this.errors.push(`${error.type}: ${error.message}`),
  });

  push(text: string): void {
    this.parser.feed(text);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Resolves once `count` events have arrived, or the stream has ended. */
  async waitFor(count: number): Promise<SseEvent[]> {
    while (this.events.length < count && !this.ended && this.errors.length === 0)
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.throwErrors();
    return this.events.slice(0, count);
  }

  /** Resolves when the stream has ended. */
  async waitForEnd(): Promise<SseEvent[]> {
    while (!this.ended && this.errors.length === 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.throwErrors();
    return this.events;
  }

  private throwErrors(): void {
    if (this.errors.length > 0) throw new Error(`not a valid event stream:\n${this.errors.join('\n')}`);
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/** Lets every chunk already written reach the parser (no virtual or real time passes). */
export const drain = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** Opens a transcript's event stream with global `fetch`. */
export async function openWithFetch(
  sandbox: Sandbox,
  id: string,
  options: { signal?: AbortSignal; headers?: Record<string, string>; key?: string } = {},
) {
  const res = await fetch(`${sandbox.baseUrl}/v1/transcripts/${id}`, {
    headers: { authorization: `Bearer ${options.key ?? KEY}`, accept: 'text/event-stream', ...options.headers },
    signal: options.signal,
  });
  return { res, ...readStream(res) };
}

/** Feeds a fetch Response's event stream to a new parser until it ends or is aborted; `done` settles then. */
export function readStream(res: Response) {
  const parser = new SseParser();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by the test
    }
    parser.end();
  })();
  return { parser, reader, done };
}

/** Opens a transcript's event stream with `node:https`, as axios or an SDK would. */
export function openWithHttps(sandbox: Sandbox, id: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; parser: SseParser; request: ReturnType<typeof https.get> }>(
    (resolve, reject) => {
      const parser = new SseParser();
      const request = https.get(
        `${sandbox.baseUrl}/v1/transcripts/${id}`,
        { headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => parser.push(chunk));
          res.on('end', () => parser.end());
          res.on('close', () => parser.end());
          resolve({ status: res.statusCode!, headers: res.headers, parser, request });
        },
      );
      request.on('error', (error) => (parser.ended ? undefined : reject(error)));
    },
  );
}
