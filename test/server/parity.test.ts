import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { serverFailure } from '../../src/server/control/api.js';
import { Conformance } from '../support/conformance.js';
import { startReceiver } from '../webhooks/receivers.js';
import { conformingServer } from './conforming.js';

/**
 * Server parity (docs/server.md, "Parity"): every scripting member of the
 * library has a control route, so a Python, Go or Ruby suite can do what a JavaScript test
 * does. The members are read from a real sandbox at run time: a member added to the library
 * without a route here (or a written reason) fails this file. Then each route added for
 * parity is driven over real HTTP, and every control answer is checked against the server's
 * own OpenAPI document.
 */

/** Member → the control route that serves it. */
const ROUTES: Record<string, string> = {
  advance: 'POST /__sandbox/sessions/{s}/advance',
  advanceUntil: 'POST /__sandbox/sessions/{s}/advance',
  now: 'GET /__sandbox/sessions/{s}',
  reset: 'POST /__sandbox/sessions/{s}/reset',
  snapshot: 'GET /__sandbox/sessions/{s}/snapshot',
  openapi: 'GET /__sandbox/openapi.json',
  internalErrors: 'GET /__sandbox/sessions/{s}/internal-errors',
  'calls.get': 'GET /__sandbox/sessions/{s}/calls/{id}',
  'calls.list': 'GET /__sandbox/sessions/{s}/calls',
  'calls.answer': 'POST /__sandbox/sessions/{s}/calls/{id}/answer',
  'calls.hangUp': 'POST /__sandbox/sessions/{s}/calls/{id}/hang-up',
  'calls.inbound': 'POST /__sandbox/sessions/{s}/calls/inbound',
  'messages.inbound': 'POST /__sandbox/sessions/{s}/messages/inbound',
  'messages.get': 'GET /__sandbox/sessions/{s}/messages/{id}',
  'network.setBehavior': 'PUT /__sandbox/sessions/{s}/network/{number}',
  'network.queueBehavior': 'POST /__sandbox/sessions/{s}/network/{number}/queue',
  'network.setMessageBehavior': 'PUT /__sandbox/sessions/{s}/network/{number}/messages',
  'network.queueMessageBehavior': 'POST /__sandbox/sessions/{s}/network/{number}/messages/queue',
  'network.clearBehavior': 'DELETE /__sandbox/sessions/{s}/network/{number}',
  'faults.inject': 'POST /__sandbox/sessions/{s}/faults',
  'faults.list': 'GET /__sandbox/sessions/{s}/faults',
  'requests.list': 'GET /__sandbox/sessions/{s}/requests',
  coverage: 'GET /__sandbox/sessions/{s}/coverage',
  'faults.clear': 'DELETE /__sandbox/sessions/{s}/faults',
  'events.list': 'GET /__sandbox/sessions/{s}/events',
  'webhooks.deliveries': 'GET /__sandbox/sessions/{s}/deliveries',
  'webhooks.attempts': 'GET /__sandbox/sessions/{s}/attempts',
  'webhooks.deadLetters': 'GET /__sandbox/sessions/{s}/dead-letters',
  'webhooks.replay': 'POST /__sandbox/sessions/{s}/dead-letters/{id}/replay',
  'webhooks.replayAll': 'POST /__sandbox/sessions/{s}/dead-letters/replay',
  'recordings.get': 'GET /__sandbox/sessions/{s}/recordings/{id}',
  'recordings.setTiming': 'PUT /__sandbox/sessions/{s}/recording-timing',
  'transcripts.get': 'GET /__sandbox/sessions/{s}/transcripts/{id}',
  'transcripts.setScript': 'PUT /__sandbox/sessions/{s}/calls/{id}/script',
  'transcripts.openStreams': 'GET /__sandbox/sessions/{s}/transcript-streams',
  'keys.create': 'POST /__sandbox/sessions/{s}/keys',
  'keys.list': 'GET /__sandbox/sessions/{s}/keys',
  'keys.revoke': 'DELETE /__sandbox/sessions/{s}/keys/{key}',
  run: 'POST /__sandbox/sessions/{s}/scenario',
  trigger: 'POST /__sandbox/sessions/{s}/trigger',
};

/** Member → why it has no control route of its own. */
const REASONS: Record<string, string> = {
  listen: 'not scripting: the server itself is what listens; the API is served at /v1',
  close: 'not scripting: DELETE /__sandbox/sessions/{s} ends a session',
  handle: 'not scripting: it is the API itself, served at /v1',
  fetch: 'not scripting: it is the API itself, served at /v1',
  'events.subscribe': 'a callback: the session stream (GET /__sandbox/sessions/{s}/stream) sends each event as it is emitted',
  'webhooks.subscribe': 'a callback: the session stream sends a `change` when an attempt settles; GET .../attempts reads them',
  // Private and protected helpers of the Sandbox classes (TypeScript's `private` is visible at run time).
  advanceWithin: 'private',
  assertOpen: 'protected',
};

/** The library's scripting members of a real sandbox: top-level functions, and `namespace.member` of each namespace. */
function libraryMembers(): string[] {
  const sandbox = createSandbox();
  try {
    const members = new Set<string>();
    // Sandbox and the classes it extends (SandboxBase), up to Object.
    for (let proto = Object.getPrototypeOf(sandbox) as object; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name !== 'constructor' && typeof (proto as Record<string, unknown>)[name] === 'function') members.add(name);
      }
    }
    for (const [name, value] of Object.entries(sandbox)) {
      if (typeof value === 'function') members.add(name);
      // A namespace: a plain object of functions (private state is class instances, arrays, or holds data).
      const plain = value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
      if (plain && Object.values(value).length > 0 && Object.values(value).every((v) => typeof v === 'function')) {
        for (const member of Object.keys(value)) members.add(`${name}.${member}`);
      }
    }
    return [...members].sort();
  } finally {
    sandbox.close();
  }
}

const harness = conformingServer(5);
const { api, control } = harness;
const TO = '+14155550123';
const CALL = { to: TO, from: '+14155550100' };
const KEY = 'SVC_TEST_parity';

describe('parity: every scripting member of the library has a control route', () => {
  it('finds a route or a written reason for each member a real sandbox has', async () => {
    const members = libraryMembers();
    expect(members).toContain('network.queueMessageBehavior'); // the enumeration sees the namespaces
    const missing = members.filter((m) => !(m in ROUTES) && !(m in REASONS));
    expect(
      missing,
      'members with no control route and no reason: add a row to src/server/control/scripting.ts (and ROUTES here), or a reason to REASONS',
    ).toEqual([]);
    // No stale rows: each entry names a member the library has.
    expect([...Object.keys(ROUTES), ...Object.keys(REASONS)].filter((m) => !members.includes(m))).toEqual([]);
    // Each route exists in the server's document, and its summary names the member.
    const doc = (await control.get('/openapi.json')).body;
    for (const [member, route] of Object.entries(ROUTES)) {
      const [method, path] = route.split(' ') as [string, string];
      const operation = doc.paths[path]?.[method.toLowerCase()];
      expect(operation, `${member}: ${route} is not in GET /__sandbox/openapi.json`).toBeDefined();
      // The console's call list (with timelines) predates this rule.
      if (path.startsWith('/__sandbox/sessions/{s}') && member !== 'calls.list')
        expect(operation.summary, `${route} names sandbox.${member}`).toContain(`sandbox.${member}`);
    }
  });

  it("gives every operation of the server's document an operationId of its own (Redocly's recommended rules lint the whole document in test/api/openapi-30.test.ts)", async () => {
    const doc = (await control.get('/openapi.json')).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.length).toBeGreaterThan(70);
  });

  it('lists 500 on every control operation, with the error envelope, as /v1 does, and no 5XX; a real server failure is a documented answer', async () => {
    const doc = (await control.get('/openapi.json')).body;
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith('/__sandbox/')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(operation.responses);
        expect(statuses, where).toContain('500');
        expect(statuses, where).not.toContain('5XX'); // some generators turn status ranges into code that does not compile
        expect(operation.responses['500'].content['application/json'].schema, where).toEqual({ $ref: '#/components/schemas/Error' });
        operations++;
      }
    }
    expect(operations).toBe(57);
    // What serveControl answers when a route throws (control-api.ts serverFailure) is what the document lists.
    const failure = serverFailure(new Error('boom'));
    const checker = new Conformance(doc);
    const headers = new Headers({ 'content-type': failure.headers.get('content-type')! });
    expect(checker.check('POST', '/__sandbox/sessions/default/advance', 500, headers, await failure.text())).toEqual([]);
    expect(
      checker.check(
        'GET',
        '/__sandbox/sessions/default/snapshot',
        500,
        headers,
        '{"error":{"code":"internal_error","message":"x","stack":"y"}}',
      ),
    ).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
  });

  it('documents every control answer with a schema of its own, not a bare object', async () => {
    const doc = (await control.get('/openapi.json')).body;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith('/__sandbox/sessions/{s}/') || path === '/__sandbox/sessions/{s}/stream') continue;
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          if (!status.startsWith('2') || !response.content) continue;
          // Each 2xx body by its media type (a recording's audio is audio/wav, the rest JSON).
          const [schema] = Object.values(response.content as Record<string, { schema: Record<string, unknown> }>).map(
            (media) => media.schema,
          );
          if (!schema) continue;
          const bare = schema.type === 'object' && !schema.properties && !schema.oneOf;
          expect.soft(bare, `${method.toUpperCase()} ${path} answers a bare {type: 'object'}`).toBe(false);
        }
      }
    }
  });
});

describe('keys with a plan and scopes through the server', () => {
  it('a scoped key made through the server is 403 outside its scopes, and routes to its session', async () => {
    const session = (await control.post('/sessions', { seed: 9 })).body;
    const made = await control.post(`/sessions/${session.id}/keys`, { scopes: ['calls:read'] });
    expect(made).toMatchObject({
      status: 201,
      body: { key: expect.stringMatching(new RegExp(`^SVC_TEST_${session.id}_`)), plan: 'standard', scopes: ['calls:read'] },
    });
    const key = made.body.key;
    await api(session.apiKey).post('/v1/calls', CALL); // a call in that session, by its first key (its own account)
    expect((await api(key).get('/v1/calls')).status).toBe(200);
    const refused = await api(key).post('/v1/calls', CALL);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/calls:write/) });
    // Listed with its scopes; the default session knows nothing of it.
    expect((await control.get(`/sessions/${session.id}/keys`)).body.data.find((k: { key: string }) => k.key === key)).toMatchObject({
      scopes: ['calls:read'],
    });
    expect(
      harness
        .server()
        .sandbox.keys.list()
        .map((k) => k.key),
    ).not.toContain(key);
  });

  it('an enterprise key made through the server has no fixed cap: 150 requests in one virtual second, no 429', async () => {
    const made = await control.post('/sessions/default/keys', { plan: 'enterprise' });
    expect(made).toMatchObject({ status: 201, body: { plan: 'enterprise', scopes: ['*'] } });
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) statuses.add((await api(made.body.key).get('/v1/calls')).status);
    expect([...statuses]).toEqual([200]);
    // A standard key in the same second is capped at 100.
    const standard = (await control.post('/sessions/default/keys', {})).body.key;
    const answers: number[] = [];
    for (let i = 0; i < 101; i++) answers.push((await api(standard).get('/v1/calls')).status);
    expect(answers.at(-1)).toBe(429);
  });

  it('refuses a bad plan or scope naming the field, in the words of the JSON body', async () => {
    const scope = await control.post('/sessions/default/keys', { scopes: ['calls:delete'] });
    expect(scope).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param: 'scopes[0]' } } });
    expect(scope.body.error.message).toMatch(/^`scopes\[0\]`/);
    const plan = await control.post('/sessions/default/keys', { plan: 'gold' });
    expect(plan.body.error).toMatchObject({
      param: 'plan',
      message: expect.stringMatching(/^`plan` must be one of "standard", "enterprise"/),
    });
    expect((await control.post('/sessions/default/keys', { plann: 'enterprise' })).body.error.message).toBe(
      'Unknown field `plann`: did you mean `plan`?',
    );
  });
});

describe('advance until an event', () => {
  it('POST advance {until} stops at the event and answers it with the events on the way', async () => {
    const placed = await api(KEY).post('/v1/calls', CALL);
    const res = await control.post('/sessions/default/advance', { until: 'call.completed' });
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({ type: 'call.completed', data: { id: placed.body.id } });
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['call.answered', 'call.completed']);
    expect(res.body.now).toBe(res.body.event.created_at);
  });

  it('answers 404 naming `until` when no such event comes within `max`, and 400 for an unknown type', async () => {
    const none = await control.post('/sessions/default/advance', { until: 'call.completed', max: '1m' });
    expect(none).toMatchObject({ status: 404, body: { error: { code: 'not_found', param: 'until' } } });
    expect(none.body.error.message).toMatch(
      /^No call\.completed event within 1m of virtual time \(from 2026-01-01T00:00:00\.000Z to 2026-01-01T00:01:00\.000Z\)/,
    );
    const typo = await control.post('/sessions/default/advance', { until: 'call.complete' });
    expect(typo).toMatchObject({
      status: 400,
      body: { error: { param: 'until', message: expect.stringMatching(/did you mean "call.completed"/) } },
    });
    expect((await control.post('/sessions/default/advance', { until: 'call.completed', max: 'soon' })).body.error.param).toBe('max');
  });
});

describe('scripting the network through the server', () => {
  it('queues call behaviours and clears them all', async () => {
    expect(
      (await control.post(`/sessions/default/network/${TO}/queue`, { behaviors: [{ outcome: 'busy' }, { outcome: 'no_answer' }] })).status,
    ).toBe(204);
    const first = (await api(KEY).post('/v1/calls', CALL)).body.id;
    const second = (await api(KEY).post('/v1/calls', CALL)).body.id;
    await control.post('/sessions/default/advance', { duration: '2m' });
    expect((await control.get(`/sessions/default/calls/${first}`)).body).toMatchObject({ status: 'completed', disposition: 'busy' });
    expect((await control.get(`/sessions/default/calls/${second}`)).body).toMatchObject({ status: 'completed', disposition: 'no_answer' });

    await control.put(`/sessions/default/network/${TO}`, { outcome: 'busy' });
    expect((await control.delete('/sessions/default/network')).status).toBe(204);
    const third = (await api(KEY).post('/v1/calls', CALL)).body.id;
    await control.post('/sessions/default/advance', { until: 'call.completed' });
    expect((await control.get(`/sessions/default/calls/${third}`)).body.disposition).toBe('answered');
  });

  it('scripts message outcomes: a standing one, and a queue', async () => {
    const from = (await api(KEY).post('/v1/numbers', { kind: 'local', area_code: '415' })).body.number;
    const send = async () => (await api(KEY).post('/v1/messages', { from, to: TO, body: 'hi' })).body.id as string;
    expect((await control.put(`/sessions/default/network/${TO}/messages`, { outcome: 'failed' })).status).toBe(204);
    const failed = await send();
    await control.post('/sessions/default/advance', { duration: '1m' });
    expect((await control.get(`/sessions/default/messages/${failed}`)).body.status).toBe('failed');

    expect((await control.post(`/sessions/default/network/${TO}/messages/queue`, { behaviors: [{ outcome: 'delivered' }] })).status).toBe(
      204,
    );
    const queued = await send();
    const after = await send();
    await control.post('/sessions/default/advance', { duration: '1m' });
    expect((await control.get(`/sessions/default/messages/${queued}`)).body.status).toBe('delivered');
    expect((await control.get(`/sessions/default/messages/${after}`)).body.status).toBe('failed');
  });

  it('words errors with the JSON field, never the library call', async () => {
    const typo = await control.put(`/sessions/default/network/${TO}`, { outcome: 'bussy' });
    expect(typo.body.error).toEqual({
      code: 'invalid_parameter',
      param: 'outcome',
      message: expect.stringMatching(/^`outcome` must be one of "answered", "busy"/),
    });
    expect(typo.body.error.message).not.toMatch(/network\.|behavior\./);
    const queued = await control.post(`/sessions/default/network/${TO}/queue`, {
      behaviors: [{ outcome: 'answered' }, { ring: 'forever' }],
    });
    expect(queued.body.error).toMatchObject({
      param: 'behaviors[1].ring',
      message: expect.stringMatching(/^`behaviors\[1\]\.ring` is not a duration/),
    });
    const unknown = await control.put(`/sessions/default/network/${TO}/messages`, { outcom: 'failed' });
    expect(unknown.body.error).toEqual({
      code: 'invalid_parameter',
      param: 'outcom',
      message: 'Unknown field `outcom`: did you mean `outcome`?',
    });
    const unreachable = await control.put(`/sessions/default/network/${TO}/messages`, { outcome: 'unreachable' });
    expect(unreachable.body.error.message).toMatch(/^`outcome` must be "delivered" or "failed"/);
    expect((await control.put('/sessions/default/network/12345', {})).body.error).toMatchObject({
      param: 'number',
      message: expect.not.stringMatching(/network\./),
    });
    // A fix names the control route, not the library call.
    expect((await control.post('/sessions/default/dead-letters/dlv_x/replay')).body.error.message).toBe(
      'No dead letter dlv_x. Pass a dead letter id (dlv_…) or an event id (evt_…) from GET /__sandbox/sessions/{s}/dead-letters.',
    );
    expect((await control.post('/sessions/default/calls/call_x/hang-up')).body.error.message).toMatch(
      /or POST \/__sandbox\/sessions\/\{s\}\/calls\/inbound\.$/,
    );
    // The library's own wording is unchanged, before and after.
    await expect(harness.server().sandbox.webhooks.replay('dlv_x')).rejects.toThrow(
      /^webhooks\.replay: no dead letter dlv_x\. .* from webhooks\.deadLetters\(\)\.$/,
    );
    expect(() => harness.server().sandbox.network.setBehavior(TO, { outcome: 'bussy' as never })).toThrow(
      /^network\.setBehavior: `behavior\.outcome` must be one of/,
    );
  });
});

describe('recordings, transcripts and reads through the server', () => {
  it('times recordings, scripts a conversation, and reads the call, recording and transcript', async () => {
    expect((await control.put('/sessions/default/recording-timing', { recordingDelay: '1s', transcriptDelay: '2s' })).status).toBe(204);
    const id = (await api(KEY).post('/v1/calls', CALL)).body.id;
    const lines = [
      { speaker: 'agent', text: 'Northwind, how can I help?' },
      { speaker: 'customer', text: 'I would like to book an appointment.' },
    ];
    expect((await control.put(`/sessions/default/calls/${id}/script`, { lines })).status).toBe(204);
    await control.post('/sessions/default/advance', { until: 'transcript.ready' });
    const call = (await control.get(`/sessions/default/calls/${id}`)).body;
    const recording = (await control.get(`/sessions/default/recordings/${call.recording_id}`)).body;
    const transcript = (await control.get(`/sessions/default/transcripts/${call.transcript_id}`)).body;
    expect(Date.parse(recording.ready_at) - Date.parse(call.ended_at)).toBe(1000);
    expect(Date.parse(transcript.ready_at) - Date.parse(recording.ready_at)).toBe(2000); // counted from the recording
    expect(transcript.segments.map((s: { text: string }) => s.text)).toEqual(lines.map((l) => l.text));
    expect((await control.get('/sessions/default/transcript-streams')).body).toEqual({ openStreams: 0 });
  });

  it('per-call timing and scripts name the call in the path, and a late one is 409', async () => {
    const unknown = await control.put('/sessions/default/calls/call_nope/recording-timing', { recordingDelay: '0s' });
    expect(unknown).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', param: 'id', message: expect.stringMatching(/^No call "call_nope"/) } },
    });
    const id = (await api(KEY).post('/v1/calls', CALL)).body.id;
    expect((await control.put(`/sessions/default/calls/${id}/recording-timing`, { recordingDelay: '0s' })).status).toBe(204);
    await control.post('/sessions/default/advance', { until: 'call.answered' });
    const late = await control.put(`/sessions/default/calls/${id}/script`, { lines: [{ speaker: 'a', text: 'b' }] });
    expect(late).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict', param: 'id', message: expect.stringMatching(/^Call call_\w+ is answered/) } },
    });
    expect((await control.put(`/sessions/default/calls/${id}/script`, { lines: [] })).body.error).toMatchObject({ param: 'lines' });
  });

  it('reads a session, its faults and internal errors; unknown ids are 404', async () => {
    expect((await control.get('/sessions/default')).body).toEqual({ id: 'default', seed: 5, now: '2026-01-01T00:00:00.000Z' });
    expect((await control.get('/sessions/ses_nope')).status).toBe(404);
    await control.post('/sessions/default/faults', { path: '/v1/calls', times: 'Infinity' });
    await control.post('/sessions/default/faults', { method: 'GET', network: true, times: 2 });
    expect((await control.get('/sessions/default/faults')).body.data).toEqual([
      { method: null, path: '/v1/calls', status: 503, network: false, retryAfter: null, remaining: null },
      { method: 'GET', path: null, status: null, network: true, retryAfter: null, remaining: 2 },
    ]);
    expect((await control.get('/sessions/default/internal-errors')).body).toEqual({ data: [] });
    for (const kind of ['calls', 'messages', 'recordings', 'transcripts']) {
      expect((await control.get(`/sessions/default/${kind}/x_nope`)).body.error).toMatchObject({ code: 'not_found', param: 'id' });
    }
  });
});

describe('webhooks through the server', () => {
  it('lists attempts and replays every dead letter', async () => {
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 500 : 200));
    await api(KEY).post('/v1/webhooks', { url: receiver.url, events: ['call.started'] });
    await api(KEY).post('/v1/calls', CALL);
    await api(KEY).post('/v1/calls', CALL);
    await control.post('/sessions/default/advance', { duration: '25h' });
    const attempts = (await control.get('/sessions/default/attempts')).body.data;
    expect(attempts.length).toBeGreaterThan(2);
    expect(attempts.every((a: { ok: boolean }) => !a.ok)).toBe(true);
    expect((await control.get('/sessions/default/dead-letters')).body.data).toHaveLength(2);

    failing = false;
    const replayed = await control.post('/sessions/default/dead-letters/replay', { type: 'call.started' });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data.map((a: { attempt: number; ok: boolean; replay: number }) => [a.attempt, a.ok, a.replay])).toEqual([
      [1, true, 1],
      [1, true, 1],
    ]);
    expect((await control.get('/sessions/default/dead-letters')).body.data).toEqual([]);
    expect((await control.post('/sessions/default/dead-letters/replay', { apiKey: 'nope' })).body.error).toMatchObject({
      param: 'apiKey',
      message: expect.stringMatching(/^"nope" is not an API key/),
    });
  });
});
