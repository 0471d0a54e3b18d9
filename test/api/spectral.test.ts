import { Spectral } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startServer, type SandboxServer } from '../../src/index.js';
import { controlRoutes } from '../../src/server/control-api.js';
import { serverOpenApi } from '../../src/server/openapi.js';

/**
 * Stoplight Spectral's `spectral:oas` rules, the linter most OpenAPI toolchains run first,
 * on both documents: the library's (`sandbox.openapi()`) and the one a real server serves at
 * `GET /__sandbox/openapi.json`. Every finding, error or warning, fails the test by name.
 */
async function lint(doc: unknown): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
  const results = await spectral.run(JSON.stringify(doc, null, 2));
  const severity = ['error', 'warn', 'info', 'hint'];
  return results.map((r) => `${severity[r.severity]} ${String(r.code)}: ${r.message} at ${r.path.join('.')}`);
}

/** The served documents, read from a real server once, before any linting keeps this process (and so the server) busy. */
let server: SandboxServer;
let served: any;
let served30: any;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 1 });
  served = await (await fetch(`${server.url}/__sandbox/openapi.json`)).json();
  served30 = await (await fetch(`${server.url}/__sandbox/openapi-3.0.json`)).json();
});
afterAll(async () => {
  await server.close();
});

describe("Spectral's spectral:oas rules", () => {
  it('find nothing in the library document', async () => {
    expect(await lint(createSandbox({ baseUrl: 'https://api.example.test' }).openapi())).toEqual([]);
  });

  it('find nothing in the document the server serves', async () => {
    expect(await lint(served)).toEqual([]);
  });

  it('find nothing in its OpenAPI 3.0 rendering (GET /__sandbox/openapi-3.0.json)', async () => {
    expect(served30.openapi).toBe('3.0.3');
    expect(await lint(served30)).toEqual([]);
  });
});

describe('the served document', () => {
  it('describes every operation beyond its summary, gives every path parameter an example, and keeps the /v1 tags and the contact', async () => {
    const thin = Object.entries(served.paths as Record<string, Record<string, { summary: string; description?: string }>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.description || op.description.replace(/\.$/, '') === op.summary.replace(/\.$/, ''))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(thin, 'operations whose description only repeats the summary: describe them (src/server/openapi.ts DESCRIPTIONS, or the route table)').toEqual([]);
    const bare = Object.entries(served.paths as Record<string, Record<string, { parameters?: Array<{ in: string; name: string; example?: unknown }> }>>).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => (op.parameters ?? []).filter((p) => p.in === 'path' && p.example === undefined).map((p) => `${method.toUpperCase()} ${path} {${p.name}}`)),
    );
    expect(bare, 'path parameters without an example (src/server/openapi.ts controlExample, or the route table)').toEqual([]);
    expect(served.tags.map((t: { name: string }) => t.name)).toEqual(['calls', 'numbers', 'messages', 'recordings', 'transcripts', 'webhooks', 'control']);
    expect(served.info.contact).toEqual((createSandbox().openapi() as { info: { contact: unknown } }).info.contact);
  });

  it('regression: an operationId used twice (listCalls, for GET /v1/calls and the control route) can never be served again', () => {
    const api = createSandbox().openapi();
    const twice = [...controlRoutes, { ...controlRoutes[0]!, path: '/sessions/{s}/again', operationId: 'listCalls' }];
    expect(() => serverOpenApi(api, twice, 'http://127.0.0.1:1')).toThrow('serverOpenApi: the operationId listCalls names both GET /v1/calls and GET /__sandbox/sessions/{s}/again: rename one.');
  });
});
