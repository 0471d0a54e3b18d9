import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startServer, type SandboxServer } from '../../src/index.js';

/**
 * The documents say what every answer carries and what a tuple is, so generators read them
 * exactly: the rate-limit headers are `required` where they are always sent, and a tuple is
 * `prefixItems` with `items: false` (orval 8 made of `items: {anyOf: [...]}` a type that does
 * not compile; test/generators/run.sh compiles the clients).
 */
type Json = Record<string, any>;
const RATE = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

let server: SandboxServer;
let library: Json;
let served: Json;
let served30: Json;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 1 });
  library = createSandbox().openapi() as unknown as Json;
  served = await (await fetch(`${server.url}/__sandbox/openapi.json`)).json();
  served30 = await (await fetch(`${server.url}/__sandbox/openapi-3.0.json`)).json();
});
afterAll(async () => {
  await server.close();
});

/** A header object with its `$ref` followed. */
const resolved = (doc: Json, header: Json): Json =>
  typeof header.$ref === 'string' ? doc.components.headers[header.$ref.replace('#/components/headers/', '')] : header;

/** `status name` of every /v1 response whose rate-limit header is (or is not) required. */
function rateMarks(doc: Json): { required: string[]; optional: string[]; missing: string[] } {
  const marks = { required: [] as string[], optional: [] as string[], missing: [] as string[] };
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, operation] of Object.entries(item as Json)) {
      for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
        for (const name of RATE) {
          const header = (response as Json).headers?.[name];
          const where = `${method.toUpperCase()} ${path} ${status} ${name}`;
          if (!header) marks.missing.push(where);
          else if (resolved(doc, header).required === true) marks.required.push(where);
          else marks.optional.push(where);
        }
      }
    }
  }
  return marks;
}

/** Every schema of a document that has `items` or `prefixItems`, by its JSON pointer. */
function arrays(node: unknown, at = '', out: Array<[string, Json]> = []): Array<[string, Json]> {
  if (node === null || typeof node !== 'object') return out;
  const object = node as Json;
  if (!Array.isArray(node) && (object.type === 'array' || 'prefixItems' in object) && ('items' in object || 'prefixItems' in object))
    out.push([at, object]);
  for (const [key, value] of Object.entries(object)) arrays(value, `${at}/${key}`, out);
  return out;
}

describe('the rate-limit headers', () => {
  it('are required on every /v1 answer of sandbox.openapi(): every request counts against a window first', () => {
    const { required, optional, missing } = rateMarks(library);
    expect(missing).toEqual([]);
    expect(optional).toEqual([]);
    expect(required.length).toBeGreaterThan(17 * 3);
  });

  it('are required in the served document and its 3.0 rendering except on the 403 and 500 the server may answer itself', () => {
    for (const doc of [served, served30]) {
      const { required, optional, missing } = rateMarks(doc);
      expect(missing).toEqual([]);
      expect(optional.length).toBeGreaterThan(0);
      expect(optional.filter((where) => !/ (403|500) X-RateLimit/.test(where))).toEqual([]);
      expect(required.filter((where) => / (403|500) X-RateLimit/.test(where))).toEqual([]);
      expect(required.some((where) => where.startsWith('POST /v1/calls 201 '))).toBe(true);
    }
  });

  it('are sent on a 401 without a key, and not on the server’s own 403 for a foreign page', async () => {
    const noKey = await fetch(`${server.url}/v1/calls`);
    expect(noKey.status).toBe(401);
    for (const name of RATE) expect(noKey.headers.get(name), name).toMatch(/^[0-9]+$/);
    const foreign = await fetch(`${server.url}/v1/calls`, {
      headers: { origin: 'https://elsewhere.example', authorization: 'Bearer SVC_TEST_precision' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('X-RateLimit-Limit')).toBeNull();
  });

  it('the served document describes X-Sandbox-Session and X-Sandbox-Hint, optional, and a key no session issued gets them', async () => {
    for (const doc of [served, served30]) {
      for (const name of ['X-Sandbox-Session', 'X-Sandbox-Hint']) {
        expect(doc.components.headers[name].required, name).toBeUndefined();
        expect(doc.paths['/v1/calls'].get.responses['200'].headers[name]).toEqual({ $ref: `#/components/headers/${name}` });
        expect(doc.paths['/v1/calls/{id}'].get.responses['404'].headers[name]).toEqual({ $ref: `#/components/headers/${name}` });
      }
    }
    expect(library.components.headers['X-Sandbox-Session']).toBeUndefined();
    const answer = await fetch(`${server.url}/v1/calls`, { headers: { authorization: 'Bearer SVC_TEST_precision' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('X-Sandbox-Session')).toBe('default');
    expect(answer.headers.get('X-Sandbox-Hint')).toContain('POST /__sandbox/sessions');
  });
});

describe('tuples', () => {
  it('are prefixItems with items: false and their length in the 3.1 documents, never a union standing for positions', () => {
    const tuples = arrays(served).filter(([, schema]) => 'prefixItems' in schema);
    expect(tuples.length).toBeGreaterThanOrEqual(3);
    for (const [at, schema] of tuples) {
      expect(schema.items, at).toBe(false);
      expect([schema.minItems, schema.maxItems], at).toEqual([schema.prefixItems.length, schema.prefixItems.length]);
    }
    for (const doc of [library, served]) {
      // A union of items is a list of either (scenario's `events`) unless the length is fixed or positions are given.
      const unions = arrays(doc).filter(
        ([, s]) =>
          typeof s.items === 'object' &&
          (s.items.anyOf || s.items.oneOf) &&
          ('prefixItems' in s || (s.minItems !== undefined && s.minItems === s.maxItems)),
      );
      expect(unions.map(([at]) => at)).toEqual([]);
    }
  });

  it('are, in the 3.0 rendering, items of any member with the length fixed, and no prefixItems', () => {
    const all = arrays(served30);
    expect(all.filter(([, s]) => 'prefixItems' in s || s.items === false).map(([at]) => at)).toEqual([]);
    const tuples = all.filter(([, s]) => Array.isArray(s.items?.anyOf) && s.minItems === s.maxItems);
    expect(tuples.length).toBeGreaterThanOrEqual(3);
    for (const [at, schema] of tuples) expect(schema.items.anyOf.length, at).toBe(schema.minItems);
  });
});
