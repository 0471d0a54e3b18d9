import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach } from 'vitest';
import { describe, expect, it, test } from '../fixture.js';
import { client } from '../helpers.js';

describe('routing and versioning', () => {
  it.for<[string, RegExp]>([
    ['/v2/calls', /current version is v1 \(\/v1\/calls\)/],
    ['/v1/call', /No endpoint GET \/v1\/call/],
    ['/calls', /under \/v1\//],
    ['/', /under \/v1\//],
    ['/v1/calls/call_x/transfer/extra', /No endpoint/],
  ])('GET %s is 404 JSON', async ([path, message], { api }) => {
    const res = await api.get(path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.message).toMatch(message);
  });

  it.for([
    ['DELETE', '/v1/calls', 'GET, POST, HEAD, OPTIONS'],
    ['PUT', '/v1/calls/call_x', 'GET, HEAD, OPTIONS'],
    ['GET', '/v1/calls/call_x/transfer', 'POST, OPTIONS'],
    ['PATCH', '/v1/numbers/num_x', 'PUT, DELETE, OPTIONS'],
  ])('%s %s is 405 with Allow: %s', async ([method, path, allow], { api }) => {
    const res = await api.send(method!, path!);
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('accepts a trailing slash', async ({ api }) => {
    expect((await api.get('/v1/calls/')).status).toBe(200);
  });

  it('every one of the 16 endpoints answers through auth and rate limits', async ({ sandbox }) => {
    const endpoints = [
      ['GET', '/v1/calls'],
      ['POST', '/v1/calls'],
      ['GET', '/v1/calls/x'],
      ['POST', '/v1/calls/x/transfer'],
      ['GET', '/v1/numbers'],
      ['POST', '/v1/numbers'],
      ['PUT', '/v1/numbers/x'],
      ['DELETE', '/v1/numbers/x'],
      ['GET', '/v1/messages'],
      ['POST', '/v1/messages'],
      ['GET', '/v1/recordings'],
      ['GET', '/v1/recordings/x'],
      ['GET', '/v1/transcripts/x'],
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/webhooks'],
      ['DELETE', '/v1/webhooks/x'],
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

  it('lets requests to other origins through untouched', async ({ api }) => {
    const res = await fetch(url);
    expect(await res.text()).toBe('real network');
    expect((await api.get('/v1/calls')).status).toBe(200); // while the sandbox intercepts its own
  });

  describe('with a base URL that has a path prefix', () => {
    test.override({ sandboxOptions: { baseUrl: 'https://gateway.example.test/comms' } });

    it('serves the API under it', async ({ sandbox, api }) => {
      const ok = await api.get('/v1/calls');
      expect(ok.status).toBe(200);
      expect(sandbox.baseUrl).toBe('https://gateway.example.test/comms');
    });
  });
});
