import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeCoverage, startServer, type SandboxServer } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';
import { serverClient } from './client.js';

/**
 * Coverage through the standalone server (docs/coverage.md): a session's, and the union of every
 * session's, deleted ones included, as a Python, Go or Ruby suite reads them, each answer checked
 * against the server's OpenAPI document.
 */
let server: SandboxServer;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 4 });
});
afterEach(() => server.close());

const { api, control } = serverClient(() => server.url);

/** GET a control path, its answer checked against the server's own OpenAPI document. */
async function getChecked(path: string) {
  const document = new Conformance((await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as Record<string, any>);
  const res = await fetch(`${server.url}/__sandbox${path}`);
  const text = await res.text();
  expect(
    document.check('GET', `/__sandbox${path}`, res.status, new Headers({ 'content-type': res.headers.get('content-type')! }), text),
  ).toEqual([]);
  return { status: res.status, body: JSON.parse(text) };
}
const CALL = { to: '+14155550123', from: '+14155550100' };

describe('coverage on the server', () => {
  it("GET /sessions/{s}/coverage answers the session's report; GET /coverage the union of every session, deleted ones included", async () => {
    const a = (await control.post('/sessions', {})).body;
    const b = (await control.post('/sessions', {})).body;
    expect((await api(a.apiKey).post('/v1/calls', { ...CALL, to: '+15005550002' })).status).toBe(201);
    expect((await api(b.apiKey).post('/v1/calls', { ...CALL, to: '+15005550003' })).status).toBe(201);
    await control.post(`/sessions/${a.id}/advance`, { duration: '1m' });
    await control.post(`/sessions/${b.id}/advance`, { duration: '1m' });
    await control.post(`/sessions/${b.id}/reset`);

    const ofA = await getChecked(`/sessions/${a.id}/coverage`);
    expect(ofA.status).toBe(200);
    expect(ofA.body.calls.dispositions).toMatchObject({ busy: 1, no_answer: 0 });
    expect(ofA.body.uncovered).toContain('calls.dispositions: no_answer');
    // What the session never made happen leads; the 5xx statuses, which only a fault answers, come last.
    expect(ofA.body.gaps[0]).toMatchObject({
      needs: 'behaviour',
      section: 'calls.dispositions',
      never: ['answered', 'no_answer', 'failed', 'canceled'],
    });
    expect(ofA.body.gaps.at(-2)).toMatchObject({
      needs: 'fault',
      never: expect.arrayContaining(['POST /v1/calls 500', 'POST /v1/calls 503']),
    });
    const ofB = (await getChecked(`/sessions/${b.id}/coverage`)).body;
    expect(ofB.calls.dispositions).toMatchObject({ busy: 0, no_answer: 1 }); // the reset kept it

    expect((await control.delete(`/sessions/${a.id}`)).status).toBe(204);
    const union = await getChecked('/coverage');
    expect(union.status).toBe(200);
    expect(union.body.sandboxes).toBe(3); // default, a (deleted) and b
    expect(union.body.calls.dispositions).toMatchObject({ busy: 1, no_answer: 1 });
    expect(union.body).toEqual(mergeCoverage(ofA.body, ofB, server.sandbox.coverage()));
    expect((await control.get('/sessions/ses_0000000000000000/coverage')).status).toBe(404);

    // After close, the server still has it: what `exec --coverage` writes.
    await server.close();
    expect(server.coverage()).toEqual(union.body);
  });
});
