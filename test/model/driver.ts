import { expect } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/index.js';

/**
 * The common driver of the model-based tests (calls-model, messaging-model): one sandbox,
 * three keys, every response written to a transcript for the determinism check, the
 * model's clock and its model of the rate limit.
 */

export const KEYS = ['SVC_TEST_k1', 'SVC_TEST_k2', 'SVC_TEST_k3'] as const;
export const START = Date.parse('2026-01-01T00:00:00Z');

export interface Reply {
  status: number;
  body: any;
}

export class Driver {
  readonly sandbox: Sandbox;
  /** The model's virtual now; `advance` checks the sandbox agrees. */
  now = START;
  /** Every response (and scripted action) so far, one line each. */
  readonly transcript: string[] = [];
  /** How many requests the model expected to be rate limited. */
  limitedCount = 0;
  private readonly windows = new Map<number, { start: number; count: number }>();

  constructor(options: SandboxOptions) {
    this.sandbox = createSandbox(options);
  }

  /** True when this request of `KEYS[key]` is over the limit (every request counts: 100 per virtual second, CONTRACT §3). */
  limited(key: number): boolean {
    const start = this.now - (this.now % 1000);
    const w = this.windows.get(key);
    if (!w || w.start !== start) {
      this.windows.set(key, { start, count: 1 });
      return false;
    }
    return ++w.count > 100;
  }

  /** Sends one request as `KEYS[key]` (or as the key given in full, outside the rate model), records it, and fails on a 5xx. */
  async send(key: number | string, method: string, path: string, body?: unknown): Promise<Reply> {
    const res = await this.sandbox.handle(
      new Request(`${this.sandbox.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${typeof key === 'number' ? KEYS[key] : key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      }),
    );
    const text = await res.text();
    this.transcript.push(`${method} ${path} ${res.status} ${text}`);
    expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(500);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** `send`, with the model's verdict on the rate limit: `limited` requests must be 429. */
  async request(key: number, method: string, path: string, body?: unknown): Promise<Reply & { limited: boolean }> {
    const limited = this.limited(key);
    const res = await this.send(key, method, path, body);
    if (limited) {
      expect(res.status, `${method} ${path}`).toBe(429);
      this.limitedCount++;
    }
    return { ...res, limited };
  }

  /**
   * Walks a list to its end (`path` carries its query, `limit` included), checking each
   * page's size; the items in order, or null when the rate limit cut the walk short.
   */
  async walk(key: number, path: string, limit: number, onItem: (item: any) => void = () => {}): Promise<any[] | null> {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await this.request(key, 'GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (res.limited) return null;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      for (const item of res.body.data) onItem(item);
      items.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    return items;
  }

  /** A line of the transcript for what a step did outside the API (scripting). */
  note(line: string): void {
    this.transcript.push(line);
  }

  async advance(ms: number): Promise<void> {
    await this.sandbox.advance(ms);
    this.now += ms;
    expect(this.sandbox.now().getTime()).toBe(this.now);
  }

  /** Fails on any internal error, and returns the run as text: every response, then the event log. */
  finish(lines: readonly string[] = this.transcript): string {
    expect(this.sandbox.internalErrors()).toEqual([]);
    return `${lines.join('\n')}\n${JSON.stringify(this.sandbox.events.list())}`;
  }
}
