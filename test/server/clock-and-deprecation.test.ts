import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer, type ServerOptions } from '../../src/index.js';
import { fakeWall, WALL_CLOCK } from '../support/wall-clock.js';

/**
 * The server's clock modes, `Date` header and deprecation (docs/server.md), over real HTTP as
 * a Python, Go or Ruby suite drives them. Realtime sessions flow with a wall clock the test
 * moves (`fakeWall`): the client that would sleep `Retry-After` seconds lets that much wall
 * time pass at once instead.
 */
let server: SandboxServer;
let wall: ReturnType<typeof fakeWall>;
/** A server whose realtime sessions follow `wall`. */
const serverOn = (options: ServerOptions) => startServer({ port: 0, ...options, [WALL_CLOCK]: wall.wall } as ServerOptions);
beforeEach(async () => {
  wall = fakeWall();
  server = await serverOn({ seed: 3 });
});
afterEach(async () => {
  await server.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
const get = (key: string, path: string) => call('GET', path, undefined, { authorization: `Bearer ${key}` });

/**
 * A client hammering the API: 101 GET /v1/calls pipelined on one connection, started at the
 * beginning of a virtual second; answers the 429's status, headers and body. No wall time
 * passes meanwhile (a realtime session's wall clock is the test's), so the burst fits in one window.
 */
async function burstUntil429(key: string, session = 'default') {
  const now = Date.parse((await call('GET', '/__sandbox/sessions')).body.data.find((s: { id: string }) => s.id === session).now);
  await call('POST', `/__sandbox/sessions/${session}/advance`, { duration: 1000 - (now % 1000) });
  const { port } = new URL(server.url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(received).toString('utf8')));
    socket.on('error', reject);
    const request = (last: boolean) =>
      `GET /v1/calls HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\n${last ? 'connection: close\r\n' : ''}\r\n`;
    socket.write(Array.from({ length: 101 }, (_, i) => request(i === 100)).join(''));
  });
  const answers = text.split(/(?=HTTP\/1\.1 \d{3} )/);
  expect(answers.map((answer) => answer.slice(9, 12))).toEqual([...Array(100).fill('200'), '429']);
  const [head, rest] = answers[100]!.split('\r\n\r\n') as [string, string];
  const headers = new Headers(
    head
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
  );
  return { status: 429, headers, body: JSON.parse(/\{.*\}/.exec(rest)![0]) };
}

describe('clock modes through the server', () => {
  it("realtime session: a client's plain retry loop (sleep Retry-After, try again) gets through a genuine 429 on its first retry", async () => {
    const session = await call('POST', '/__sandbox/sessions', { clock: 'realtime' });
    expect(session.status).toBe(201);
    const key: string = session.body.apiKey;
    const refused = await burstUntil429(key, session.body.id);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.message).toMatch(/Wait 1 s \(the Retry-After header\) and retry\./);
    // The client as an SDK writes it: on 429, sleep Retry-After seconds (here: that much wall time passes), try again.
    let attempts = 0;
    let answer = refused;
    while (answer.status === 429 && attempts < 3) {
      await wall.tick(Number(answer.headers.get('retry-after')) * 1000);
      attempts++;
      answer = await get(key, '/v1/calls');
    }
    expect(answer.status).toBe(200);
    expect(attempts).toBe(1);
  });

  it("manual (the default): the 429 tells the user to advance the session's clock, and advancing gets through", async () => {
    const refused = await burstUntil429('SVC_TEST_someone');
    expect(refused.body.error.message).toMatch(
      /Retry after 1 s of virtual time: call sandbox\.advance\('1s'\) \(or POST \/__sandbox\/sessions\/\{s\}\/advance with \{"duration": "1s"\}\) — the sandbox's clock is manual/,
    );
    expect((await get('SVC_TEST_someone', '/v1/calls')).status).toBe(429);
    expect((await call('POST', '/__sandbox/sessions/default/advance', { duration: '1s' })).status).toBe(200);
    expect((await get('SVC_TEST_someone', '/v1/calls')).status).toBe(200);
  });

  it('startServer({ clock }) sets the default session and sessions that give none; a bad clock is a 400 naming it', async () => {
    await server.close();
    server = await serverOn({ clock: 'realtime' });
    const start = Date.parse('2026-01-01T00:00:00Z');
    expect(server.sandbox.now().getTime()).toBe(start);
    await wall.tick(30);
    expect(server.sandbox.now().getTime()).toBe(start + 30);
    const manual = await call('POST', '/__sandbox/sessions', { clock: 'manual' });
    const flowing = await call('POST', '/__sandbox/sessions', {}); // gives no clock: the server's
    await wall.tick(20);
    const now = async (id: string) => (await call('GET', '/__sandbox/sessions')).body.data.find((s: { id: string }) => s.id === id).now;
    expect(await now(manual.body.id)).toBe('2026-01-01T00:00:00.000Z');
    expect(await now(flowing.body.id)).toBe('2026-01-01T00:00:00.020Z');
    expect(await now('default')).toBe('2026-01-01T00:00:00.050Z');
    const bad = await call('POST', '/__sandbox/sessions', { clock: 'fast' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'clock' });
    expect(bad.body.error.message).toMatch(/"manual", "realtime"/);
    await expect(startServer({ port: 0, clock: 'fast' as never })).rejects.toMatchObject({ code: 'invalid_options', param: 'clock' });
  });
});

describe('the Date header', () => {
  it("is the session's virtual now, so Date, X-RateLimit-Reset and Retry-After agree", async () => {
    const first = await get('SVC_TEST_a', '/v1/calls');
    expect(first.headers.get('date')).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(Number(first.headers.get('x-ratelimit-reset')) - Date.parse(first.headers.get('date')!) / 1000).toBe(1);
    await call('POST', '/__sandbox/sessions/default/advance', { duration: '65s' });
    expect((await get('SVC_TEST_a', '/v1/calls')).headers.get('date')).toBe('Thu, 01 Jan 2026 00:01:05 GMT');
    // Another session's answers carry its own now; a control answer about a session, that session's.
    const other = await call('POST', '/__sandbox/sessions', { startTime: '2030-05-01T12:00:00Z' });
    expect(other.headers.get('date')).toBe('Thu, 01 Jan 2026 00:01:05 GMT'); // made through the server: the default session's now
    expect((await get(other.body.apiKey, '/v1/calls')).headers.get('date')).toBe('Wed, 01 May 2030 12:00:00 GMT');
    expect((await call('POST', `/__sandbox/sessions/${other.body.id}/advance`, { duration: '1h' })).headers.get('date')).toBe(
      'Wed, 01 May 2030 13:00:00 GMT',
    );
    expect((await call('GET', '/__sandbox/health')).headers.get('date')).toBe('Thu, 01 Jan 2026 00:01:05 GMT');
  });

  it('on a 429, Date plus Retry-After is the window end X-RateLimit-Reset names', async () => {
    const refused = await burstUntil429('SVC_TEST_b');
    const date = Date.parse(refused.headers.get('date')!) / 1000;
    expect(date + Number(refused.headers.get('retry-after'))).toBe(Number(refused.headers.get('x-ratelimit-reset')));
  });
});

describe('deprecation through the server', () => {
  it('a session made with `deprecation` marks every /v1 answer; other sessions stay unmarked', async () => {
    const session = await call('POST', '/__sandbox/sessions', {
      deprecation: { sunset: '2026-12-31T00:00:00Z', link: 'https://docs.example.com/v2' },
    });
    expect(session.status).toBe(201);
    for (const answer of [await get(session.body.apiKey, '/v1/calls'), await get(session.body.apiKey, '/v1/calls/call_missing')]) {
      expect(answer.headers.get('deprecation')).toBe('@1767225600');
      expect(answer.headers.get('sunset')).toBe('Thu, 31 Dec 2026 00:00:00 GMT');
      expect(answer.headers.get('link')).toBe('<https://docs.example.com/v2>; rel="successor-version"');
    }
    expect((await get('SVC_TEST_plain', '/v1/calls')).headers.has('deprecation')).toBe(false);
    const spec = (await call('GET', '/__sandbox/openapi.json')).body;
    expect(spec.paths['/v1/calls'].get.responses['200'].headers).toHaveProperty('Deprecation');
  });

  it('refuses a deprecation without a sunset or with one before its date, naming the field', async () => {
    const missing = await call('POST', '/__sandbox/sessions', { deprecation: { link: 'https://docs.example.com/v2' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('deprecation.sunset');
    const early = await call('POST', '/__sandbox/sessions', { deprecation: { sunset: '2025-01-01T00:00:00Z' } });
    expect(early.status).toBe(400);
    expect(early.body.error.param).toBe('deprecation.sunset');
  });
});
