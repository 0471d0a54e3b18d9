import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { client } from '../helpers.js';

// msw 2.15 keeps its interceptors in module-level instances; one that joins a running
// instance (here, the sandbox's) keeps forwarding its listeners there for the rest of the
// process, so this arrangement gets a file, and so a worker, of its own (docs/interception.md).
it('msw started after the sandbox: both answer; either closing first leaves the other working, a sandbox may listen again meanwhile; fetch is restored', async () => {
  const original = globalThis.fetch;
  const sandbox = createSandbox().listen();
  const server = setupServer(http.get('https://other.example.test/ping', () => HttpResponse.json({ pong: true })));
  server.listen({ onUnhandledRequest: 'bypass' });
  expect((await client(sandbox).placeCall()).status).toBe(201);
  expect(await (await fetch('https://other.example.test/ping')).json()).toEqual({ pong: true });
  sandbox.close();
  expect(await (await fetch('https://other.example.test/ping')).json()).toEqual({ pong: true });
  // A sandbox listening again meanwhile joins the instance msw still holds, and leaves it to msw.
  const again = createSandbox().listen();
  expect((await client(again).placeCall()).status).toBe(201);
  again.close();
  expect(await (await fetch('https://other.example.test/ping')).json()).toEqual({ pong: true });
  server.close();
  expect(globalThis.fetch).toBe(original);
});
