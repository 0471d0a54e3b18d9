import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { fetch as undiciFetch, request as undiciRequest, stream as undiciStream } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/** The `undici` package and a fetch captured before listen() are answered too, not sent to the network. */
const KEY = 'SVC_TEST_undici';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const CALL = JSON.stringify({ to: '+14155550123', from: '+14155550100' });

let sandbox: Sandbox;
let other: Server;
let otherUrl: string;
beforeEach(async () => {
  other = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`real ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
});
afterEach(async () => {
  sandbox?.close();
  await new Promise((resolve) => other.close(resolve));
});

describe('the undici package', () => {
  it('an injected network fault rejects request(), fetch() and a captured fetch as a dropped connection does', async () => {
    const captured = globalThis.fetch;
    sandbox = createSandbox().listen();
    sandbox.faults.inject({ path: '/v1/calls', network: true, times: 3 });
    const url = `${sandbox.baseUrl}/v1/calls`;
    await expect(undiciRequest(url, { headers })).rejects.toBeInstanceOf(TypeError);
    await expect(undiciFetch(url, { headers })).rejects.toThrow(TypeError);
    await expect(captured(url, { headers })).rejects.toThrow(TypeError);
    expect((await undiciRequest(url, { headers })).statusCode).toBe(200); // the rule was used up
  });

  it('request(), fetch() and stream() to the base URL are answered while listening; other origins pass through', async () => {
    const captured = globalThis.fetch; // taken before listen(), as openapi-fetch and others do
    sandbox = createSandbox({ seed: 4 }).listen();
    const placed = await undiciRequest(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: CALL });
    expect(placed.statusCode).toBe(201);
    expect(placed.headers['x-ratelimit-limit']).toBe('100');
    const call = (await placed.body.json()) as { id: string };
    expect(call.id).toMatch(/^call_/);

    const fetched = await undiciFetch(`${sandbox.baseUrl}/v1/calls/${call.id}`, { headers });
    expect(fetched.status).toBe(200);
    expect(((await fetched.json()) as { status: string }).status).toBe('ringing');

    const chunks: Buffer[] = [];
    await undiciStream(
      `${sandbox.baseUrl}/v1/calls`,
      { method: 'GET', headers, opaque: chunks },
      ({ opaque }) =>
        new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            (opaque as Buffer[]).push(chunk);
            done();
          },
        }),
    );
    expect(JSON.parse(Buffer.concat(chunks).toString()).data).toHaveLength(1);

    const early = await captured(`${sandbox.baseUrl}/v1/calls`, { headers });
    expect(early.status).toBe(200);

    expect(await (await undiciRequest(`${otherUrl}/x`)).body.text()).toBe('real GET /x');
    expect(await (await captured(`${otherUrl}/y`)).text()).toBe('real GET /y');
    expect(sandbox.calls.list()).toHaveLength(1);
  });

  it('streams server-sent events through undici as they happen on the virtual clock', async () => {
    sandbox = createSandbox({ seed: 4 }).listen();
    sandbox.network.setBehavior('+14155550123', { ring: '1s', talk: '30s' });
    const call = (await (await undiciFetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: CALL })).json()) as {
      id: string;
    };
    await sandbox.advance('1s');
    const live = await undiciRequest(`${sandbox.baseUrl}/v1/transcripts/${call.id}`, {
      headers: { ...headers, accept: 'text/event-stream' },
    });
    expect(live.headers['content-type']).toMatch(/^text\/event-stream/);
    let text = '';
    live.body.setEncoding('utf8');
    const ended = new Promise<void>((resolve) => live.body.on('end', resolve));
    live.body.on('data', (chunk: string) => (text += chunk));
    await sandbox.advance('31s');
    await ended;
    expect(text).toMatch(/^: transcript trn_/);
    expect(text).toMatch(/event: segment/);
    expect(text).toMatch(/event: end\ndata: \{.*"status":"processing"/);
  });

  it('after close() undici requests to the base URL are not answered by the sandbox, and the dispatcher is the one before', async () => {
    const slot = Symbol.for('undici.globalDispatcher.1');
    void globalThis.Response;
    const before = (globalThis as unknown as Record<symbol, unknown>)[slot];
    sandbox = createSandbox({ baseUrl: otherUrl }).listen();
    expect((await undiciRequest(`${otherUrl}/v1/calls`, { headers })).statusCode).toBe(200);
    expect((globalThis as unknown as Record<symbol, unknown>)[slot]).not.toBe(before);
    sandbox.close();
    expect((globalThis as unknown as Record<symbol, unknown>)[slot]).toBe(before);
    expect(await (await undiciRequest(`${otherUrl}/v1/calls`)).body.text()).toBe('real GET /v1/calls');
  });
});

describe('sandbox.fetch', () => {
  it('calls the sandbox directly, with no listen() and no global patched: paths relative to the base URL', async () => {
    sandbox = createSandbox({ seed: 4 });
    const res = await sandbox.fetch('/v1/calls', { method: 'POST', headers, body: CALL });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect((await sandbox.fetch(`${sandbox.baseUrl}/v1/calls/${id}`, { headers })).status).toBe(200);
    expect((await sandbox.fetch(new Request(`${sandbox.baseUrl}/v1/calls/${id}`, { headers }))).status).toBe(200);
    expect((await sandbox.fetch('https://elsewhere.test/v1/calls', { headers })).status).toBe(404);
    const unbound = sandbox.fetch; // a function value, as SDKs take it
    expect((await unbound('/v1/calls', { headers })).status).toBe(200);
    await expect(unbound('::not a url')).rejects.toThrow();
    sandbox.close();
    await expect(unbound('/v1/calls', { headers })).rejects.toMatchObject({ code: 'closed' });
  });
});

describe('sandbox.fetch and faults', () => {
  it('an injected network fault rejects with a TypeError, as fetch does on a dropped connection', async () => {
    sandbox = createSandbox();
    sandbox.faults.inject({ network: true });
    await expect(sandbox.fetch('/v1/calls', { headers })).rejects.toThrow(TypeError);
    expect((await sandbox.fetch('/v1/calls', { headers })).status).toBe(200);
  });
});
