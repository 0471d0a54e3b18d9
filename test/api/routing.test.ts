import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { client, startSandbox } from '../helpers.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
beforeEach(() => {
  sandbox = startSandbox();
  api = client(sandbox);
});
afterEach(() => sandbox.close());

describe('routing and versioning', () => {
  it.each([
    ['/v2/calls', /current version is v1 \(\/v1\/calls\)/],
    ['/v1/call', /No endpoint GET \/v1\/call/],
    ['/calls', /under \/v1\//],
    ['/', /under \/v1\//],
    ['/v1/calls/call_x/transfer/extra', /No endpoint/],
  ])('GET %s is 404 JSON', async (path, message) => {
    const res = await api.get(path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.message).toMatch(message);
  });

  it.each([
    ['DELETE', '/v1/calls', 'GET, POST'],
    ['PUT', '/v1/calls/call_x', 'GET'],
    ['GET', '/v1/calls/call_x/transfer', 'POST'],
    ['PATCH', '/v1/numbers/num_x', 'PUT, DELETE'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const res = await api.send(method, path);
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('accepts a trailing slash', async () => {
    expect((await api.get('/v1/calls/')).status).toBe(200);
  });

  it('every one of the 16 endpoints answers through auth and rate limits', async () => {
    const endpoints = [
      ['GET', '/v1/calls'], ['POST', '/v1/calls'], ['GET', '/v1/calls/x'], ['POST', '/v1/calls/x/transfer'],
      ['GET', '/v1/numbers'], ['POST', '/v1/numbers'], ['PUT', '/v1/numbers/x'], ['DELETE', '/v1/numbers/x'],
      ['GET', '/v1/messages'], ['POST', '/v1/messages'], ['GET', '/v1/recordings'], ['GET', '/v1/recordings/x'],
      ['GET', '/v1/transcripts/x'], ['GET', '/v1/webhooks'], ['POST', '/v1/webhooks'], ['DELETE', '/v1/webhooks/x'],
    ];
    const anonymous = client(sandbox, null);
    for (const [method, path] of endpoints) {
      const res = await anonymous.send(method!, path!);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('x-ratelimit-limit'), `${method} ${path}`).toBe('100');
    }
  });
});

describe('interception is limited to the base URL', () => {
  let server: Server;
  let url: string;
  beforeEach(async () => {
    server = createServer((_req, res) => res.end('real network'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1/calls`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('lets requests to other origins through untouched', async () => {
    const res = await fetch(url);
    expect(await res.text()).toBe('real network');
  });

  it('serves a base URL with a path prefix, and only under it', async () => {
    const prefixed = startSandbox({ baseUrl: 'https://gateway.example.test/comms' });
    try {
      const ok = await client(prefixed).get('/v1/calls');
      expect(ok.status).toBe(200);
      expect(prefixed.baseUrl).toBe('https://gateway.example.test/comms');
    } finally {
      prefixed.close();
    }
  });
});
