import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { readStream } from '../transcripts/sse-client.js';
import { serverClient } from './client.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';

/**
 * The standalone server (CONTRACT §8), driven over real HTTP on 127.0.0.1 with port 0, as a
 * Python, Go or Ruby suite would drive it.
 */
let server: SandboxServer;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 3 });
});
afterEach(async () => {
  await server.close();
  await closeReceivers();
});

const { api, control } = serverClient(() => server.url);
const CALL = { to: '+14155550123', from: '+14155550100' };

describe('the standalone server', () => {
  it('listens on loopback, answers the health check and serves the API with the default session', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await control.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const placed = await api('SVC_TEST_anyone').post('/v1/calls', CALL);
    expect(placed.status).toBe(201);
    expect(placed.headers.get('x-ratelimit-limit')).toBe('100');
    // The default session is the server's `sandbox`: one surface seen twice.
    expect(server.sandbox.calls.get(placed.body.id)?.status).toBe('ringing');
    const advanced = await control.post('/sessions/default/advance', { duration: '65s' });
    expect(advanced.status).toBe(200);
    expect(advanced.body.now).toBe('2026-01-01T00:01:05.000Z');
    expect(advanced.body.events.map((e: { type: string }) => e.type)).toEqual(['call.answered', 'call.completed']);
    expect((await api('SVC_TEST_anyone').get(`/v1/calls/${placed.body.id}`)).body).toMatchObject({ status: 'completed', duration: 60 });
  });

  it('gives every session its own clock, seed and state; a session with seed N makes the ids createSandbox({ seed: N }) makes', async () => {
    const a = await control.post('/sessions', { seed: 42 });
    const b = await control.post('/sessions', { seed: 42, startTime: '2030-05-01T00:00:00Z' });
    expect(a).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^ses_/), apiKey: expect.stringMatching(/^SVC_TEST_ses_/), now: '2026-01-01T00:00:00.000Z' },
    });
    expect(b.body.now).toBe('2030-05-01T00:00:00.000Z');
    const inA = await api(a.body.apiKey).post('/v1/calls', CALL);
    const inB = await api(b.body.apiKey).post('/v1/calls', CALL);
    const { createSandbox } = await import('../../src/index.js');
    const local = createSandbox({ seed: 42 });
    const res = await local.handle(
      new Request(`${local.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: 'Bearer SVC_TEST_x', 'content-type': 'application/json' },
        body: JSON.stringify(CALL),
      }),
    );
    expect(inA.body.id).toBe((await res.json()).id);
    expect(inB.body.id).toBe(inA.body.id);
    local.close();
    // A's clock moves; B's and the default session's do not.
    await control.post(`/sessions/${a.body.id}/advance`, { duration: '1h' });
    const sessions = (await control.get('/sessions')).body.data;
    expect(sessions).toEqual([
      { id: 'default', seed: 3, now: '2026-01-01T00:00:00.000Z' },
      { id: a.body.id, seed: 42, now: '2026-01-01T01:00:00.000Z' },
      { id: b.body.id, seed: 42, now: '2030-05-01T00:00:00.000Z' },
    ]);
    // Each session sees only its own calls.
    expect((await api(a.body.apiKey).get('/v1/calls')).body.data).toHaveLength(1);
    expect((await api('SVC_TEST_other').get('/v1/calls')).body.data).toHaveLength(0);
  });

  it('deleting a session ends it: its keys are 401, its path 404', async () => {
    const { body } = await control.post('/sessions', {});
    const key = (await control.post(`/sessions/${body.id}/keys`)).body.key;
    expect(key).toMatch(new RegExp(`^SVC_TEST_${body.id}_`));
    expect((await api(key).get('/v1/calls')).status).toBe(200);
    expect((await control.delete(`/sessions/${body.id}`)).status).toBe(204);
    expect((await api(key).get('/v1/calls')).status).toBe(401);
    expect((await api(body.apiKey).get('/v1/calls')).body.error.code).toBe('invalid_api_key');
    expect((await control.post(`/sessions/${body.id}/advance`, { duration: '1s' })).status).toBe(404);
    expect((await control.delete('/sessions/default')).status).toBe(409);
  });

  it('deleting a session during its advance and during a webhook attempt is safe: the advance answers 409, nothing crashes', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const receiver = await startReceiver(() => {
      arrived();
      return 'hang';
    });
    const { body } = await control.post('/sessions', {});
    expect((await api(body.apiKey).post('/v1/webhooks', { url: receiver.url, events: ['call.started'] })).status).toBe(201);
    await api(body.apiKey).post('/v1/calls', CALL);
    const advancing = control.post(`/sessions/${body.id}/advance`, { duration: '1m' });
    await inFlight;
    expect((await control.delete(`/sessions/${body.id}`)).status).toBe(204);
    const answer = await advancing;
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'interrupted', message: expect.stringMatching(/closed while it ran/) });
    expect((await control.get('/health')).status).toBe(200);
  });

  it('reset keeps the keys a session made, and empties everything else', async () => {
    const { body } = await control.post('/sessions', {});
    await api(body.apiKey).post('/v1/calls', CALL);
    expect((await control.post(`/sessions/${body.id}/reset`)).status).toBe(204);
    expect((await api(body.apiKey).get('/v1/calls')).body.data).toEqual([]);
    expect((await control.get(`/sessions/${body.id}/keys`)).body.data).toEqual([
      { key: body.apiKey, createdAt: '2026-01-01T00:00:00.000Z' },
    ]);
    expect((await control.delete(`/sessions/${body.id}/keys/${body.apiKey}`)).status).toBe(204);
    expect((await api(body.apiKey).get('/v1/calls')).status).toBe(401);
  });

  it('scripts calls, the network, faults and inbound traffic through the same functions as the library', async () => {
    const key = 'SVC_TEST_scripter';
    expect((await control.put('/sessions/default/network/+14155550123', { ring: 'manual' })).status).toBe(204);
    const placed = await api(key).post('/v1/calls', CALL);
    const answered = await control.post(`/sessions/default/calls/${placed.body.id}/answer`, { by: 'voicemail' });
    expect(answered).toMatchObject({ status: 200, body: { status: 'answered', answered_by: 'voicemail' } });
    expect((await control.post(`/sessions/default/calls/${placed.body.id}/answer`)).body.error).toMatchObject({ code: 'conflict' });
    expect((await control.post(`/sessions/default/calls/${placed.body.id}/hang-up`)).body).toMatchObject({
      status: 'completed',
      disposition: 'answered',
    });
    expect((await control.post('/sessions/default/calls/call_nope/hang-up')).status).toBe(404);
    expect((await control.delete('/sessions/default/network/+14155550123')).status).toBe(204);

    expect((await control.post('/sessions/default/faults', { path: '/v1/calls', status: 503 })).status).toBe(201);
    expect((await api(key).post('/v1/calls', CALL)).status).toBe(503);
    expect((await control.delete('/sessions/default/faults')).status).toBe(204);

    const inbound = await control.post('/sessions/default/calls/inbound', { from: '+14155550999', to: '+14155550100', apiKey: key });
    expect(inbound).toMatchObject({ status: 201, body: { direction: 'inbound', status: 'ringing' } });
    const number = (await api(key).post('/v1/numbers', { kind: 'local', area_code: '415' })).body;
    const message = await control.post('/sessions/default/messages/inbound', { from: '+14155550999', to: number.number, body: 'STOP' });
    expect(message).toMatchObject({ status: 201, body: { direction: 'inbound', status: 'received', body: 'STOP' } });
    expect(server.sandbox.messages.get(message.body.id)?.body).toBe('STOP');
  });

  it('bad control input is 400 naming the field, unknown sessions 404, and nothing changes', async () => {
    const before = (await control.get('/sessions')).body;
    expect((await control.post('/sessions', { seed: 1.5 })).body.error).toMatchObject({ code: 'invalid_parameter', param: 'seed' });
    expect((await control.post('/sessions', { startTime: 'yesterday' })).body.error.message).toMatch(/startTime/);
    expect((await control.post('/sessions', '{"seed":')).body.error.code).toBe('invalid_json');
    expect((await control.post('/sessions/default/advance', { duration: 'soon' })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'duration',
    });
    expect((await control.post('/sessions/default/advance', {})).body.error).toMatchObject({
      code: 'missing_parameter',
      param: 'duration',
    });
    expect((await control.put('/sessions/default/network/+14155550123', { outcome: 'bussy' })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'outcome',
      message: expect.stringMatching(/did you mean "busy"/),
    });
    expect((await control.put('/sessions/default/network/4155550123', {})).body.error.param).toBe('number');
    expect((await control.post('/sessions/default/faults', { status: 404 })).body.error.param).toBe('status');
    expect((await control.post('/sessions/default/calls/inbound', { from: 'x' })).status).toBe(400);
    expect((await control.get('/sessions/nope/events')).status).toBe(404);
    expect((await control.get('/nothing')).status).toBe(404);
    expect((await control.put('/health')).status).toBe(405);
    expect((await control.get('/sessions')).body).toEqual(before);
    expect((await api('SVC_TEST_x').post('/v1/calls', CALL)).status).toBe(201); // the network script stayed unset
    expect(server.sandbox.faults.list()).toEqual([]);
  });

  it('delivers real signed webhooks from the server, lists deliveries and dead letters, and replays one', async () => {
    const received: Array<{ raw: Buffer; signature: string }> = [];
    let failing = true;
    const receiver = await startReceiver((request) => {
      received.push({ raw: request.raw, signature: String(request.headers['x-service-signature']) });
      return failing ? 500 : 200;
    });
    const key = 'SVC_TEST_hooks';
    const subscription = (await api(key).post('/v1/webhooks', { url: receiver.url, events: ['call.completed'] })).body;
    await api(key).post('/v1/calls', { ...CALL, to: '+15005550002' });
    await control.post('/sessions/default/advance', { duration: '2d' });
    expect(received).toHaveLength(13);
    for (const r of received) expect(r.signature).toBe(createHmac('sha256', subscription.secret).update(r.raw).digest('hex'));
    const dead = (await control.get('/sessions/default/dead-letters')).body.data;
    expect(dead).toHaveLength(1);
    expect((await control.get('/sessions/default/deliveries')).body.data[0].attempts).toHaveLength(13);
    failing = false;
    const replayed = await control.post(`/sessions/default/dead-letters/${dead[0].id}/replay`);
    expect(replayed).toMatchObject({ status: 200, body: { data: [{ attempt: 1, status: 200, ok: true }] } });
    expect((await control.post('/sessions/default/dead-letters/dlv_nope/replay')).status).toBe(404);
    expect((await control.get('/sessions/default/events')).body.data.map((e: { type: string }) => e.type)).toEqual([
      'call.started',
      'call.completed',
    ]);
  });

  it('describes the /v1 API and the control API in one OpenAPI document', async () => {
    const { body } = await control.get('/openapi.json');
    expect(body.openapi).toBe('3.1.0');
    expect(body.servers).toEqual([{ url: server.url }]);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/calls',
        '/__sandbox/sessions',
        '/__sandbox/sessions/{s}/advance',
        '/__sandbox/sessions/{s}/network/{number}',
        '/__sandbox/sessions/{s}/stream',
        '/__sandbox/console',
      ]),
    );
    expect(Object.keys(body.paths['/__sandbox/sessions/{s}/stream'].get.responses['200'].content)).toEqual(['text/event-stream']);
    expect(body.paths['/__sandbox/sessions/{s}/advance'].post.responses).toHaveProperty('413');
    expect(
      body.paths['/__sandbox/sessions/{s}/network/{number}'].put.requestBody.content['application/json'].schema.properties,
    ).toHaveProperty('outcome');
  });

  it('stays up on requests Node parses but a Request cannot hold: TRACE is 405, a malformed target 400, both JSON', async () => {
    const { port } = new URL(server.url);
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket
          .on('data', (chunk) => (text += chunk))
          .on('end', () => resolve(text))
          .on('error', reject);
      });
    const trace = await raw('TRACE /v1/calls HTTP/1.1');
    expect(trace).toMatch(/^HTTP\/1\.1 405 /);
    expect(JSON.parse(trace.slice(trace.indexOf('\r\n\r\n') + 4)).error.code).toBe('method_not_allowed');
    const target = await raw('GET http://[bad/v1/calls HTTP/1.1');
    expect(target).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(target.slice(target.indexOf('\r\n\r\n') + 4)).error.code).toBe('invalid_parameter');
    expect(await control.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } }); // still serving
  });

  it('control bodies: null is 400, more than 1 MiB is 413, and neither changes anything', async () => {
    const before = (await control.get('/sessions')).body;
    expect((await control.post('/sessions', 'null')).body.error).toMatchObject({ code: 'invalid_parameter' });
    const big = await control.post('/sessions', JSON.stringify({ seed: 1, pad: 'x'.repeat(1024 * 1024) }));
    expect(big).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect((await control.post('/sessions/default/advance', 'null')).status).toBe(400);
    expect((await control.get('/sessions')).body).toEqual(before);
  });

  it('a session revokes only its own keys, and path segments are decoded once', async () => {
    const a = (await control.post('/sessions', {})).body;
    const made = (await control.post(`/sessions/${a.id}/keys`)).body.key;
    expect((await control.delete(`/sessions/default/keys/${made}`)).body.error).toMatchObject({ code: 'not_found' });
    expect((await api(made).get('/v1/calls')).status).toBe(200); // still valid
    expect((await control.delete(`/sessions/${a.id}/keys/${made}`)).status).toBe(204);
    expect((await api(made).get('/v1/calls')).status).toBe(401);
    // %2B is '+'; %252B is the text '%2B', which is no number and no session.
    expect((await control.put('/sessions/default/network/%2B14155550123', { outcome: 'busy' })).status).toBe(204);
    expect((await control.put('/sessions/default/network/%252B14155550123', { outcome: 'busy' })).body.error.param).toBe('number');
    expect((await control.get(`/sessions/${encodeURIComponent(encodeURIComponent(a.id))}/events`)).status).toBe(200); // ses_ ids need no escaping
    expect((await control.get(`/sessions/${a.id.replace('_', '%255F')}/events`)).status).toBe(404);
  });

  it('the session stream sends each event with its position, and a change when a webhook attempt settles, whoever advanced the clock', async () => {
    const receiver = await startReceiver(() => 500);
    await api('SVC_TEST_live').post('/v1/webhooks', { url: receiver.url, events: ['call.started'] });
    const abort = new AbortController();
    const res = await fetch(`${server.url}/__sandbox/sessions/default/stream`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const { parser } = readStream(res);
    await parser.waitFor(1); // the opening `change`
    await api('SVC_TEST_live').post('/v1/calls', CALL);
    // The library's own advance, not the control API's: only the attempt's settling says "read again".
    await server.sandbox.advance('1s');
    const events = await parser.waitFor(4);
    expect(events.map((e) => e.event)).toEqual(['change', 'event', 'change', 'change']);
    expect(events[1]).toMatchObject({ id: '1', data: { type: 'call.started' } });
    expect(server.sandbox.webhooks.attempts()).toHaveLength(1);
    abort.abort();
    await parser.waitForEnd();
    expect(parser.comments[0]).toMatch(/svc-sandbox session stream/);
    expect(parser.retries).toEqual([1000]);
  });

  it('a busy port is refused with a clear error', async () => {
    const port = Number(new URL(server.url).port);
    await expect(startServer({ port })).rejects.toThrow(/Port \d+ on 127\.0\.0\.1 is already in use/);
  });
});
