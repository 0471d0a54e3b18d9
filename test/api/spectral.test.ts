import { Spectral } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startServer, type SandboxServer } from '../../src/index.js';

/**
 * Stoplight Spectral's `spectral:oas` rules, the linter most OpenAPI toolchains run first,
 * on both documents: the library's (`sandbox.openapi()`) and the one a real server serves at
 * `GET /__sandbox/openapi.json`, and its 3.0 rendering. Every finding, error or warning, fails the
 * test by name. The heaviest check of the suite: `npm run lint:openapi` runs it (CI does), not
 * `npm test` (vitest.config.ts).
 */
async function lint(doc: unknown): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
  const results = await spectral.run(JSON.stringify(doc, null, 2));
  const severity = ['error', 'warn', 'info', 'hint'];
  return results
    .filter((r) => !(r.code === 'array-items' && isTuple(r.path.slice(0, -1).reduce((at: any, key) => at?.[key], doc))))
    .map((r) => `${severity[r.severity]} ${String(r.code)}: ${r.message} at ${r.path.join('.')}`);
}

/**
 * A tuple as JSON Schema 2020-12 writes it (`prefixItems`, `items: false`): `array-items` asks for
 * a truthy `items`, which `false` is not, though it is exact (docs/openapi.md, "Tuples").
 */
function isTuple(schema: any): boolean {
  return Array.isArray(schema?.prefixItems) && schema.items === false && schema.minItems === schema.prefixItems.length;
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
