import https from 'node:https';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { client, KEY } from '../helpers.js';

// msw listens first here (as with msw started in a setup file), the usual arrangement.
// The sandbox-first arrangement is in msw-after-sandbox.test.ts: it must run in its own worker.

let sandbox: Sandbox | undefined;
let server: ReturnType<typeof setupServer> | undefined;
afterEach(() => {
  sandbox?.close();
  server?.close();
  sandbox = server = undefined;
});

const mswServer = () => setupServer(http.get('https://other.example.test/ping', () => HttpResponse.json({ pong: true })));
/** The status of a GET over node:https (axios, got and the official SDKs take this road). */
const httpsStatus = (url: string) =>
  new Promise<number | undefined>((resolve, reject) => {
    https
      .get(url, { headers: { authorization: `Bearer ${KEY}` } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', reject);
  });
const ping = async () => (await (await fetch('https://other.example.test/ping')).json()) as unknown;

describe('beside a user’s msw that listens first', () => {
  it('both answer their own origins', async () => {
    server = mswServer();
    server.listen({ onUnhandledRequest: 'bypass' });
    sandbox = createSandbox().listen();
    expect((await client(sandbox).placeCall()).status).toBe(201);
    expect(await ping()).toEqual({ pong: true });
  });

  it('the documented onUnhandledRequest callback lets the sandbox answer under msw’s "error" mode', async () => {
    server = mswServer();
    const unhandled: string[] = [];
    server.listen({
      onUnhandledRequest(request, print) {
        if (new URL(request.url).origin === 'https://api.svc.test') return;
        unhandled.push(request.url);
        print.error();
      },
    });
    sandbox = createSandbox().listen();
    expect((await client(sandbox).get('/v1/calls')).status).toBe(200);
    expect(unhandled).toEqual([]);
  });

  it('the sandbox closing first leaves msw working, and msw’s close restores fetch', async () => {
    const original = globalThis.fetch;
    server = mswServer();
    server.listen({ onUnhandledRequest: 'bypass' });
    sandbox = createSandbox().listen();
    sandbox.close();
    sandbox = undefined;
    expect(await ping()).toEqual({ pong: true });
    server.close();
    server = undefined;
    expect(globalThis.fetch).toBe(original);
  });

  it('msw closing first leaves the sandbox working, and its close restores fetch', async () => {
    const original = globalThis.fetch;
    server = mswServer();
    server.listen({ onUnhandledRequest: 'bypass' });
    sandbox = createSandbox().listen();
    server.close();
    server = undefined;
    expect((await client(sandbox).get('/v1/calls')).status).toBe(200);
    sandbox.close();
    sandbox = undefined;
    expect(globalThis.fetch).toBe(original);
  });

  it('msw closing first leaves node:https answered too: the sandbox takes over the interceptor msw disposed', async () => {
    const { request, get } = https;
    server = mswServer();
    server.listen({ onUnhandledRequest: 'bypass' });
    sandbox = createSandbox().listen();
    server.close();
    server = undefined;
    expect(await httpsStatus(`${sandbox.baseUrl}/v1/calls`)).toBe(200);
    sandbox.close();
    sandbox = undefined;
    expect([https.request, https.get]).toEqual([request, get]);
  });
});
