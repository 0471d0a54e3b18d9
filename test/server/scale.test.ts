import { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { PAGE_BYTES, SessionStreams } from '../../src/server/stream.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';
import { serverClient } from './client.js';
import { within } from '../support/within.js';

/**
 * Over real HTTP against startServer: requests and streams cost what
 * they carry, not the length of the session's log. The control lists are paginated as /v1's,
 * a stream's catch-up is read from the log a page at a time as its reader takes it, and
 * advance's answer is read from the log by position.
 */

/** One request to `server`, as test/server/client.ts sends it, with `key` as the bearer key. */
const call = (server: SandboxServer, method: string, path: string, body?: unknown, key?: string) =>
  serverClient(() => server.url).call(method, path, body, key ? { authorization: `Bearer ${key}` } : {});

/** The default session's stream on `server`, read a chunk at a time into `frames`. */
async function openStream(server: SandboxServer, signal: AbortSignal) {
  const res = await fetch(`${server.url}/__sandbox/sessions/default/stream`, { signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let rest = '';
  /** Reads one chunk into `frames`; false once the stream has ended. */
  const readChunk = async () => {
    const { value, done } = await reader.read();
    if (done) return false;
    rest = parseFrames(rest + decoder.decode(value, { stream: true }), frames);
    return true;
  };
  return { frames, readChunk };
}

/** Places `n` answered calls in the session of `server.sandbox` (5 events each once they end), in process: a big log, fast. */
async function fill(server: SandboxServer, n: number, to = '+14155550123') {
  for (let i = 0; i < n; i++) {
    const res = await server.sandbox.handle(
      new Request(`${server.sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer SVC_TEST_fill${Math.floor(i / 90)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to, from: '+14155550100' }),
      }),
    );
    expect(res.status).toBe(201);
    await res.arrayBuffer();
  }
  await server.sandbox.advance('10m');
}

interface Frame {
  id?: string;
  event?: string;
  data?: unknown;
}

/** Splits server-sent events text into frames (comments and `retry` dropped); returns the unfinished rest. */
function parseFrames(text: string, into: Frame[]): string {
  const parts = text.split('\n\n');
  const rest = parts.pop()!;
  for (const part of parts) {
    const frame: Frame = {};
    for (const line of part.split('\n')) {
      if (line.startsWith('id: ')) frame.id = line.slice(4);
      else if (line.startsWith('event: ')) frame.event = line.slice(7);
      else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
    }
    if (frame.event) into.push(frame);
  }
  return rest;
}

/** Walks a paginated control list with `limit`, checking each page's envelope; every item, in order. */
async function walk(server: SandboxServer, path: string, limit: number) {
  const items: unknown[] = [];
  let pages = 0;
  for (let cursor: string | null = null; ; ) {
    const page = await call(server, 'GET', `/__sandbox${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    items.push(...page.body.data);
    pages += 1;
    expect(page.body.has_more).toBe(page.body.next_cursor !== null);
    if (!page.body.has_more) return { items, pages };
    expect(page.body.data).toHaveLength(limit);
    cursor = page.body.next_cursor;
  }
}

describe('control lists are paginated like /v1', () => {
  let server: SandboxServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 16 });
  });
  afterAll(() => server.close());
  afterEach(() => closeReceivers());

  it('every list walks page by page to exactly the unpaginated list, in its own order', async () => {
    const receiver = await startReceiver(() => 500);
    expect((await call(server, 'POST', '/v1/webhooks', { url: receiver.url, events: ['call.completed'] }, 'SVC_TEST_pages')).status).toBe(
      201,
    );
    for (let i = 0; i < 7; i++)
      expect((await call(server, 'POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' }, 'SVC_TEST_pages')).status).toBe(201);
    await call(server, 'POST', '/__sandbox/sessions/default/advance', { duration: '25h' }); // every delivery fails to the end: 7 dead letters
    for (let i = 0; i < 5; i++) expect((await call(server, 'POST', '/__sandbox/sessions/default/keys')).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await call(server, 'POST', '/__sandbox/sessions', {})).status).toBe(201);
    const { sandbox } = server;

    const events = await walk(server, '/sessions/default/events', 3);
    expect(events.items).toEqual(sandbox.events.list()); // oldest first
    expect(events.items).toHaveLength(14);
    expect(events.pages).toBe(5);
    expect(JSON.parse(JSON.stringify((await walk(server, '/sessions/default/deliveries', 2)).items))).toEqual(
      JSON.parse(JSON.stringify(sandbox.webhooks.deliveries())),
    );
    const dead = await walk(server, '/sessions/default/dead-letters', 2);
    expect(dead.items.map((d) => (d as { id: string }).id)).toEqual(sandbox.webhooks.deadLetters().map((d) => d.id));
    expect(dead.items).toHaveLength(7);
    expect((await walk(server, '/sessions/default/keys', 2)).items).toEqual(sandbox.keys.list());
    const calls = await walk(server, '/sessions/default/calls', 3);
    expect(calls.items.map((c) => (c as { id: string }).id)).toEqual(sandbox.calls.list().map((c) => c.id)); // newest first
    for (const c of calls.items as Array<{ id: string; timeline: { webhooks: unknown[] } }>) {
      const attempts = sandbox.webhooks
        .deliveries()
        .filter((d) => (d.event.data as { id: string }).id === c.id)
        .flatMap((d) => d.attempts);
      expect(c.timeline.webhooks.length).toBeGreaterThan(1);
      expect(c.timeline.webhooks).toHaveLength(attempts.length); // every attempt of its call.completed
    }
    const sessions = await walk(server, '/sessions', 2);
    expect(sessions.items.map((s) => (s as { id: string }).id)[0]).toBe('default');
    expect(sessions.items).toHaveLength(5);

    // The default limit is 50, as on /v1.
    const first = await call(server, 'GET', '/__sandbox/sessions/default/events');
    expect(first.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(first.body.data).toHaveLength(14);
  });

  it('a bad limit or cursor, an unknown or repeated parameter is a 400 naming it', async () => {
    await call(server, 'POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' }, 'SVC_TEST_bad');
    await call(server, 'POST', '/__sandbox/sessions/default/advance', { duration: '2s' });
    const page = await call(server, 'GET', '/__sandbox/sessions/default/events?limit=1');
    const cursor = page.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=forged', 'cursor'],
      [`cursor=${encodeURIComponent(cursor.slice(0, -2))}xx`, 'cursor'],
      ['limt=5', 'limt'],
      ['limit=1&limit=2', 'limit'],
    ]) {
      for (const list of [
        '/sessions',
        '/sessions/default/events',
        '/sessions/default/deliveries',
        '/sessions/default/dead-letters',
        '/sessions/default/keys',
        '/sessions/default/calls',
      ]) {
        const res = await call(server, 'GET', `/__sandbox${list}?${query}`);
        expect({ list, query, status: res.status, param: res.body.error?.param }).toEqual({ list, query, status: 400, param });
      }
    }
    // A cursor of another list, or of another session, is not a cursor of this one.
    expect((await call(server, 'GET', `/__sandbox/sessions/default/calls?cursor=${encodeURIComponent(cursor)}`)).body.error.param).toBe(
      'cursor',
    );
    const other = (await call(server, 'POST', '/__sandbox/sessions', {})).body.id as string;
    expect((await call(server, 'GET', `/__sandbox/sessions/${other}/events?cursor=${encodeURIComponent(cursor)}`)).body.error.param).toBe(
      'cursor',
    );
    // A cursor from before a reset is refused, as on /v1.
    await call(server, 'POST', '/__sandbox/sessions/default/reset');
    expect((await call(server, 'GET', `/__sandbox/sessions/default/events?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
  });

  it('a stream says `reset` when the session is reset, by the control API or by the library, then streams the new log from position 1', async () => {
    const abort = new AbortController();
    const { frames, readChunk } = await openStream(server, abort.signal);
    const until = async (done: () => boolean) => {
      while (!done()) await readChunk();
    };
    await until(() => frames.some((f) => f.event === 'change'));
    server.sandbox.reset(); // the library's own reset: no control request tells the stream
    await until(() => frames.some((f) => f.event === 'reset'));
    await call(server, 'POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' }, 'SVC_TEST_again');
    await until(() => frames.some((f) => f.event === 'event'));
    const after = frames.slice(frames.findIndex((f) => f.event === 'reset'));
    expect(after.map((f) => f.event).slice(0, 3)).toEqual(['reset', 'change', 'event']);
    expect(after[2]).toMatchObject({ id: '1', data: { type: 'call.started' } });
    abort.abort();
  });

  it('the OpenAPI document describes the pages', async () => {
    const doc = (await call(server, 'GET', '/__sandbox/openapi.json')).body;
    const op = doc.paths['/__sandbox/sessions/{s}/events'].get;
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['path:s', 'query:limit', 'query:cursor']);
    expect(op.responses['200'].content['application/json'].schema.required).toEqual(['data', 'next_cursor', 'has_more']);
  });
});

describe('advance and streams read the log by position', () => {
  let server: SandboxServer;
  /** Events in the log once filled. */
  let total = 0;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 6 });
    await fill(server, 2400); // 12,000 events, about 10 MB of frames: more than loopback TCP buffers hold
    total = server.sandbox.events.list().length;
  }, 60_000);
  afterAll(() => server.close());

  it("advance's events are exactly the events the advance made, with a stream open or not, on a big log", async () => {
    const abort = new AbortController();
    for (const streaming of [false, true]) {
      if (streaming)
        await fetch(`${server.url}/__sandbox/sessions/default/stream`, {
          signal: abort.signal,
          headers: { 'last-event-id': String(total) },
        });
      const before = server.sandbox.events.list().length;
      for (let i = 0; i < 3; i++)
        expect((await call(server, 'POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' }, 'SVC_TEST_adv')).status).toBe(201);
      const started = server.sandbox.events.list().length; // call.started is emitted by the request itself
      const res = await call(server, 'POST', '/__sandbox/sessions/default/advance', { duration: '2s' });
      expect(res.status).toBe(200);
      expect(res.body.events).toEqual(server.sandbox.events.list().slice(started));
      expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['call.completed', 'call.completed', 'call.completed']);
      expect(started - before).toBe(3);
      expect((await call(server, 'POST', '/__sandbox/sessions/default/advance', { duration: '1ms' })).body.events).toEqual([]);
    }
    abort.abort();
    total = server.sandbox.events.list().length;
  });

  it('a stream catches up on a big log in order and complete for a reader that reads slowly, with live events arriving meanwhile', async () => {
    const abort = new AbortController();
    const { frames, readChunk } = await openStream(server, abort.signal);
    let live = 0;
    while (frames.filter((f) => f.event === 'event').length < total + live) {
      if (!(await readChunk())) break;
      // A slow reader: it yields to the server between chunks, and new events land meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      if (live < 6 && frames.length > 2000 * (live + 1)) {
        await call(server, 'POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' }, 'SVC_TEST_live');
        live += 1;
      }
    }
    abort.abort();
    const events = frames.filter((f) => f.event === 'event');
    expect(events.map((f) => Number(f.id))).toEqual(Array.from({ length: total + live }, (_, i) => i + 1));
    const log = server.sandbox.events.list();
    expect(events.map((f) => (f.data as { id: string }).id)).toEqual(log.map((e) => e.id));
    expect(events.at(-1)!.data).toEqual(log.at(-1));
    total = log.length;
  });

  it('a paused reader makes the server read no more of the log than a page past what the socket takes, and gets the rest when it reads again', async () => {
    // What the server's streams read from the log for their readers, chunk by chunk.
    const chunks: number[] = [];
    const nextChunk = (SessionStreams.prototype as unknown as { nextChunk: (...args: unknown[]) => Uint8Array | null }).nextChunk;
    const spy = vi
      .spyOn(SessionStreams.prototype as unknown as { nextChunk: (...args: unknown[]) => Uint8Array | null }, 'nextChunk')
      .mockImplementation(function (this: unknown, ...args) {
        const chunk = nextChunk.apply(this, args);
        if (chunk) chunks.push(chunk.byteLength);
        return chunk;
      });
    // The moment the socket's buffers are full: the server's write of the stream says so (false), and it waits for 'drain'.
    let full!: () => void;
    const filled = new Promise<void>((resolve) => (full = resolve));
    const write = ServerResponse.prototype.write as (this: ServerResponse, ...args: unknown[]) => boolean;
    const writes = vi.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (this: ServerResponse, ...args: unknown[]) {
      const ok = write.apply(this, args);
      if (!ok && this.req.url?.endsWith('/stream')) full();
      return ok;
    } as typeof ServerResponse.prototype.write);
    const produced = () => chunks.reduce((a, b) => a + b, 0);
    const logBytes = server.sandbox.events
      .list()
      .reduce((n, e, i) => n + `id: ${i + 1}\nevent: event\ndata: ${JSON.stringify(e)}\n\n`.length, 0);
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    try {
      const received: Buffer[] = [];
      const text = () => Buffer.concat(received).toString('utf8');
      let last!: () => void;
      const complete = new Promise<void>((resolve) => (last = resolve));
      socket.on('data', (data) => {
        received.push(data);
        if (text().includes(`\nid: ${total}\n`)) last();
      });
      socket.pause(); // reads nothing: the kernel's buffers fill, then the server's writes wait
      socket.write(`GET /__sandbox/sessions/default/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      await within(filled, 10_000, 'the server finding the socket full');
      // A read the stream had begun ends within a turn of the event loop; a server that went on
      // reading past a full socket would have read the whole log (all in microtasks) by then.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(produced()).toBeGreaterThan(0);
      // Stopped well short of the log: the rest stays in the log, not in a queue of the server.
      expect(produced()).toBeLessThan(logBytes / 2);
      // Every chunk is a page: at most PAGE_BYTES and one event (frames of ~4 KB at most here).
      expect(Math.max(...chunks)).toBeLessThan(PAGE_BYTES + 8 * 1024);
      // Reading again, the reader gets everything, in order.
      socket.resume();
      await within(complete, 20_000, 'the rest of the log after reading again');
      const body = text().slice(text().indexOf('\r\n\r\n') + 4);
      // Chunked transfer encoding: drop the chunk-size lines between the chunks.
      const frames: Frame[] = [];
      parseFrames(`\r\n${body}`.replace(/\r\n[0-9a-f]+\r\n/g, ''), frames);
      const ids = frames.filter((f) => f.event === 'event').map((f) => Number(f.id));
      expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    } finally {
      socket.destroy();
      spy.mockRestore();
      writes.mockRestore();
    }
  });
});
