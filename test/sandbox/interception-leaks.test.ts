import http from 'node:http';
import https from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { KEY } from '../helpers.js';

/** Requests to a base URL are answered or refused; they never reach the network. */
const open: Sandbox[] = [];
afterEach(() => {
  for (const sandbox of open.splice(0)) sandbox.close();
});
const listen = (options: Parameters<typeof createSandbox>[0]) => {
  const sandbox = createSandbox(options).listen();
  open.push(sandbox);
  return sandbox;
};

/** What a `node:http(s)` request came to: a status, or the error it emitted. */
function outcome(request: http.ClientRequest): Promise<string> {
  return new Promise((resolve) => {
    request.on('response', (res) => {
      res.resume();
      resolve(`status ${res.statusCode}`);
    });
    request.on('connect', (res, socket) => {
      socket.destroy();
      resolve(`connect ${res.statusCode}`);
    });
    request.on('error', (error: Error & { code?: string }) => resolve(`error ${error.name} ${error.code ?? ''} ${error.message}`));
    request.end();
  });
}

describe('overlapping base URLs', () => {
  it.each([
    ['the shorter listens first', ['https://api.svc.test', 'https://api.svc.test/tenant2']],
    ['the longer listens first', ['https://api.svc.test/tenant2', 'https://api.svc.test']],
  ])('regression: overlapping base URLs were routed by listen() order; the longest prefix wins (%s)', async (_, order) => {
    const sandboxes = order.map((baseUrl) => listen({ baseUrl }));
    const [root, tenant] = order[0] === 'https://api.svc.test' ? sandboxes : [...sandboxes].reverse();
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
    expect((await fetch('https://api.svc.test/tenant2/v1/calls', { method: 'POST', headers: auth, body })).status).toBe(201);
    expect((await fetch('https://api.svc.test/v1/calls', { method: 'POST', headers: auth, body })).status).toBe(201);
    expect((await fetch('https://api.svc.test/v1/calls', { method: 'POST', headers: auth, body })).status).toBe(201);
    expect(tenant!.calls.list()).toHaveLength(1);
    expect(root!.calls.list()).toHaveLength(2);
  });
});

describe('interception leaks: no spelling of a request to the base URL escapes', () => {
  it.each([
    ['a URL string and a CONNECT path', () => http.request('http://api.svc.test:443', { method: 'CONNECT', path: 'api.svc.test:443' })],
    [
      'https options with a path starting with /',
      () => https.request({ method: 'CONNECT', host: 'api.svc.test', port: 443, path: '/api.svc.test:443' }),
    ],
    [
      'a CONNECT through a proxy, for the base URL',
      () => http.request('http://proxy.svc.test:3128', { method: 'CONNECT', path: 'api.svc.test:443' }),
    ],
  ])('regression: a CONNECT to the base URL went to real DNS; it is refused with a clear error (%s)', async (_, make) => {
    listen({});
    const result = await outcome(make());
    expect(result).toMatch(/^error SandboxError .*cannot be tunnelled.*NO_PROXY/);
  });

  it("a CONNECT to another host is not the sandbox's to refuse", async () => {
    listen({});
    const result = await outcome(http.request('http://proxy.other.invalid:3128', { method: 'CONNECT', path: 'example.org:443' }));
    expect(result).not.toMatch(/SandboxError/);
  });

  it.each([
    ['https.get', () => https.get(`https://api.svc.test/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } })],
    ['http.request', () => http.request('http://api.svc.test/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })],
  ])('regression: a %s issued in the same tick as close() went to real DNS; it is refused', async (_, make) => {
    const baseUrl = make.toString().includes('https') ? 'https://api.svc.test' : 'http://api.svc.test';
    const sandbox = listen({ baseUrl });
    const request = make();
    sandbox.close();
    const result = await new Promise<string>((resolve) => {
      request.on('response', (res) => resolve(`status ${res.statusCode}`));
      request.on('error', (error: Error) => resolve(`error ${error.name} ${error.message}`));
      request.end();
    });
    expect(result).toMatch(/^error SandboxError svc-sandbox for https?:\/\/api\.svc\.test was closed before GET/);
  });

  it('regression: after close() Headers, Request and Response were left as enumerable data properties; their descriptors are the originals again', () => {
    const names = ['Headers', 'Request', 'Response', 'fetch'] as const;
    const before = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    const sandbox = listen({});
    // While listening, nothing new shows up to a leak check.
    for (const [i, name] of names.entries())
      expect(Object.getOwnPropertyDescriptor(globalThis, name)?.enumerable, name).toBe(before[i]?.enumerable);
    sandbox.close();
    for (const [i, name] of names.entries()) expect(Object.getOwnPropertyDescriptor(globalThis, name), name).toEqual(before[i]);
    expect(Object.keys(globalThis).filter((k) => (names as readonly string[]).includes(k))).toEqual(
      before.flatMap((d, i) => (d?.enumerable ? [names[i]] : [])),
    );
  });
});
