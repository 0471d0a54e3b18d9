import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { client } from '../helpers.js';

// allowHosts beside a user's msw that joined the sandbox's interceptors (the order where the
// sandbox hears each request first): a host msw answers is not refused, any other still is.
it('allowHosts leaves a host an msw handler answers alone, and refuses the rest', async () => {
  const sandbox = createSandbox({ allowHosts: [] }).listen();
  const server = setupServer(http.get('https://other.example.test/ping', () => HttpResponse.json({ pong: true })));
  server.listen({ onUnhandledRequest: 'bypass' });
  try {
    expect(await (await fetch('https://other.example.test/ping')).json()).toEqual({ pong: true });
    await expect(fetch('https://unmocked.example.test/ping')).rejects.toMatchObject({
      code: 'unhandled_request',
      message: expect.stringContaining("Add 'unmocked.example.test' to allowHosts"),
    });
    expect((await client(sandbox).get('/v1/calls')).status).toBe(200);
  } finally {
    sandbox.close();
    server.close();
  }
});
