import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';

describe('sandbox.openapi()', () => {
  const doc = createSandbox({ baseUrl: 'https://api.example.test' }).openapi() as any;

  it('describes every endpoint of the spec, at the base URL, with bearer auth', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example.test', description: 'The sandbox.' }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
    for (const op of [
      'GET /v1/calls', 'POST /v1/calls', 'GET /v1/calls/{id}', 'POST /v1/calls/{id}/transfer',
      'GET /v1/numbers', 'POST /v1/numbers', 'PUT /v1/numbers/{id}', 'DELETE /v1/numbers/{id}',
      'GET /v1/messages', 'POST /v1/messages', 'GET /v1/recordings', 'GET /v1/recordings/{id}',
      'GET /v1/transcripts/{id}', 'GET /v1/webhooks', 'POST /v1/webhooks', 'DELETE /v1/webhooks/{id}',
    ]) expect(operations).toContain(op);
  });

  it('takes request bodies and list parameters from the validating schemas', () => {
    const place = doc.paths['/v1/calls'].post;
    expect(place.responses['201']).toBeDefined();
    const body = place.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.to).toMatchObject({ type: 'string', pattern: '^\\+[1-9]\\d{1,14}$' });
    expect(body.properties.ai_receptionist.type).toBe('boolean');
    const list = doc.paths['/v1/calls'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(['limit', 'cursor', 'created_after', 'created_before', 'status']));
    const limit = doc.paths['/v1/messages'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema.properties.events.items.enum).toHaveLength(7);
    expect(doc.paths['/v1/numbers/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.paths['/v1/calls/{id}/transfer'].post.responses['200']).toBeDefined();
  });
});
