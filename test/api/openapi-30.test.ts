import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { redoclyFindings } from '../support/redocly.js';

/**
 * The server's documents: the 3.1 one passes Redocly's recommended rules as the library's
 * does, and its OpenAPI 3.0.3 rendering (GET /__sandbox/openapi-3.0.json, for kin-openapi and
 * other 3.0-only tools; test/kin-openapi/run.sh loads it in CI) keeps to 3.0's dialect and
 * still describes the server's real answers.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
let server: SandboxServer;
let served: any;
let served30: any;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 4 });
  // Read once, before linting keeps this process (and so the server) busy.
  served = await get('/__sandbox/openapi.json');
  served30 = await get('/__sandbox/openapi-3.0.json');
});
afterAll(async () => {
  await server.close();
});
const get = async (path: string) => (await fetch(`${server.url}${path}`)).json();

/** Every schema of a document (what sits under a `schema` key or in components.schemas), with its place. */
function schemasOf(doc: any): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const inside = (node: unknown, at: string): void => {
    out.push([at, node]);
    if (typeof node !== 'object' || node === null) return;
    const s = node as Record<string, any>;
    for (const key of ['items', 'not', 'additionalProperties']) if (key in s && typeof s[key] === 'object') inside(s[key], `${at}.${key}`);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      s[key]?.forEach((sub: unknown, i: number) => {
        inside(sub, `${at}.${key}.${i}`);
      });
    for (const [name, sub] of Object.entries(s.properties ?? {})) inside(sub, `${at}.properties.${name}`);
  };
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) for (const [i, n] of node.entries()) walk(n, `${at}.${i}`);
    else if (typeof node === 'object' && node !== null)
      for (const [k, v] of Object.entries(node)) k === 'schema' ? inside(v, `${at}.schema`) : walk(v, `${at}.${k}`);
  };
  walk(doc.paths, 'paths');
  for (const [name, s] of Object.entries(doc.components.schemas)) inside(s, `components.schemas.${name}`);
  return out;
}

describe('the documents the server serves', () => {
  // First: the server is asked while no linting keeps this process busy.
  it('the 3.0 rendering still describes real answers (a call, a page of calls) by an OpenAPI 3.0 reading (nullable)', async () => {
    const doc = served30;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const headers = { authorization: 'Bearer SVC_TEST_thirty', 'content-type': 'application/json' };
    const placed = await fetch(`${server.url}/v1/calls`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    });
    expect(placed.status).toBe(201);
    const placeSchema = doc.paths['/v1/calls'].post.responses['201'].content['application/json'].schema;
    expect(ajv.validate(placeSchema, await placed.json()), ajv.errorsText()).toBe(true);
    const page = await fetch(`${server.url}/v1/calls?created_after=2020-01-01`, { headers });
    const listSchema = doc.paths['/v1/calls'].get.responses['200'].content['application/json'].schema;
    expect(ajv.validate(listSchema, await page.json()), ajv.errorsText()).toBe(true);
  });

  it("the 3.1 one passes @redocly/openapi-core's recommended rules with no error and no warning", async () => {
    expect((await redoclyFindings(served)).map((p) => p.line)).toEqual([]);
  });

  it('the 3.0 rendering says nothing in 3.1 only: no type lists, const, examples arrays, boolean schemas or webhooks', async () => {
    const doc = served30;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc).not.toHaveProperty('webhooks');
    expect(doc.info.license).toEqual({ name: 'MIT' });
    const found = schemasOf(doc).flatMap(([at, s]: [string, any]) => [
      ...(typeof s === 'boolean' ? [`${at} is a boolean schema`] : []),
      ...(Array.isArray(s?.type) ? [`${at}.type is a list`] : []),
      ...['const', 'examples', 'if', 'then', 'propertyNames', 'contentMediaType'].filter((k) => s && k in s).map((k) => `${at}.${k}`),
      ...(typeof s?.exclusiveMinimum === 'number' || typeof s?.exclusiveMaximum === 'number'
        ? [`${at} has a numeric exclusive bound`]
        : []),
    ]);
    expect(found).toEqual([]);
    const call = doc.paths['/v1/calls/{id}'].get.responses['200'].content['application/json'].schema.oneOf[0];
    expect(call.properties.ended_at).toMatchObject({ type: 'string', nullable: true });
    expect(call.properties.status.enum).toContain('ringing');
    expect(doc.paths['/v1/calls'].post.requestBody.content['application/json'].examples.call.value).toEqual({
      to: '+14155550123',
      from: '+14155550100',
    });
  });
});
