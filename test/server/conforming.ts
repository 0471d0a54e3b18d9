import { afterAll, afterEach, beforeEach, expect } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';
import { closeReceivers } from '../webhooks/receivers.js';
import { serverClient } from './client.js';

/**
 * A server per test (seeded) and a client whose every control answer is checked against the
 * server's own OpenAPI document: a test fails when it saw an answer the document does not
 * describe. `server()` is the current test's server.
 */
export function conformingServer(seed: number) {
  let server: SandboxServer;
  let conformance: Conformance | undefined;
  const problems: string[] = [];

  beforeEach(async () => {
    server = await startServer({ port: 0, seed });
  });
  afterEach(async () => {
    await server.close();
    await closeReceivers();
    expect(problems.splice(0), 'control answers the OpenAPI document does not describe').toEqual([]);
  });
  afterAll(() => {
    conformance = undefined;
  });

  const client = serverClient(
    () => server.url,
    async (method, path, res, text) => {
      if (!path.startsWith('/__sandbox/') || path === '/__sandbox/openapi.json') return;
      conformance ??= new Conformance((await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as Record<string, any>);
      // Headers of the HTTP transport (date, connection, content-length) are not the document's business.
      const only = new Headers(res.headers.has('content-type') ? { 'content-type': res.headers.get('content-type')! } : {});
      problems.push(...conformance.check(method, path, res.status, only, text || null));
    },
  );
  return { ...client, server: () => server };
}
