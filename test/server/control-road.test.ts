import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { controlRoutes } from '../../src/server/control/api.js';
import { serverClient } from './client.js';

/**
 * The control API on `/v1`'s road (docs/architecture.md, "One road"): the same
 * route table matcher, the same body reader and the same error mapping, so it answers what
 * `/v1` answers for the same mistakes, and a route's `run` only ever sees input its schemas
 * accepted.
 */
describe('the control API takes the /v1 road', () => {
  let server: SandboxServer;
  const { call, control } = serverClient(() => server.url);
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 1 });
  });
  afterAll(() => server.close());

  it('an unknown control path is 404 naming the nearest control endpoint, as /v1 names its nearest', async () => {
    const typo = await control.post('/sessions/default/advanse', { duration: '1s' });
    expect(typo.status).toBe(404);
    expect(typo.body.error.code).toBe('not_found');
    expect(typo.body.error.message).toContain('Did you mean POST /__sandbox/sessions/{s}/advance?');
    const v1 = await call('GET', '/v1/call', undefined, { authorization: 'Bearer SVC_TEST_road' });
    expect(v1.body.error.message).toContain('Did you mean GET /v1/calls?');
  });

  it('a known path with another method is 405 with Allow, and HEAD is answered like GET without a body', async () => {
    const wrong = await call('PATCH', '/__sandbox/sessions');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, GET, HEAD');
    const head = await fetch(`${server.url}/__sandbox/sessions`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await head.text()).toBe('');
  });

  it('bodies are read as /v1 reads them: bad UTF-8 and bad JSON are 400 invalid_json, an empty body stands for {}', async () => {
    const badUtf8 = await fetch(`${server.url}/__sandbox/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(badUtf8.status).toBe(400);
    expect((await badUtf8.json()).error).toMatchObject({ code: 'invalid_json', message: expect.stringContaining('UTF-8') });
    const badJson = await control.post('/sessions', '{"seed": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.code).toBe('invalid_json');
    const empty = await control.post('/sessions/default/reset');
    expect(empty.status).toBe(204);
  });

  it('a route that takes no fields refuses one, naming it, and does nothing', async () => {
    const placed = await call(
      'POST',
      '/v1/calls',
      { to: '+14155550123', from: '+14155550100' },
      { authorization: `Bearer ${server.apiKey}` },
    );
    const hangUp = await control.post(`/sessions/default/calls/${placed.body.id}/hang-up`, { now: true });
    expect(hangUp.status).toBe(400);
    expect(hangUp.body.error).toMatchObject({ code: 'invalid_parameter', param: 'now' });
    expect(server.sandbox.calls.get(placed.body.id)!.status).toBe(placed.body.status);
    expect(placed.body.status).not.toBe('completed');
  });

  it('input is parsed before the route runs: a bad field is 400 naming the JSON field, not the library argument', async () => {
    const behavior = await control.put('/sessions/default/network/+14155550123', { outcome: 'bussy' });
    expect(behavior.status).toBe(400);
    expect(behavior.body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'outcome',
      message: expect.stringContaining('did you mean "busy"'),
    });
    expect(behavior.body.error.message).not.toContain('setBehavior');
    const page = await control.get('/sessions?limit=0');
    expect(page.status).toBe(400);
    expect(page.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('a session the path names and the server lacks is 404 naming `s`, before the body is looked at', async () => {
    const gone = await control.post('/sessions/ses_nothere/advance', 'not json');
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'not_found', param: 's' });
  });

  it('every row names its session in the path as `{s}`, unless it is global: the road finds the session by that name', () => {
    const unnamed = controlRoutes.filter((route) => !route.global && !route.path.startsWith('/sessions/{s}')).map((r) => r.path);
    expect(unnamed).toEqual([]);
    expect(controlRoutes.filter((route) => !route.global).length).toBeGreaterThan(40);
  });
});
