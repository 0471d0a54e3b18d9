import { connect } from 'node:net';
import { afterEach, describe } from 'vitest';
import { createSandbox, SandboxError, startServer, type SandboxServer } from '../../src/index.js';
import { expect, test } from '../../src/vitest.js';
import { within } from '../support/within.js';

/**
 * The request journal: `sandbox.requests.list(filter?)`, the
 * `toHaveReceived` matcher and `GET /__sandbox/sessions/{s}/requests`, used as a suite would
 * use them: to assert what its client sent and what the sandbox answered.
 */
const KEY = 'SVC_TEST_journal';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const CALL = JSON.stringify({ to: '+14155550123', from: '+14155550100' });

describe('sandbox.requests', () => {
  test('lists every answered request, oldest first, with its documented path, status, error code, key and virtual time', async ({
    sandbox,
  }) => {
    const placed = await (await fetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: CALL })).json();
    await sandbox.advance('2s');
    await fetch(`${sandbox.baseUrl}/v1/calls/${placed.id}`, { headers });
    await fetch(`${sandbox.baseUrl}/v1/calls`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ to: '+15005550001', from: '+14155550100' }),
    });
    await fetch(`${sandbox.baseUrl}/v1/call`, { headers });
    await fetch(`${sandbox.baseUrl}/v1/calls`);
    const journal = sandbox.requests.list();
    expect(journal.map((r) => [r.method, r.path, r.status, r.errorCode])).toEqual([
      ['POST', '/v1/calls', 201, null],
      ['GET', '/v1/calls/{id}', 200, null],
      ['POST', '/v1/calls', 422, 'unreachable_destination'],
      ['GET', '/v1/call', 404, 'not_found'],
      ['GET', '/v1/calls', 401, 'invalid_api_key'],
    ]);
    expect(journal[1]).toMatchObject({
      target: `/v1/calls/${placed.id}`,
      apiKey: KEY,
      at: '2026-01-01T00:00:02.000Z',
      requestId: expect.stringMatching(/^req_/),
    });
    expect(journal[4]!.apiKey).toBeNull();
    expect(sandbox.requests.list({ method: 'POST', status: 422 })).toHaveLength(1);
    expect(sandbox.requests.list({ path: `/v1/calls/${placed.id}` })).toHaveLength(1);
    expect(sandbox.requests.list({ errorCode: 'not_found' }).map((r) => r.target)).toEqual(['/v1/call']);
    // Copies: changing what list() gave changes nothing.
    journal[0]!.status = 500;
    expect(sandbox.requests.list()[0]!.status).toBe(201);
    expect(() => sandbox.requests.list({ method: 'post' } as never)).toThrow(SandboxError);
  });

  test('toHaveReceived matches a request, a 429 and its retry included, and says what was received when none matches', async ({
    sandbox,
  }) => {
    for (let i = 0; i < 101; i++) await fetch(`${sandbox.baseUrl}/v1/calls?limit=1`, { headers });
    await sandbox.advance('1s');
    await fetch(`${sandbox.baseUrl}/v1/calls?limit=1`, { headers });
    expect(sandbox).toHaveReceived({ method: 'GET', path: '/v1/calls', status: 429, errorCode: 'rate_limited' });
    expect(sandbox.requests.list({ status: 429 })).toHaveLength(1);
    expect(sandbox.requests.list().at(-1)).toMatchObject({ status: 200, at: '2026-01-01T00:00:01.000Z' });
    expect(sandbox).not.toHaveReceived({ method: 'DELETE' });
    expect(() => expect(sandbox).toHaveReceived({ path: '/v1/webhooks' })).toThrow(
      /to have received a request matching .*GET \/v1\/calls 200/s,
    );
  });

  test('an injected network fault is status 0, network_error; reset empties the journal and the same requests journal the same', async ({
    sandbox,
  }) => {
    sandbox.faults.inject({ path: '/v1/calls', network: true });
    await expect(fetch(`${sandbox.baseUrl}/v1/calls`, { headers })).rejects.toThrow();
    expect(sandbox.requests.list()).toMatchObject([{ status: 0, errorCode: 'network_error' }]);
    const run = async () => {
      await fetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: CALL });
      await sandbox.advance('70s');
      return JSON.stringify(sandbox.requests.list());
    };
    sandbox.reset();
    expect(sandbox.requests.list()).toEqual([]);
    const first = await run();
    sandbox.reset();
    expect(await run()).toBe(first);
  });
});

describe('maxJournalEntries', () => {
  test('keeps the latest requests, in arrival order; coverage still counts the forgotten ones; 0 keeps none', async () => {
    const kept = createSandbox({ maxJournalEntries: 2 });
    const none = createSandbox({ maxJournalEntries: 0 });
    try {
      for (const sandbox of [kept, none]) {
        await sandbox.fetch('/v1/calls', { method: 'POST', headers, body: CALL });
        await sandbox.fetch('/v1/calls', { method: 'POST', headers, body: '{' });
        await sandbox.fetch('/v1/calls', { headers });
        await sandbox.fetch('/v1/numbers?limit=1', { headers });
      }
      expect(kept.requests.list().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /v1/calls 200', 'GET /v1/numbers 200']);
      expect(none.requests.list()).toEqual([]);
      for (const sandbox of [kept, none]) {
        const { endpoints } = sandbox.coverage();
        expect(endpoints['POST /v1/calls']).toMatchObject({ '201': 1, '400': 1 });
        expect(endpoints['GET /v1/calls']).toMatchObject({ '200': 1 });
      }
    } finally {
      kept.close();
      none.close();
    }
  });

  test('a value that is not a whole number from 0 up is refused, naming the option', () => {
    for (const bad of [-1, 1.5, '10'])
      expect(() => createSandbox({ maxJournalEntries: bad as number })).toThrow(
        expect.objectContaining({ name: 'SandboxError', code: 'invalid_options', param: 'maxJournalEntries' }),
      );
  });
});

describe('the journal in arrival order', () => {
  /** The first `n` request ids a sandbox of this seed draws: the order requests reached its pipeline. */
  async function drawnIds(seed: number, n: number): Promise<string[]> {
    const fresh = createSandbox({ seed });
    try {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await fresh.fetch('/v1/calls')).headers.get('x-request-id')!);
      return ids;
    } finally {
      fresh.close();
    }
  }

  test('regression: after 120 concurrent POSTs the journal listed the 20 × 429 before the 100 × 201; it lists them as they arrived', async ({
    sandbox,
  }) => {
    const answers = await Promise.all(
      Array.from({ length: 120 }, () => fetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: CALL })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(100);
    const journal = sandbox.requests.list();
    // The first 100 to arrive took the window's 100; the 20 after them were refused.
    expect(journal.map((r) => r.status)).toEqual([...Array(100).fill(201), ...Array(20).fill(429)]);
    // Each request id is drawn as its request arrives: the journal holds them in the order they were drawn.
    expect(journal.map((r) => r.requestId)).toEqual(await drawnIds(0, 120));
    expect(new Set(answers.map((r) => r.headers.get('x-request-id')))).toEqual(new Set(journal.map((r) => r.requestId)));
  });

  test('a request whose body is still arriving keeps its place, and does not hold back the requests after it', async () => {
    const sandbox = createSandbox();
    try {
      let send!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (controller) => void (send = controller) });
      const slow = sandbox.handle(
        new Request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit),
      );
      await sandbox.fetch('/v1/calls', { headers });
      await sandbox.fetch('/v1/numbers', { headers });
      expect(sandbox.requests.list().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /v1/calls 200', 'GET /v1/numbers 200']);
      send.enqueue(new TextEncoder().encode(CALL));
      send.close();
      expect((await slow).status).toBe(201);
      expect(sandbox.requests.list().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /v1/calls 201',
        'GET /v1/calls 200',
        'GET /v1/numbers 200',
      ]);
    } finally {
      sandbox.close();
    }
  });
});

describe('the journal through the server', () => {
  let server: SandboxServer | undefined;
  afterEach(async () => server?.close());

  test("GET /__sandbox/sessions/{s}/requests pages a session's journal; control requests are not in it", async () => {
    server = await startServer({ port: 0, seed: 2 });
    const made = await (
      await fetch(`${server.url}/__sandbox/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json();
    for (let i = 0; i < 3; i++)
      await fetch(`${server.url}/v1/calls`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${made.apiKey}` },
        body: CALL,
      });
    const page = await (await fetch(`${server.url}/__sandbox/sessions/${made.id}/requests?limit=2`)).json();
    expect(page.data.map((r: { method: string; path: string; status: number }) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/calls 201',
      'POST /v1/calls 201',
    ]);
    expect(page.has_more).toBe(true);
    const rest = await (
      await fetch(`${server.url}/__sandbox/sessions/${made.id}/requests?cursor=${encodeURIComponent(page.next_cursor)}`)
    ).json();
    expect(rest).toMatchObject({ data: [{ apiKey: made.apiKey }], has_more: false });
    expect((await (await fetch(`${server.url}/__sandbox/sessions/default/requests`)).json()).data).toEqual([]);
  });

  test('120 concurrent POSTs over HTTP are listed as they arrived: the 100 × 201, then the 20 × 429', async () => {
    server = await startServer({ port: 0, seed: 3 });
    const statuses = await Promise.all(
      Array.from({ length: 120 }, async () => (await fetch(`${server!.url}/v1/calls`, { method: 'POST', headers, body: CALL })).status),
    );
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const page = await (await fetch(`${server.url}/__sandbox/sessions/default/requests?limit=200`)).json();
    expect(page.data.map((r: { status: number }) => r.status)).toEqual([...Array(100).fill(201), ...Array(20).fill(429)]);
  });

  test('over HTTP, a request whose body is still arriving does not hold back the ones after it, and keeps its place', async () => {
    server = await startServer({ port: 0, seed: 3 });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    const answered = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => void (text += chunk));
      socket.once('close', () => resolve(text));
    });
    socket.write(
      `POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${CALL.length}\r\nConnection: close\r\n\r\n${CALL.slice(0, 10)}`,
    );
    // The sandbox refuses a snapshot while a body is being read: the POST has arrived.
    const arrived = async () => {
      for (;;) {
        try {
          server!.sandbox.snapshot();
        } catch {
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await within(arrived(), 5000, 'the POST reaching the sandbox');
    await fetch(`${server.url}/v1/calls`, { headers });
    const listed = async () =>
      (await (await fetch(`${server!.url}/__sandbox/sessions/default/requests`)).json()).data.map(
        (r: { method: string; status: number }) => `${r.method} ${r.status}`,
      );
    expect(await listed()).toEqual(['GET 200']);
    socket.end(CALL.slice(10));
    expect(await within(answered, 5000, 'the POST answered')).toMatch(/^HTTP\/1.1 201/);
    expect(await listed()).toEqual(['POST 201', 'GET 200']);
  });

  test('the library sandbox without listen() journals handle() and fetch() too', async () => {
    const sandbox = createSandbox();
    try {
      await sandbox.fetch('/v1/calls', { headers });
      await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/numbers?limit=1`, { headers }));
      expect(sandbox.requests.list().map((r) => r.path)).toEqual(['/v1/calls', '/v1/numbers']);
    } finally {
      sandbox.close();
    }
  });
});
