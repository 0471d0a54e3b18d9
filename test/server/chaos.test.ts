import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { serverClient } from './client.js';

/**
 * A session's chaos profile (docs/chaos.md), over real HTTP as a Python, Go or Ruby suite sets
 * it: `POST /__sandbox/sessions {seed, chaos}`; a bad profile is a 400 naming the field; the
 * profile's JSON Schema is in the server's OpenAPI document.
 */
let server: SandboxServer;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 3 });
});
afterEach(async () => {
  await server.close();
});

const { api, call, control } = serverClient(() => server.url);
const CALL = { to: '+14155550123', from: '+14155550100' };
const PROFILE = {
  requests: { 'POST /v1/calls': { serverError: 0.2, rateLimited: 0.1 }, '/v1/calls/{id}': { serverError: 0.3, status: 502 } },
  calls: { busy: 0.2, no_answer: 0.2, voicemail: 0.2 },
  webhooks: { duplicate: 0.5 },
};

/** A session with the profile, and what a fixed workload sees in it. */
async function workload(seed: number) {
  const made = await control.post('/sessions', { seed, chaos: PROFILE });
  expect(made.status).toBe(201);
  const key = made.body.apiKey as string;
  const seen: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    const placed = await api(key).post('/v1/calls', CALL);
    seen.push([placed.status, placed.headers.get('x-sandbox-chaos'), placed.body]);
    if (placed.status === 201) {
      const got = await api(key).get(`/v1/calls/${placed.body.id}`);
      seen.push([got.status, got.headers.get('x-sandbox-chaos'), got.body]);
    }
  }
  await control.post(`/sessions/${made.body.id}/advance`, { duration: '5m' });
  const calls = await api(key).get('/v1/calls?limit=100');
  // Cursors are the session's own (opaque, keyed per session): compare the pages' items.
  return { seen, calls: calls.body.data, events: (await control.get(`/sessions/${made.body.id}/events?limit=100`)).body.data };
}

describe('a session with a chaos profile', () => {
  it('fails as its profile says, and two sessions with the same seed and profile give the same answers and events', async () => {
    const a = await workload(21);
    const b = await workload(21);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const statuses = a.seen.map((s) => (s as [number])[0]);
    expect(statuses).toEqual(expect.arrayContaining([201, 200, 503, 429, 502]));
    expect(a.seen).toContainEqual([503, 'status=503', { error: expect.objectContaining({ code: 'service_unavailable' }) }]);
    const dispositions = new Set((a.calls as Array<{ disposition: string }>).map((c) => c.disposition));
    expect(dispositions).toEqual(new Set(['answered', 'busy', 'no_answer']));
    // The default session has no profile: nothing fails there.
    for (let i = 0; i < 10; i++) expect((await api('SVC_TEST_plain').post('/v1/calls', CALL)).status).toBe(201);
  });

  it('drops the connection of a request its profile says so', async () => {
    const made = await control.post('/sessions', { chaos: { requests: { 'GET /v1/calls': { network: 1 } } } });
    await expect(api(made.body.apiKey).get('/v1/calls')).rejects.toThrow(TypeError);
    expect((await api(made.body.apiKey).post('/v1/calls', CALL)).status).toBe(201);
  });

  it.each([
    [{ calls: { busy: 2 } }, 'chaos.calls.busy', /from 0 to 1/],
    [{ calls: { busy: 0.5, failed: 0.6 } }, 'chaos.calls', /add up to at most 1/],
    [{ requests: { default: { serverErorr: 0.1 } } }, 'chaos.requests.default.serverErorr', /Unknown field .*did you mean `serverError`/],
    [{ requests: { 'POST /v1/cals': { serverError: 0.1 } } }, 'chaos.requests.POST /v1/cals', /did you mean "POST \/v1\/calls"/],
    [{ webhooks: { reorderDelay: '2d' } }, 'chaos.webhooks.reorderDelay', /1 day/],
  ])('refuses the profile %j with a 400 naming %s, and makes no session', async (chaos, param, message) => {
    const refused = await control.post('/sessions', { chaos });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(refused.body.error.message).toMatch(message);
    expect((await control.get('/sessions')).body.data.map((s: { id: string }) => s.id)).toEqual(['default']);
  });

  it("publishes the profile's JSON Schema in the server's OpenAPI document, as the session body's `chaos`", async () => {
    const doc = (await call('GET', '/__sandbox/openapi.json')).body;
    const body = doc.paths['/__sandbox/sessions'].post.requestBody.content['application/json'].schema;
    const chaos = body.properties.chaos;
    expect(Object.keys(chaos.properties)).toEqual(['requests', 'calls', 'messages', 'webhooks']);
    expect(chaos.additionalProperties).toBe(false);
    expect(chaos.properties.requests.propertyNames.pattern).toBe('^(default|((GET|POST|PUT|DELETE) )?\\/[^?#\\s]*)$');
    expect(chaos.properties.requests.additionalProperties.properties.serverError).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(Object.keys(chaos.properties.calls.properties)).toEqual(['failed', 'busy', 'no_answer', 'voicemail']);
    expect(Object.keys(chaos.properties.webhooks.properties)).toEqual(['duplicate', 'reorder', 'reorderDelay']);
  });
});
