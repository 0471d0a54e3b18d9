import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { generateApiTypes } from '../generated/generate.js';
import type { paths } from '../generated/openapi.js';

/**
 * A client typed from the document (openapi-typescript's types, openapi-fetch)
 * type-checks (tsc, in npm test) and runs against the sandbox, through `sandbox.fetch`.
 */
describe('a typed client generated from sandbox.openapi()', () => {
  it('the committed types are what openapi-typescript makes from the document today', async () => {
    const committed = readFileSync(new URL('../generated/openapi.d.ts', import.meta.url), 'utf8');
    // Regenerate with: the body of this test, written to test/generated/openapi.d.ts.
    expect(committed).toBe(await generateApiTypes());
  });

  it('places, fetches, lists and transfers calls, provisions a number and sends a message, all typed', async () => {
    const sandbox = createSandbox({ seed: 8 });
    const api = createClient<paths>({
      baseUrl: sandbox.baseUrl,
      fetch: sandbox.fetch,
      headers: { authorization: 'Bearer SVC_TEST_typed' },
    });

    const placed = await api.POST('/v1/calls', { body: { to: '+14155550123', from: '+14155550100' } });
    expect(placed.response.status).toBe(201);
    const call = placed.data!;
    if (!('ai_handler' in call) || 'object' in call) throw new Error('expected a call, not a campaign');
    expect(call.status).toBe('ringing'); // typed: 'ringing' | 'answered' | 'completed'

    await sandbox.advance('6s');
    const transferred = await api.POST('/v1/calls/{id}/transfer', { params: { path: { id: call.id } }, body: { agent: 'maria' } });
    expect(transferred.data?.agent).toBe('maria');

    const fetched = await api.GET('/v1/calls/{id}', { params: { path: { id: call.id } } });
    expect(fetched.data && 'status' in fetched.data && fetched.data.status).toBe('answered');

    const page = await api.GET('/v1/calls', { params: { query: { limit: 1, status: 'answered' } } });
    expect(page.data?.data.map((c) => c.id)).toEqual([call.id]);
    expect(page.data?.has_more).toBe(false);

    const refused = await api.POST('/v1/calls', { body: { to: '+15005550001', from: '+14155550100' } });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error.code).toBe('unreachable_destination');

    const number = await api.POST('/v1/numbers', { body: { kind: 'local', area_code: '415' } });
    expect(number.data?.status).toBe('provisioned');
    const message = await api.POST('/v1/messages', { body: { from: number.data!.number, to: '+14155550123', body: 'hi' } });
    expect(message.data?.channel).toBe('sms');
    sandbox.close();
  });
});
