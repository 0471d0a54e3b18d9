import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';

// Regression: the README's made-up SVC_TEST_mykey against `serve` got 201 in the default session, then a bare 404 for what the test's own session had made, with no hint that sessions issue their own keys.

let server: SandboxServer;
beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(() => server.close());

const CALL = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
const v1 = (method: string, path: string, key: string, body?: string) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });

describe('a key no session issued, against serve', () => {
  it('is served by the default session, and every answer says so in headers; a 2xx body is what any key gets', async () => {
    const made = await v1('POST', '/v1/calls', 'SVC_TEST_mykey', CALL);
    expect(made.status).toBe(201);
    expect(made.headers.get('x-sandbox-session')).toBe('default');
    expect(made.headers.get('x-sandbox-hint')).toMatch(/issued by no session.*default session.*POST \/__sandbox\/sessions.*apiKey/);
    const call = await made.json();
    expect(Object.keys(call).sort()).toEqual(Object.keys(await (await v1('POST', '/v1/calls', server.apiKey, CALL)).json()).sort());
  });

  it('a 404 tells why it may be missing: the key reaches the default session, not the session that made it', async () => {
    // Another seed than the default session's, so its call's id is not one the default session made too.
    const session = await (
      await fetch(`${server.url}/__sandbox/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"seed": 77}',
      })
    ).json();
    const call = await (await v1('POST', '/v1/calls', session.apiKey, CALL)).json();
    const missing = await v1('GET', `/v1/calls/${call.id}`, 'SVC_TEST_mykey');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-sandbox-session')).toBe('default');
    const { error } = await missing.json();
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(/This key was issued by no session: it reaches the default session/);
    expect(error.message).toMatch(/POST \/__sandbox\/sessions answered/);
  });

  it("a session's own key, and the default session's issued key (exec's SVC_API_KEY), get no hint", async () => {
    const session = await (
      await fetch(`${server.url}/__sandbox/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json();
    for (const key of [session.apiKey, server.apiKey]) {
      const res = await v1('GET', '/v1/calls/call_0000000000000000', key);
      expect(res.status).toBe(404);
      expect(res.headers.get('x-sandbox-hint')).toBeNull();
      expect((await res.json()).error.message).not.toMatch(/issued by no session/);
    }
  });
});
