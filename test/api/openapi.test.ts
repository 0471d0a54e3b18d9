import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';
import { redoclyFindings } from '../support/redocly.js';

const doc = createSandbox({ baseUrl: 'https://api.example.test' }).openapi() as any;

describe('sandbox.openapi()', () => {
  it('describes every endpoint of the spec, at the base URL, with bearer auth', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example.test', description: 'The sandbox.' }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const op of [
      'GET /v1/calls',
      'POST /v1/calls',
      'GET /v1/calls/{id}',
      'POST /v1/calls/{id}/transfer',
      'GET /v1/numbers',
      'POST /v1/numbers',
      'PUT /v1/numbers/{id}',
      'DELETE /v1/numbers/{id}',
      'GET /v1/messages',
      'POST /v1/messages',
      'GET /v1/recordings',
      'GET /v1/recordings/{id}',
      'GET /v1/transcripts/{id}',
      'GET /v1/webhooks',
      'POST /v1/webhooks',
      'DELETE /v1/webhooks/{id}',
    ])
      expect(operations).toContain(op);
  });

  it('takes request bodies and list parameters from the validating schemas', () => {
    const place = doc.paths['/v1/calls'].post;
    expect(place.responses['201']).toBeDefined();
    // Either/or bodies are oneOf complete, closed objects: what generators make exact union types of.
    const [call, campaign] = place.requestBody.content['application/json'].schema.oneOf;
    expect(call).toMatchObject({ type: 'object', additionalProperties: false, required: ['to', 'from'] });
    expect(Object.keys(call.properties)).toEqual(['to', 'from', 'ai_receptionist']);
    expect(call.properties.to).toMatchObject({ type: 'string', pattern: '^\\+[1-9]\\d{1,14}$' });
    expect(call.properties.ai_receptionist.type).toBe('boolean');
    expect(campaign).toMatchObject({ type: 'object', additionalProperties: false, required: ['campaign'] });
    expect(Object.keys(campaign.properties)).toEqual(['campaign']);
    const list = doc.paths['/v1/calls'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(['limit', 'cursor', 'created_after', 'created_before', 'status']));
    const limit = doc.paths['/v1/messages'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema.properties.events.items.enum).toHaveLength(7);
    expect(doc.paths['/v1/numbers/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.paths['/v1/calls/{id}/transfer'].post.responses['200']).toBeDefined();
  });
});

describe('the document holds itself and the answers to account', () => {
  it("passes @redocly/openapi-core's recommended rules with no error and no warning", async () => {
    expect((await redoclyFindings(doc)).map((p) => p.line)).toEqual([]);
  });

  it('gives every operation an operationId, its success answer a schema, and every status the error envelope', () => {
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        const statuses = Object.keys(op.responses);
        expect(
          statuses.filter((s) => /^2/.test(s)),
          where,
        ).toHaveLength(1);
        for (const status of ['401', '403', '429', '500', '503']) expect(statuses, where).toContain(status);
        expect(statuses, where).not.toContain('5XX'); // some generators turn status ranges into code that does not compile
        for (const status of statuses.filter((s) => !/^2/.test(s))) {
          expect(op.responses[status].content['application/json'].schema, `${where} ${status}`).toEqual({
            $ref: '#/components/schemas/Error',
          });
        }
      }
    }
    expect(doc.paths['/v1/recordings/{id}/audio'].get.responses['200'].content).toHaveProperty('audio/wav');
    expect(doc.paths['/v1/transcripts/{id}'].get.responses['200'].content).toHaveProperty('text/event-stream');
    expect(doc.paths['/v1/calls'].post.responses).toHaveProperty('422');
    expect(doc.paths['/v1/recordings/{id}/audio'].get.responses['200'].headers).toHaveProperty('Content-Disposition');
    // 3.1 only: no `nullable`, and schemas give `examples` (parameters and media types keep their own `example`).
    expect(JSON.stringify(doc)).not.toMatch(/"nullable"/);
    const schemas: unknown[] = [doc.components.schemas, Object.values(doc.components.headers).map((h: any) => h.schema)];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (typeof node === 'object' && node !== null)
        for (const [key, value] of Object.entries(node)) key === 'schema' ? schemas.push(value) : key !== 'example' && collect(value);
    };
    collect(doc.paths);
    expect(schemas.length).toBeGreaterThan(100);
    expect(JSON.stringify(schemas)).not.toMatch(/"example":/);
    expect(JSON.stringify(schemas)).toMatch(/"examples":/);
  });
});

describe('the conformance check (test/setup/conformance.ts)', () => {
  const checker = new Conformance(doc);
  const headers = (extra: Record<string, string> = {}) =>
    new Headers({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'req_0000000000000000',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': '1',
      ...extra,
    });
  const call = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: 'call_0000000000000000',
      status: 'ringing',
      ai_handler: 'none',
      direction: 'outbound',
      from: '+14155550100',
      to: '+14155550123',
      ai_receptionist: false,
      answered_by: null,
      disposition: null,
      duration: null,
      agent: null,
      extension: null,
      campaign_id: null,
      recording_id: null,
      recording_url: null,
      transcript_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      answered_at: null,
      ended_at: null,
      ...over,
    });

  it('passes a documented answer, and names each way an answer can break the document', () => {
    expect(checker.check('GET', '/v1/calls/call_0000000000000000', 200, headers(), call())).toEqual([]);
    expect(checker.check('GET', '/v1/calls/call_0000000000000000', 200, headers(), call({ secret: 1 }))).toEqual([
      expect.stringMatching(/must NOT have additional properties/),
    ]);
    expect(checker.check('GET', '/v1/calls/call_0000000000000000', 200, headers(), call({ status: 'lost' }))).toEqual([
      expect.stringMatching(/must be equal to one of the allowed values|must match exactly one schema/),
    ]);
    expect(checker.check('GET', '/v1/calls/call_0000000000000000', 200, headers({ 'x-debug': '1' }), call())).toEqual([
      'GET /v1/calls/call_0000000000000000 → 200: header x-debug is not documented',
    ]);
    expect(checker.check('GET', '/v1/calls/call_0000000000000000', 418, headers(), '{}')).toEqual([
      expect.stringMatching(/status not listed/),
    ]);
    expect(checker.check('DELETE', '/v1/numbers/num_x', 204, headers(), 'x')).toEqual([
      expect.stringMatching(/a body where the document says none/),
    ]);
    expect(checker.check('GET', '/v1/nothing', 404, headers(), '{"error":{"code":"not_found","message":"no","extra":1}}')).toEqual([
      expect.stringMatching(/additional properties/),
    ]);
    // Server errors are listed one by one (no 5XX): a real 500, and a 503 with its Retry-After, are documented answers.
    const failure = (code: string) => `{"error":{"code":"${code}","message":"The service failed to answer."}}`;
    expect(checker.check('GET', '/v1/calls', 500, headers(), failure('internal_error'))).toEqual([]);
    expect(checker.check('GET', '/v1/calls', 503, headers({ 'retry-after': '1' }), failure('service_unavailable'))).toEqual([]);
    expect(checker.check('GET', '/v1/calls', 500, headers({ 'retry-after': '1' }), failure('internal_error'))).toEqual([
      expect.stringMatching(/header retry-after is not documented/),
    ]);
  });
});
