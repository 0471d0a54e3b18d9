import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { serverClient } from './client.js';

/** Snapshots and forks over the control API (docs/snapshots.md), as a Python or Go suite would use them. */
let server: SandboxServer;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 3 });
});
afterEach(() => server.close());

const { api, control } = serverClient(() => server.url);

/** A session part way through a story: calls ringing, a scripted number, a rate window part used. */
async function story(): Promise<{ id: string; apiKey: string }> {
  const { body } = await control.post('/sessions', { seed: 7 });
  const you = api(body.apiKey);
  expect((await control.put(`/sessions/${body.id}/network/+14155550111`, { outcome: 'busy' })).status).toBe(204);
  await you.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
  await you.post('/v1/calls', { to: '+14155550111', from: '+14155550100' });
  await control.post(`/sessions/${body.id}/advance`, { duration: '3s' });
  for (let i = 0; i < 20; i++) await you.get('/v1/calls?limit=1');
  return body;
}

/** What comes next, on any session: every answer with the headers that carry ids, time and the rate window, then the session's events. */
async function next(session: string, key: string) {
  const you = api(key);
  const seen: unknown[] = [];
  const keep = (res: { status: number; headers: Headers; body: unknown }) =>
    seen.push([
      res.status,
      res.body,
      ...['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'date'].map((h) => res.headers.get(h)),
    ]);
  keep(await you.post('/v1/calls', { to: '+14155550123', from: '+14155550100' }));
  keep(await you.get('/v1/calls'));
  keep(await control.post(`/sessions/${session}/advance`, { duration: '2m' }));
  keep(await you.post('/v1/calls', { to: '+14155550111', from: '+14155550100' }));
  keep(await you.get('/v1/calls?limit=2'));
  keep(await control.get(`/sessions/${session}/events`));
  return seen;
}

describe('snapshots and forks in the server', () => {
  it('POST /sessions {from} forks a session: its new key opens the same account, and the same requests get the same answers, ids, rate windows and events', async () => {
    const original = await story();
    const fork = await control.post('/sessions', { from: original.id });
    expect(fork.status).toBe(201);
    expect(fork.body.id).not.toBe(original.id);
    expect(fork.body.apiKey).toMatch(new RegExp(`^SVC_TEST_${fork.body.id}_`));
    expect(fork.body.now).toBe('2026-01-01T00:00:03.000Z');
    expect((await api(fork.body.apiKey).get('/v1/calls')).body).toEqual((await api(original.apiKey).get('/v1/calls')).body);
    const a = await next(original.id, original.apiKey);
    const b = await next(fork.body.id, fork.body.apiKey);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("regression: a fork's key opens the original's account whatever the scheme's case or blanks (as routing reads it)", async () => {
    const original = await story();
    const fork = (await control.post('/sessions', { from: original.id })).body;
    const expected = (await api(original.apiKey).get('/v1/calls')).body.data.length;
    expect(expected).toBeGreaterThan(0);
    for (const header of [`Bearer ${fork.apiKey}`, `bearer ${fork.apiKey}`, `BEARER\t${fork.apiKey}`, `Bearer  ${fork.apiKey} `]) {
      const res = await fetch(`${server.url}/v1/calls`, { headers: { authorization: header } });
      expect((await res.json()).data.length, header).toBe(expected);
    }
  });

  it("regression: a trigger on a fork acts on the account the fork's key opens", async () => {
    const original = await story();
    const fork = (await control.post('/sessions', { from: original.id })).body;
    const before = (await api(fork.apiKey).get('/v1/calls')).body.data.length;
    const made = await control.post(`/sessions/${fork.id}/trigger`, { type: 'call.started' });
    expect(made.status).toBe(201);
    const calls = (await api(fork.apiKey).get('/v1/calls')).body.data as Array<{ id: string }>;
    expect(calls.length).toBe(before + 1);
    expect(calls.map((call) => call.id)).toContain(made.body.data.id);
  });

  it('GET /sessions/{s}/snapshot and POST /sessions {snapshot}: a session started from the JSON continues as the original', async () => {
    const original = await story();
    const snapshot = await control.get(`/sessions/${original.id}/snapshot`);
    expect(snapshot.status).toBe(200);
    expect(snapshot.body).toMatchObject({ format: 'svc-sandbox-snapshot', apiKey: original.apiKey, now: '2026-01-01T00:00:03.000Z' });
    const copy = await control.post('/sessions', { snapshot: snapshot.body });
    expect(copy.status).toBe(201);
    const a = await next(original.id, original.apiKey);
    const b = await next(copy.body.id, copy.body.apiKey);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // A snapshot of the copy names the original's key too: a copy of a copy opens the same account.
    expect((await control.get(`/sessions/${copy.body.id}/snapshot`)).body.apiKey).toBe(original.apiKey);
  });

  it("a fork's key is its own: revoked, it is 401 while the original's still works", async () => {
    const original = await story();
    const fork = (await control.post('/sessions', { from: original.id })).body;
    expect((await control.delete(`/sessions/${fork.id}/keys/${fork.apiKey}`)).status).toBe(204);
    expect((await api(fork.apiKey).get('/v1/calls')).status).toBe(401);
    expect((await api(original.apiKey).get('/v1/calls')).status).toBe(200);
  });

  it('a fork of the default session answers with a key of its own', async () => {
    await api('SVC_TEST_anyone').post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    const fork = await control.post('/sessions', { from: 'default' });
    expect(fork.status).toBe(201);
    expect((await control.get(`/sessions/${fork.body.id}/events`)).body.data).toEqual(
      (await control.get('/sessions/default/events')).body.data,
    );
  });

  it('bad snapshot input is 400 naming the field (and an unknown session to fork 404)', async () => {
    const original = await story();
    const snapshot = (await control.get(`/sessions/${original.id}/snapshot`)).body;
    const refused = async (body: unknown, status: number, param: string) => {
      const res = await control.post('/sessions', body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error.param).toBe(param);
      return res.body.error.message as string;
    };
    expect(await refused({ snapshot: { ...snapshot, version: '0.0.1' } }, 400, 'snapshot.version')).toMatch(
      /taken by svc-sandbox 0\.0\.1.*take the snapshot again/,
    );
    await refused({ snapshot: 'nope' }, 400, 'snapshot');
    await refused(
      { snapshot: { ...snapshot, inputs: [{ kind: 'request', at: 0, method: 'GET', headers: 'x' }] } },
      400,
      'snapshot.inputs[0].headers',
    );
    await refused({ snapshot: { ...snapshot, format: undefined } }, 400, 'snapshot.format');
    expect(await refused({ from: original.id, seed: 4 }, 400, 'seed')).toMatch(/cannot be given with `from`/);
    // A fork draws the chaos of the session it copies: a profile of its own would change that.
    expect(await refused({ from: original.id, chaos: { calls: { busy: 0.5 } } }, 400, 'chaos')).toMatch(/cannot be given with `from`/);
    await refused({ snapshot, from: original.id }, 400, 'from');
    await refused({ from: 'ses_0000000000000000' }, 404, 'from');
  });
});
