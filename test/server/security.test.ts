import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer, type ServerOptions } from '../../src/index.js';
import { HEAP } from '../../src/server/capacity.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';
import { within } from '../support/within.js';

/**
 * The server as a security boundary (docs/server.md, "Security model"): only the user's own
 * programs reach the control API and the console. Each test is an attack a hostile page, webhook
 * or client once made, sent as the attacker would send it, and each checks that nothing changed.
 */
let server: SandboxServer;
let port: number;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 5 });
  port = Number(new URL(server.url).port);
});
afterEach(async () => {
  await server.close();
  await closeReceivers();
});

/** A request with exactly these headers (node:http, so Host and Origin are ours to set). */
function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Raw bytes on a socket, and everything the server answers until it closes the connection. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket
      .on('data', (chunk) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}
const jsonOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

const JSON_TYPE = { 'content-type': 'application/json' };
const KEY = 'SVC_TEST_owner';

/** What an attack could have changed: the default session's clock, keys, faults, events and sessions. */
async function state() {
  const sessions = (await send('GET', '/__sandbox/sessions')).body.data.map((s: { id: string; now: string }) => `${s.id}@${s.now}`);
  return {
    sessions,
    keys: server.sandbox.keys.list().length,
    faults: server.sandbox.faults.list().length,
    events: server.sandbox.events.list().length,
  };
}

describe('a malformed percent-encoding', () => {
  // Regression: `show` answered 500 "URI malformed" to %ff in a path; the live server must answer it 404 or 400 on every road.
  it('answers 404 or 400 JSON on /v1 and the control API, whatever the method, never a 500', async () => {
    const paths = [
      '/%ff',
      '/v1/%ff',
      '/v1/calls/%ff',
      '/v1/recordings/%ff/audio',
      '/v1/calls/%e0%a4',
      '/__sandbox/%ff',
      '/__sandbox/sessions/%ff',
      '/__sandbox/sessions/%ff/advance',
      '/__sandbox/sessions/default/keys/%ff',
      '/__sandbox/sessions/default/calls/%ff/answer',
      '/__sandbox/sessions/default/network/%ff',
      '/__sandbox/sessions/default/console/recordings/%ff/audio',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        const res = await send(
          method,
          path,
          { authorization: `Bearer ${KEY}`, ...JSON_TYPE },
          method === 'GET' || method === 'DELETE' ? undefined : '{}',
        );
        expect({ method, path, status: [400, 404, 405].includes(res.status) }).toEqual({ method, path, status: true });
        expect(res.body.error.code).toMatch(/^(not_found|invalid_parameter|method_not_allowed)$/);
      }
    }
  });
});

describe('a webhook cannot drive the server', () => {
  it('regression: a subscription to any loopback spelling of the server at its port is 400, whatever the case or form', async () => {
    const spellings = [
      `http://localhost:${port}/__sandbox/sessions/default/reset`,
      `http://LOCALHOST:${port}/__sandbox/sessions/default/reset`,
      `http://localhost.:${port}/x`,
      `http://127.0.0.1:${port}/x`,
      `http://127.0.0.2:${port}/x`,
      `http://127.1:${port}/x`,
      `http://2130706433:${port}/x`,
      `http://0x7f.0.0.1:${port}/x`,
      `http://[::1]:${port}/x`,
      `http://[0:0:0:0:0:0:0:1]:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      `http://0.0.0.0:${port}/x`,
      `https://localhost:${port}/x`,
      `https://app.localhost:${port}/x`,
    ];
    for (const url of spellings) {
      const res = await send(
        'POST',
        '/v1/webhooks',
        { authorization: `Bearer ${KEY}`, ...JSON_TYPE },
        JSON.stringify({ url, events: ['call.completed'] }),
      );
      expect({ url, status: res.status, param: res.body.error?.param }).toEqual({ url, status: 400, param: 'url' });
      expect(res.body.error.message).toMatch(/sandbox itself|https/);
    }
    // A receiver of the user's own on another port is fine.
    const receiver = await startReceiver();
    const ok = await send(
      'POST',
      '/v1/webhooks',
      { authorization: `Bearer ${KEY}`, ...JSON_TYPE },
      JSON.stringify({ url: `http://localhost:${receiver.port}/hooks`, events: ['call.completed'] }),
    );
    expect(ok.status).toBe(201);
  });

  it("a request carrying a delivery's headers is refused on the control API, however it got there", async () => {
    const before = await state();
    const res = await send(
      'POST',
      '/__sandbox/sessions/default/advance',
      { ...JSON_TYPE, 'x-service-event-id': 'evt_x', 'x-service-signature': 'ab' },
      JSON.stringify({ duration: '25h' }),
    );
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden' });
    expect(await state()).toEqual(before);
  });
});

describe('a page on another origin cannot drive the control API (CSRF)', () => {
  it('regression: no-cors POSTs with a foreign Origin (no body, text/plain, a form, multipart) are 403/400 and change nothing', async () => {
    server.sandbox.faults.list(); // the default session exists
    const before = await state();
    const evil = { origin: 'http://evil.example' };
    const attempts = [
      send('POST', '/__sandbox/sessions/default/reset', evil),
      send('POST', '/__sandbox/sessions/default/advance', { ...evil, 'content-type': 'text/plain' }, '{"duration":"25h"}'),
      send('POST', '/__sandbox/sessions', { ...evil, 'content-type': 'application/x-www-form-urlencoded' }, 'seed=1'),
      send('POST', '/__sandbox/sessions/default/keys', { ...evil, 'content-type': 'multipart/form-data; boundary=x' }, '--x--'),
      send('POST', '/__sandbox/sessions/default/faults', { ...evil, ...JSON_TYPE }, JSON.stringify({ status: 503 })),
      send('POST', '/__sandbox/sessions/default/dead-letters/dlv_x/replay', evil),
      send('GET', '/__sandbox/sessions', evil),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', param: 'Origin' });
    }
    expect(await state()).toEqual(before);
  });

  it('regression: a body that is not JSON is refused even with no Origin (an old browser, a form), and changes nothing', async () => {
    const before = await state();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const res = await send('POST', '/__sandbox/sessions/default/advance', type ? { 'content-type': type } : {}, '{"duration":"25h"}');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'unsupported_content_type', param: 'Content-Type' });
      expect(res.body.error.message).toMatch(/Content-Type: application\/json/);
    }
    // Regression: the hint spoke only of JavaScript's fetch; it speaks the language the User-Agent names.
    const hints: [string, RegExp][] = [
      [
        'Python-urllib/3.12',
        /Python: urllib\.request\.Request\(url, data=json\.dumps\(body\)\.encode\(\), headers=\{"Content-Type": "application\/json"\}\)/,
      ],
      ['Go-http-client/1.1', /Go: req\.Header\.Set\("Content-Type", "application\/json"\)/],
      ['Ruby', /Ruby: Net::HTTP\.post\(uri, body\.to_json, "Content-Type" => "application\/json"\)/],
      ['curl/8.5.0', /curl: add -H 'Content-Type: application\/json' \(-d alone sends application\/x-www-form-urlencoded\)/],
      ['node', /JavaScript: fetch\(url, \{ method: 'POST', headers: \{ 'content-type': 'application\/json' \}/],
      ['SomeClient/1.0', /Set the request header Content-Type: application\/json and send the body as JSON text\.$/],
    ];
    for (const [agent, hint] of hints) {
      const res = await send(
        'POST',
        '/__sandbox/sessions/default/advance',
        { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': agent },
        '{"duration":"25h"}',
      );
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(hint);
      for (const other of hints.filter(([a]) => a !== agent)) expect(res.body.error.message).not.toMatch(other[1]);
    }
    const crossSite = await send('POST', '/__sandbox/sessions/default/reset', { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await state()).toEqual(before);
  });

  it("the console's own origin, any loopback spelling of it, and programs that send no Origin are served", async () => {
    for (const origin of [server.url, `http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const res = await send('POST', '/__sandbox/sessions/default/advance', { origin, ...JSON_TYPE }, JSON.stringify({ duration: '1s' }));
      expect({ origin, status: res.status }).toEqual({ origin, status: 200 });
    }
    // Same host, another port: another origin.
    const other = await send('POST', '/__sandbox/sessions/default/reset', { origin: `http://127.0.0.1:${port + 1}` });
    expect(other.status).toBe(403);
    expect((await send('POST', '/__sandbox/sessions/default/reset')).status).toBe(204);
  });
});

describe('the Host must be this server (DNS rebinding)', () => {
  it('regression: a foreign Host is 403 on the API, the control API and the console, and an absolute-form target too', async () => {
    const before = await state();
    for (const [method, path, headers, body] of [
      ['GET', '/__sandbox/sessions', {}, undefined],
      ['POST', '/__sandbox/sessions', JSON_TYPE, '{}'],
      ['GET', '/__sandbox/console', {}, undefined],
      ['POST', '/v1/calls', { authorization: `Bearer ${KEY}`, ...JSON_TYPE }, JSON.stringify({ to: '+14155550123', from: '+14155550100' })],
    ] as const) {
      const res = await send(method, path, { ...headers, host: `evil.example:${port}` }, body);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.body.error).toMatchObject({ code: 'forbidden', param: 'Host' });
      expect(res.body.error.message).toMatch(/--allowed-host evil\.example/);
    }
    const absolute = await raw(
      `GET http://evil.example/__sandbox/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute).toMatch(/^HTTP\/1\.1 403 /);
    expect(jsonOf(absolute).error.param).toBe('Host');
    expect(server.sandbox.calls.list()).toEqual([]);
    expect(await state()).toEqual(before);
  });

  it('IP addresses, localhost, names under .localhost and --allowed-host names are served', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
      '10.0.0.7',
    ]) {
      expect({ host, status: (await send('GET', '/__sandbox/health', { host })).status }).toEqual({ host, status: 200 });
    }
    const named = await startServer({ port: 0, allowedHosts: ['devbox.test'] });
    try {
      const res = await fetch(`${named.url}/__sandbox/health`);
      expect(res.status).toBe(200);
      const viaName = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: Number(new URL(named.url).port),
            path: '/__sandbox/health',
            headers: { host: 'DevBox.test' },
            agent: false,
          },
          (r) => {
            r.resume();
            resolve(r.statusCode!);
          },
        );
        req.on('error', reject).end();
      });
      expect(viaName).toBe(200);
    } finally {
      await named.close();
    }
    await expect(startServer({ port: 0, allowedHosts: ['http://x.test'] })).rejects.toMatchObject({
      code: 'invalid_options',
      param: 'allowedHosts',
    });
  });
});

describe('keys are what a session made', () => {
  it('regression: a forged SVC_TEST_ses_<id>_… key is 401 and acts nowhere; the issued key works', async () => {
    const made = (await send('POST', '/__sandbox/sessions', JSON_TYPE, '{}')).body as { id: string; apiKey: string };
    const forged = `SVC_TEST_${made.id}_anything`;
    const res = await send(
      'POST',
      '/v1/calls',
      { authorization: `Bearer ${forged}`, ...JSON_TYPE },
      JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    );
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    expect(res.body.error.message).toMatch(/never issued/);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect((await send('GET', `/__sandbox/sessions/${made.id}/events`)).body.data).toEqual([]);
    const good = await send(
      'POST',
      '/v1/calls',
      { authorization: `Bearer ${made.apiKey}`, ...JSON_TYPE },
      JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    );
    expect(good.status).toBe(201);
  });

  it("session ids and the server's key are unguessable unless a seed is asked for, and repeatable when it is", async () => {
    const unseeded = [await startServer({ port: 0 }), await startServer({ port: 0 })];
    const seeded = [await startServer({ port: 0, seed: 9 }), await startServer({ port: 0, seed: 9 })];
    try {
      const first = async (s: SandboxServer) => {
        const res = await fetch(`${s.url}/__sandbox/sessions`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
        const body = (await res.json()) as { id: string; apiKey: string };
        return `${body.id} ${body.apiKey} ${s.apiKey}`;
      };
      const [a, b] = [await first(unseeded[0]!), await first(unseeded[1]!)];
      expect(a).not.toBe(b);
      expect(a.split(' ').every((part, i) => part !== b.split(' ')[i])).toBe(true);
      expect(await first(seeded[0]!)).toBe(await first(seeded[1]!));
      expect(unseeded[0]!.apiKey).toMatch(/^SVC_TEST_[0-9A-Za-z]{16}$/);
      expect(unseeded[0]!.apiKey).toBe(unseeded[0]!.apiKey); // made once
    } finally {
      await Promise.all([...unseeded, ...seeded].map((s) => s.close()));
    }
  });
});

describe('every refusal the server makes itself is JSON', () => {
  it('regression: CONNECT, a method Node does not know and oversized headers get a JSON error, then the socket closes', async () => {
    const connectAnswer = await raw(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
    expect(connectAnswer).toMatch(/^HTTP\/1\.1 405 /);
    expect(jsonOf(connectAnswer).error.code).toBe('method_not_allowed');
    const badMethod = await raw(`FROB /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(badMethod).toMatch(/^HTTP\/1\.1 (400|405) /);
    expect(jsonOf(badMethod).error.code).toMatch(/method_not_allowed|invalid_parameter/);
    const huge = await raw(`GET /v1/calls?q=${'a'.repeat(21_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonOf(huge).error.message).toMatch(/shorten/);
    // The server is still up.
    expect((await send('GET', '/__sandbox/health')).status).toBe(200);
  });

  it('regression: a 405 for a method Node does not know and a 431 carry the rate-limit headers of the valid key they name, counted in its window', async () => {
    const key = server.apiKey;
    const header = (answer: string, name: string) => new RegExp(`\r\n${name}: ([^\r]*)\r\n`, 'i').exec(answer)?.[1];
    const patch = await raw(`PATCH /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(patch).toMatch(/^HTTP\/1\.1 405 /);
    const left = Number(header(patch, 'x-ratelimit-remaining'));
    const frob = await raw(`FROB /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect(frob).toMatch(/^HTTP\/1\.1 405 /);
    expect(header(frob, 'x-ratelimit-limit')).toBe(header(patch, 'x-ratelimit-limit'));
    expect(Number(header(frob, 'x-ratelimit-remaining'))).toBe(left - 1);
    expect(header(frob, 'x-ratelimit-reset')).toBe(header(patch, 'x-ratelimit-reset'));
    const huge = await raw(
      `GET /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Pad: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(Number(header(huge, 'x-ratelimit-remaining'))).toBe(left - 2);
    // No valid key, no rate-limit headers (as a 401's forged key gets its own answer).
    const keyless = await raw(`FROB /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(header(keyless, 'x-ratelimit-limit')).toBeUndefined();
  });

  it("regression: after a 413 the kept-alive client's next request is answered (the connection is closed, not left hanging)", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (path: string, body: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path,
            agent,
            headers: { ...JSON_TYPE, 'content-length': String(Buffer.byteLength(body)) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const big = JSON.stringify({ duration: '1s', pad: 'x'.repeat(1_100_000) });
      const first = await post('/__sandbox/sessions/default/advance', big);
      expect(first).toEqual({ status: 413, connection: 'close' });
      const second = await post('/__sandbox/sessions/default/advance', JSON.stringify({ duration: '1s' }));
      expect(second.status).toBe(200);
      const apiBig = await post('/v1/calls', big);
      expect(apiBig.status).toBe(401); // no key: refused before the body is read, and still answered
      expect((await post('/__sandbox/sessions/default/advance', JSON.stringify({ duration: '1s' }))).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

/**
 * One client socket, read as HTTP/1.1 answers arrive on it: `answer()` resolves with the next
 * whole answer (status line, headers, a body of Content-Length bytes or in chunks), `ended` once
 * the server has closed its side (an error after the end, such as a reset, counts as closed too).
 */
function clientSocket(socket: Socket) {
  let buffer = Buffer.alloc(0);
  let wake: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake?.();
  });
  const ended = new Promise<'ended'>((resolve) => {
    socket.once('end', () => resolve('ended'));
    socket.once('close', () => resolve('ended'));
    socket.on('error', () => resolve('ended'));
  });
  /** The body starting at `at` and where the answer ends, or null while it is incomplete. */
  function bodyFrom(at: number, headers: Record<string, string>): { body: Buffer; end: number } | null {
    if (headers['transfer-encoding'] !== 'chunked') {
      const length = Number(headers['content-length'] ?? 0);
      return buffer.length >= at + length ? { body: buffer.subarray(at, at + length), end: at + length } : null;
    }
    const chunks: Buffer[] = [];
    for (let i = at; ; ) {
      const line = buffer.indexOf('\r\n', i);
      if (line < 0) return null;
      const size = parseInt(buffer.subarray(i, line).toString('latin1'), 16);
      if (buffer.length < line + 2 + size + 2) return null;
      if (size === 0) return { body: Buffer.concat(chunks), end: line + 4 };
      chunks.push(buffer.subarray(line + 2, line + 2 + size));
      i = line + 2 + size + 2;
    }
  }
  async function answer(): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    for (;;) {
      const head = buffer.indexOf('\r\n\r\n');
      if (head >= 0) {
        const [statusLine, ...lines] = buffer.subarray(0, head).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        const whole = bodyFrom(head + 4, headers);
        if (whole) {
          buffer = buffer.subarray(whole.end);
          return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(whole.body.toString('utf8')) };
        }
      }
      if (socket.readableEnded || socket.destroyed)
        throw new Error(`the socket closed before a whole answer came: ${buffer.toString('latin1').slice(0, 200)}`);
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), ended]);
      wake = null;
    }
  }
  return { answer, ended };
}

describe('connections after an early answer (docs/server.md)', () => {
  it('regression: on one raw socket, a request over 1 MiB is answered 413 with Connection: close and the server ends the socket (nothing waits on it); the next request, on a new socket, is answered', async () => {
    const socket = connect(port, '127.0.0.1');
    await within(new Promise((resolve) => socket.once('connect', resolve)), 5000, 'connect');
    const client = clientSocket(socket);
    const request = (body: string) =>
      `POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const call = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
    // The whole oversized request goes out, as a client that does not wait for 100-continue sends it.
    socket.write(request(JSON.stringify({ to: '+14155550123', from: '+14155550100', pad: 'x'.repeat(1_100_000) })));
    const first = await within(client.answer(), 5000, 'the 413');
    expect(first.status).toBe(413);
    expect(first.body.error.code).toBe('payload_too_large');
    // The server answered before reading the body (server.ts answer()): it closes the connection,
    // so the unread rest of the body is never read as the next request.
    expect(first.headers.connection).toBe('close');
    expect(await within(client.ended, 5000, 'the server ending the socket after its 413')).toBe('ended');
    socket.destroy();
    // The client opens a new socket, as a keep-alive agent does when told Connection: close.
    const next = connect(port, '127.0.0.1');
    const again = clientSocket(next);
    next.write(request(call));
    const second = await within(again.answer(), 5000, 'the request on a new socket');
    expect(second.status).toBe(201);
    expect(second.body.to).toBe('+14155550123');
    expect(second.headers.connection).toBe('keep-alive');
    next.destroy();
    expect(server.sandbox.calls.list().map((c) => c.to)).toEqual(['+14155550123']);
  });
});

describe('bounded by bytes, not only by count', () => {
  it('regression: a key over 200 characters is 401 (the key cache and rate windows hold keys)', async () => {
    const long = `SVC_TEST_${'a'.repeat(192)}`;
    const res = await send('GET', '/v1/calls', { authorization: `Bearer ${long}` });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/200 characters/);
    expect((await send('GET', '/v1/calls', { authorization: `Bearer ${long.slice(0, 200)}` })).status).toBe(200);
  });

  it('regression: a server holds at most maxSessions sessions, the default one counted; past it POST /sessions is 409 until one is deleted', async () => {
    const small = await startServer({ port: 0, maxSessions: 3 });
    try {
      const post = async () => {
        const res = await fetch(`${small.url}/__sandbox/sessions`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
        return { status: res.status, body: await res.json() };
      };
      const made = [await post(), await post()];
      expect(made.map((m) => m.status)).toEqual([201, 201]);
      const over = await post();
      expect(over.status).toBe(409);
      expect(over.body.error.message).toMatch(/holds 3 sessions, its limit: .*DELETE \/__sandbox\/sessions/);
      expect((await fetch(`${small.url}/__sandbox/sessions/${made[0]!.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await post()).status).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('regression: sessions are admitted while the heap can hold each at its journal full; past it POST /sessions is 409 naming the heap, and the server answers on', async () => {
    // A heap of 4.5 MiB (a quarter kept for the server) and journals of no entries (1 MiB a session): three sessions.
    const heap = { limit: 4.5 * 1024 * 1024, used: 0 };
    const small = await startServer({ port: 0, maxJournalEntries: 0, [HEAP]: () => heap } as ServerOptions);
    try {
      const post = async () => {
        const res = await fetch(`${small.url}/__sandbox/sessions`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
        return { status: res.status, body: await res.json() };
      };
      const made = [await post(), await post()];
      expect(made.map((m) => m.status)).toEqual([201, 201]);
      const over = await post();
      expect(over.status).toBe(409);
      expect(over.body.error.code).toBe('conflict');
      expect(over.body.error.message).toMatch(/holds 3 sessions, as many as its heap \(5 MiB\) can hold with every journal full/);
      expect(over.body.error.message).toMatch(/--max-journal-entries.*--max-old-space-size/);
      expect((await fetch(`${small.url}/__sandbox/health`)).status).toBe(200);
      expect((await fetch(`${small.url}/__sandbox/sessions/${made[0]!.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await post()).status).toBe(201);
      // The heap in use counts too: a heap nearly full refuses even below the count.
      expect((await fetch(`${small.url}/__sandbox/sessions/${made[1]!.body.id}`, { method: 'DELETE' })).status).toBe(204);
      heap.used = 3 * 1024 * 1024;
      const full = await post();
      expect(full.status).toBe(409);
      expect(full.body.error.message).toMatch(/^The server's heap is nearly full/);
    } finally {
      await small.close();
    }
  });

  it('refuses a maxSessions that is no whole number of 1 or more, naming it', async () => {
    for (const maxSessions of [0, 2.5, Number.NaN]) {
      await expect(startServer({ port: 0, maxSessions })).rejects.toMatchObject({
        code: 'invalid_options',
        param: 'maxSessions',
        message: expect.stringMatching(/`maxSessions` must be a whole number of 1 or more/),
      });
    }
  });
});

describe('browser pages and the API', () => {
  it('regression: a page of another origin cannot use /v1 with a made-up key unless the server allows its origin', async () => {
    const body = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
    const evil = await send(
      'POST',
      '/v1/calls',
      { origin: 'http://evil.example', authorization: 'Bearer SVC_TEST_anything', ...JSON_TYPE },
      body,
    );
    expect(evil.status).toBe(403);
    expect(evil.body.error).toMatchObject({ code: 'forbidden', param: 'Origin' });
    expect(evil.body.error.message).toMatch(/--allowed-origin http:\/\/evil\.example/);
    const preflight = await send('OPTIONS', '/v1/calls', { origin: 'http://evil.example', 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(403);
    expect(server.sandbox.calls.list()).toEqual([]);

    const open = await startServer({ port: 0, allowedOrigins: ['http://localhost:3000'] });
    try {
      const res = await fetch(`${open.url}/v1/calls`, {
        method: 'POST',
        headers: { origin: 'http://localhost:3000', authorization: 'Bearer SVC_TEST_app', ...JSON_TYPE },
        body,
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    } finally {
      await open.close();
    }
    await expect(startServer({ port: 0, allowedOrigins: ['localhost:3000/x'] })).rejects.toMatchObject({
      code: 'invalid_options',
      param: 'allowedOrigins',
    });
  });

  it('regression: the console cannot be framed by another page (clickjacking)', async () => {
    const page = await send('GET', '/__sandbox/console');
    expect(page.status).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  });

  it('regression: a target of //other-host/… is a path of this server, not another host', async () => {
    const res = await raw(`GET //evil.example/__sandbox/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 404 /);
  });

  it("regression: the server's own origin on the default port 80 is recognised (new URL drops :80)", async () => {
    const { ownOrigin } = await import('../../src/server/guard.js');
    const own = ownOrigin(80, new Set(['127.0.0.1']), { allowed: new Set() });
    expect(own('http://127.0.0.1')).toBe(true);
    expect(own('http://127.0.0.1:8080')).toBe(false);
  });
});
