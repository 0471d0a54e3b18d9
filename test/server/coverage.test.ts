import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeCoverage, startServer, type SandboxServer } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';
import { serverClient } from './client.js';

/**
 * Coverage through the standalone server (docs/coverage.md): a session's, and the union of every
 * session's, deleted ones included, as a Python, Go or Ruby suite reads them. Each control answer
 * is checked against the server's OpenAPI document.
 */
let server: SandboxServer;
let conformance: Conformance | undefined;
const problems: string[] = [];
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 4 });
});
afterEach(async () => {
  await server.close();
  expect(problems.splice(0), 'control answers the OpenAPI document does not describe').toEqual([]);
});

const { api, control } = serverClient(
  () => server.url,
  async (method, path, res, text) => {
    if (!path.startsWith('/__sandbox/')) return;
    conformance ??= new Conformance((await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as Record<string, any>);
    problems.push(...conformance.check(method, path, res.status, new Headers({ 'content-type': res.headers.get('content-type')! }), text || null));
  },
);
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

    const ofA = await control.get(`/sessions/${a.id}/coverage`);
    expect(ofA.status).toBe(200);
    expect(ofA.body.calls.dispositions).toMatchObject({ busy: 1, no_answer: 0 });
    expect(ofA.body.uncovered).toContain('calls.dispositions: no_answer');
    const ofB = (await control.get(`/sessions/${b.id}/coverage`)).body;
    expect(ofB.calls.dispositions).toMatchObject({ busy: 0, no_answer: 1 }); // the reset kept it

    expect((await control.delete(`/sessions/${a.id}`)).status).toBe(204);
    const union = await control.get('/coverage');
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
