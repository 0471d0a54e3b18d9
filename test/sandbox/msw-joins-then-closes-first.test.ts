import http from 'node:http';
import https from 'node:https';
import { http as handlers, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { client, KEY } from '../helpers.js';

// msw started after the sandbox joins the sandbox's interceptors, and its close() (in
// @mswjs/interceptors 0.41) deletes their registration while the sandbox still runs them.
// msw keeps joined interceptors for the rest of the worker, so this arrangement has a file,
// and so a worker, of its own (docs/interception.md).
it('msw started after the sandbox and closed first: the sandbox keeps answering fetch and node:https, and its close() restores them', async () => {
  const before = { fetch: globalThis.fetch, httpRequest: http.request, httpsRequest: https.request, httpsGet: https.get };
  const sandbox = createSandbox().listen();
  const server = setupServer(handlers.get('https://other.example.test/ping', () => HttpResponse.json({ pong: true })));
  server.listen({ onUnhandledRequest: 'bypass' });
  expect(await (await fetch('https://other.example.test/ping')).json()).toEqual({ pong: true });
  server.close();

  expect((await client(sandbox).placeCall()).status).toBe(201);
  const status = await new Promise<number | undefined>((resolve, reject) => {
    https
      .get(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', reject);
  });
  expect(status).toBe(200);

  sandbox.close();
  expect({ fetch: globalThis.fetch, httpRequest: http.request, httpsRequest: https.request, httpsGet: https.get }).toEqual(before);
});
