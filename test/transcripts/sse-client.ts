import https from 'node:https';
import type { Sandbox } from '../../src/index.js';
import { KEY } from '../helpers.js';

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/**
 * A minimal server-sent-events reader, as a user's client would parse the stream: blocks
 * separated by a blank line, `:` comments, `event`, `id` and `data` fields.
 */
export class SseParser {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;
  private buffer = '';
  private waiters: Array<() => void> = [];

  push(text: string): void {
    this.buffer += text;
    let cut: number;
    while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, cut);
      this.buffer = this.buffer.slice(cut + 2);
      const event: Partial<SseEvent> & { dataLines: string[] } = { event: 'message', dataLines: [] };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data: ')) event.dataLines.push(line.slice(6));
      }
      if (event.dataLines.length > 0) {
        this.events.push({ event: event.event!, ...(event.id === undefined ? {} : { id: event.id }), data: JSON.parse(event.dataLines.join('\n')) });
      }
    }
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Resolves once `count` events have arrived, or the stream has ended. */
  async waitFor(count: number): Promise<SseEvent[]> {
    while (this.events.length < count && !this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.events.slice(0, count);
  }

  /** Resolves when the stream has ended. */
  async waitForEnd(): Promise<SseEvent[]> {
    while (!this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.events;
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/** Lets every chunk already written reach the parser (no virtual or real time passes). */
export const drain = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** Opens a transcript's event stream with global `fetch`. */
export async function openWithFetch(sandbox: Sandbox, id: string, options: { signal?: AbortSignal; headers?: Record<string, string>; key?: string } = {}) {
  const res = await fetch(`${sandbox.baseUrl}/v1/transcripts/${id}`, {
    headers: { authorization: `Bearer ${options.key ?? KEY}`, accept: 'text/event-stream', ...options.headers },
    signal: options.signal,
  });
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
  return { res, parser, reader, done };
}

/** Opens a transcript's event stream with `node:https`, as axios or an SDK would. */
export function openWithHttps(sandbox: Sandbox, id: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; parser: SseParser; request: ReturnType<typeof https.get> }>((resolve, reject) => {
    const parser = new SseParser();
    const request = https.get(`${sandbox.baseUrl}/v1/transcripts/${id}`, { headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.push(chunk));
      res.on('end', () => parser.end());
      res.on('close', () => parser.end());
      resolve({ status: res.statusCode!, headers: res.headers, parser, request });
    });
    request.on('error', (error) => (parser.ended ? undefined : reject(error)));
  });
}
