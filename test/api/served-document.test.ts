import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startServer, type SandboxServer } from '../../src/index.js';
import { controlRoutes } from '../../src/server/control/api.js';
import { serverOpenApi } from '../../src/server/openapi.js';

/**
 * What generators and example-driven tools need of the document a real server serves at
 * `GET /__sandbox/openapi.json`, beyond what linters check (Spectral: test/api/spectral.test.ts;
 * Redocly: test/api/openapi-30.test.ts).
 */
let server: SandboxServer;
let served: any;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 1 });
  served = await (await fetch(`${server.url}/__sandbox/openapi.json`)).json();
});
afterAll(async () => {
  await server.close();
});

describe('the served document', () => {
  it('describes every operation beyond its summary, gives every path parameter an example, and keeps the /v1 tags and the contact', async () => {
    const thin = Object.entries(served.paths as Record<string, Record<string, { summary: string; description?: string }>>).flatMap(
      ([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => !op.description || op.description.replace(/\.$/, '') === op.summary.replace(/\.$/, ''))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(
      thin,
      'operations whose description only repeats the summary: describe them (src/server/openapi.ts DESCRIPTIONS, or the route table)',
    ).toEqual([]);
    const bare = Object.entries(
      served.paths as Record<string, Record<string, { parameters?: Array<{ in: string; name: string; example?: unknown }> }>>,
    ).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        (op.parameters ?? [])
          .filter((p) => p.in === 'path' && p.example === undefined)
          .map((p) => `${method.toUpperCase()} ${path} {${p.name}}`),
      ),
    );
    expect(bare, 'path parameters without an example (src/server/openapi.ts controlExample, or the route table)').toEqual([]);
    expect(served.tags.map((t: { name: string }) => t.name)).toEqual([
      'calls',
      'numbers',
      'messages',
      'recordings',
      'transcripts',
      'webhooks',
      'control',
    ]);
    expect(served.info.contact).toEqual((createSandbox().openapi() as { info: { contact: unknown } }).info.contact);
  });

  it('regression: an operationId used twice (listCalls, for GET /v1/calls and the control route) can never be served again', () => {
    const api = createSandbox().openapi();
    const twice = [...controlRoutes, { ...controlRoutes[0]!, path: '/sessions/{s}/again', operationId: 'listCalls' }];
    expect(() => serverOpenApi(api, twice, 'http://127.0.0.1:1')).toThrow(
      'serverOpenApi: the operationId listCalls names both GET /v1/calls and GET /__sandbox/sessions/{s}/again: rename one.',
    );
  });
});
