import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../dist/index.js';
import { client } from './generated/hey-api/client.gen';
import * as heyApi from './generated/hey-api';
import * as orval from './generated/orval/client';
import { configureSandboxFetch } from './orval-fetch';

/**
 * The flow through each generated client (run.sh generates them) against the standalone server:
 * a session from the control API, three calls created, one fetched, all listed two at a time
 * with the cursor, and the clock advanced until the call is answered.
 */
let server: SandboxServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 18 });
});
afterAll(() => server.close());

const TO = ['+14155550123', '+14155550124', '+14155550125'];

describe('the @hey-api/openapi-ts client', () => {
  it('creates calls, gets one, lists them with a cursor and advances the clock', async () => {
    // As docs/openapi.md says: one client; the control API's operations declare no security, so it
    // sends the key only to /v1.
    client.setConfig({ baseUrl: server.url });
    const session = await heyApi.createSession({ body: { seed: 1 } });
    expect(session.response.status).toBe(201);
    client.setConfig({ auth: session.data!.apiKey });

    const ids: string[] = [];
    for (const to of TO) {
      const placed = await heyApi.placeCall({ body: { to, from: '+14155550100' } });
      expect(placed.response.status).toBe(201);
      const call = placed.data!;
      if (!('status' in call)) throw new Error('expected a call, not a campaign');
      expect(call.status).toBe('ringing');
      ids.push(call.id);
    }

    const fetched = await heyApi.getCall({ path: { id: ids[0]! } });
    expect(fetched.data && 'to' in fetched.data && fetched.data.to).toBe(TO[0]);

    const first = await heyApi.listCalls({ query: { limit: 2 } });
    expect(first.data!.has_more).toBe(true);
    const second = await heyApi.listCalls({ query: { limit: 2, cursor: first.data!.next_cursor! } });
    expect(second.data!.has_more).toBe(false);
    expect([...first.data!.data, ...second.data!.data].map((c) => c.id)).toEqual([...ids].reverse());

    const advanced = await heyApi.advance({ path: { s: session.data!.id }, body: { duration: '6s' } });
    expect(advanced.response.status).toBe(200);
    const answered = await heyApi.getCall({ path: { id: ids[0]! } });
    expect(answered.data && 'status' in answered.data && answered.data.status).toBe('answered');

    const refused = await heyApi.placeCall({ body: { to: '+15005550001', from: '+14155550100' } });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error.code).toBe('unreachable_destination');
  });
});

describe('the orval client', () => {
  it('creates calls, gets one, lists them with a cursor and advances the clock', async () => {
    configureSandboxFetch({ baseUrl: server.url });
    const session = await orval.createSession({ seed: 2 });
    if (session.status !== 201) throw new Error(`createSession answered ${session.status}`);
    configureSandboxFetch({ baseUrl: server.url, apiKey: session.data.apiKey });

    const ids: string[] = [];
    for (const to of TO) {
      const placed = await orval.placeCall({ to, from: '+14155550100' });
      if (placed.status !== 201) throw new Error(`placeCall answered ${placed.status}`);
      if (!('status' in placed.data)) throw new Error('expected a call, not a campaign');
      expect(placed.data.status).toBe('ringing');
      ids.push(placed.data.id);
    }

    const fetched = await orval.getCall(ids[0]!);
    expect(fetched.status === 200 && 'to' in fetched.data && fetched.data.to).toBe(TO[0]);

    const first = await orval.listCalls({ limit: 2 });
    if (first.status !== 200) throw new Error(`listCalls answered ${first.status}`);
    expect(first.data.has_more).toBe(true);
    const second = await orval.listCalls({ limit: 2, cursor: first.data.next_cursor! });
    if (second.status !== 200) throw new Error(`listCalls answered ${second.status}`);
    expect(second.data.has_more).toBe(false);
    expect([...first.data.data, ...second.data.data].map((c) => c.id)).toEqual([...ids].reverse());

    const advanced = await orval.advance(session.data.id, { duration: '6s' });
    expect(advanced.status).toBe(200);
    const answered = await orval.getCall(ids[0]!);
    expect(answered.status === 200 && 'status' in answered.data && answered.data.status).toBe('answered');

    const refused = await orval.placeCall({ to: '+15005550001', from: '+14155550100' });
    expect(refused.status).toBe(422);
    expect(refused.status === 422 && refused.data.error.code).toBe('unreachable_destination');
  });
});
