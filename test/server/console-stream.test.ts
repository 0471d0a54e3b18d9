import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { openSandbox } from '../../src/sandbox.js';
import { ConsoleView } from '../../src/scripting/console-view.js';
import { MAX_PENDING, SessionStreams } from '../../src/server/stream.js';
import { serverClient } from './client.js';

let server: SandboxServer;
afterEach(() => {
  vi.restoreAllMocks();
});
const client = () => serverClient(() => server.url);

interface Frame {
  event: string;
  id?: string;
  data: any;
}

/** The default session's stream, parsed into frames as it arrives; `next(match)` waits for a frame after those already taken. */
async function openStream(signal: AbortSignal) {
  const res = await fetch(`${server.url}/__sandbox/sessions/default/stream`, { signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let text = '';
  let taken = 0;
  const read = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) !== -1) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
      );
      if (fields.event) frames.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data ?? 'null') });
    }
  };
  const next = async (match: (frame: Frame) => boolean) => {
    for (;;) {
      const at = frames.findIndex((f, i) => i >= taken && match(f));
      if (at !== -1) {
        taken = at + 1;
        return frames[at]!;
      }
      await read();
    }
  };
  return { frames, next, read };
}

const isChange = (kind: string, id?: string) => (f: Frame) =>
  f.event === 'change' && f.data.changes.some((c: any) => c.kind === kind && (id === undefined || c.id === id));

/** `n` calls placed in process, under `keys` keys (a big session, fast). */
async function fill(n: number, prefix: string, keys = 10) {
  for (let i = 0; i < n; i++) {
    const res = await server.sandbox.handle(
      new Request(`${server.sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer SVC_TEST_${prefix}${i % keys}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
      }),
    );
    expect(res.status).toBe(201);
    await res.arrayBuffer();
  }
}

beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(() => server?.close());

describe("the console's stream of changes", () => {
  it('with 1,000 calls in the session, one new call costs the server that call: a change frame with its JSON, no list read', async () => {
    await fill(1000, 'fill');
    await server.sandbox.advance('10m');
    const abort = new AbortController();
    const stream = await openStream(abort.signal);
    // The catch-up (5,000 events), then the first change frame, which names nothing: read the lists now.
    expect((await stream.next((f) => f.event === 'change')).data.changes).toEqual([]);
    expect(stream.frames.filter((f) => f.event === 'event')).toHaveLength(5000);

    // Every console view's reads: only the server's console reads one here.
    const get = vi.spyOn(ConsoleView.prototype, 'get');
    const list = vi.spyOn(ConsoleView.prototype, 'list');
    const placed = await client().api('SVC_TEST_one').post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    expect(placed.status).toBe(201);
    const event = await stream.next((f) => f.event === 'event');
    expect(event).toMatchObject({ id: '5001', data: { type: 'call.started', data: { id: placed.body.id } } });
    const change = await stream.next(isChange('call', placed.body.id));
    // The call, and the request that made it, as the journal lists it (after the last of the 1,000).
    const requestId = placed.headers.get('x-request-id')!;
    const journal = server.sandbox.requests.list();
    expect(change.data.changes).toEqual([
      { kind: 'call', id: placed.body.id, removed: false, data: { ...placed.body, account: 'SVC_TEST_one' } },
      { kind: 'request', id: requestId, removed: false, data: journal.at(-1), after: journal.at(-2)!.requestId },
    ]);
    expect(journal.at(-1)).toMatchObject({ requestId, method: 'POST', path: '/v1/calls', status: 201, errorCode: null });
    expect(list).not.toHaveBeenCalled();
    expect(get).toHaveBeenCalledTimes(1);

    // The clock moved by the library itself: the answer comes as a change with the call as it is now.
    await server.sandbox.advance('5s');
    const answered = await stream.next(isChange('call', placed.body.id));
    expect(answered.data.now).toBe(server.sandbox.now().toISOString());
    expect(answered.data.changes.find((c: any) => c.id === placed.body.id).data.status).toBe('answered');
    expect(list).not.toHaveBeenCalled();
    abort.abort();
  });

  it('subscriptions, transfers, keys, sessions and deliveries announce themselves; a removed item is sent as removed', async () => {
    const abort = new AbortController();
    const stream = await openStream(abort.signal);
    await stream.next((f) => f.event === 'change');
    const api = client().api('SVC_TEST_two');
    const hook = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/nobody', events: ['call.answered'] });
    expect((await stream.next(isChange('subscription', hook.body.id))).data.changes[0]).toMatchObject({
      removed: false,
      data: { url: 'http://127.0.0.1:9/nobody', account: 'SVC_TEST_two' },
    });

    const placed = await api.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await client().control.post('/sessions/default/advance', { duration: '5s' });
    // The answer's webhook attempt failed (nobody listens on port 9): its delivery, with what it is about.
    const delivery = (await stream.next(isChange('delivery'))).data.changes.find((c: any) => c.kind === 'delivery');
    expect(delivery.data).toMatchObject({
      account: 'SVC_TEST_two',
      about: { kind: 'call', id: placed.body.id },
      call_id: placed.body.id,
      url: 'http://127.0.0.1:9/nobody',
    });
    expect(delivery.data.attempts[0].ok).toBe(false);

    // A transfer emits no event; the call's store says it changed.
    expect(
      (await client().call('POST', `/v1/calls/${placed.body.id}/transfer`, { agent: 'alice' }, { authorization: 'Bearer SVC_TEST_two' }))
        .status,
    ).toBe(200);
    expect((await stream.next(isChange('call', placed.body.id))).data.changes[0].data.agent).toBe('alice');

    const key = (await client().control.post('/sessions/default/keys')).body.key;
    expect((await stream.next(isChange('key', key))).data.changes[0].data).toMatchObject({ key });
    await client().control.delete(`/sessions/default/keys/${key}`);
    expect((await stream.next(isChange('key', key))).data.changes[0]).toEqual({ kind: 'key', id: key, removed: true, data: null });

    const other = (await client().control.post('/sessions', {})).body.id;
    expect((await stream.next(isChange('session', other))).data.changes[0].data).toMatchObject({ id: other });
    await client().control.delete(`/sessions/${other}`);
    expect((await stream.next(isChange('session', other))).data.changes[0]).toMatchObject({ removed: true, data: null });

    await client().call('DELETE', `/v1/webhooks/${hook.body.id}`, undefined, { authorization: 'Bearer SVC_TEST_two' });
    expect((await stream.next(isChange('subscription', hook.body.id))).data.changes[0]).toMatchObject({ removed: true, data: null });
    abort.abort();
  });

  it('every request the API answers announces itself with its journal entry, a refusal with its code and message', async () => {
    const abort = new AbortController();
    const stream = await openStream(abort.signal);
    await stream.next((f) => f.event === 'change');
    const refused = await client().api('SVC_TEST_four').post('/v1/calls', { to: '+15005550001', from: '+14155550100' });
    expect(refused.status).toBe(422);
    const requestId = refused.headers.get('x-request-id')!;
    const change = (await stream.next(isChange('request', requestId))).data.changes.find((c: any) => c.id === requestId);
    expect(change).toMatchObject({
      removed: false,
      data: {
        requestId,
        method: 'POST',
        path: '/v1/calls',
        target: '/v1/calls',
        status: 422,
        errorCode: 'unreachable_destination',
        errorMessage: refused.body.error.message,
        apiKey: 'SVC_TEST_four',
        at: server.sandbox.now().toISOString(),
      },
    });
    expect(change.after).toBe(server.sandbox.requests.list().at(-2)!.requestId);
    abort.abort();
  });

  it(`a reader that takes nothing while more than ${MAX_PENDING} items change is told to read everything again (resync), and a reset says reset`, async () => {
    // In process, with no socket between: the stream is pulled only when this test reads it.
    const opened = openSandbox();
    const { sandbox } = opened;
    const streams = new SessionStreams(() => opened);
    const abort = new AbortController();
    const reader = streams.stream(0, abort.signal).getReader();
    const decoder = new TextDecoder();
    const readUntil = async (event: string) => {
      let text = '';
      while (!text.includes(`event: ${event}\n`)) text += decoder.decode((await reader.read()).value);
      return text;
    };
    await readUntil('change');
    for (let i = 0; i < MAX_PENDING + 20; i++) {
      const res = await sandbox.fetch('/v1/calls', {
        method: 'POST',
        headers: { authorization: `Bearer SVC_TEST_burst${i % 10}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
      });
      expect(res.status).toBe(201);
    }
    const text = await readUntil('resync');
    expect(text).not.toMatch(/event: change\n/);
    sandbox.reset();
    expect(await readUntil('reset')).toContain(`"now":"${sandbox.now().toISOString()}"`);
    abort.abort();
    sandbox.close();
  });

  it("the console's lists give every kind across the session's accounts, each item with its account", async () => {
    await client().api('SVC_TEST_three').post('/v1/calls', { to: '+15005550002', from: '+14155550100' });
    const calls = await client().control.get('/sessions/default/console/calls?limit=1');
    expect(calls.body).toMatchObject({ data: [{ account: 'SVC_TEST_three', to: '+15005550002' }], has_more: true });
    for (const kind of ['messages', 'numbers', 'recordings', 'transcripts', 'subscriptions', 'deliveries']) {
      expect((await client().control.get(`/sessions/default/console/${kind}`)).status, kind).toBe(200);
    }
    const audio = await client().control.get('/sessions/default/console/recordings/rec_nope/audio');
    expect(audio.body.error).toMatchObject({ code: 'not_found', param: 'id' });
  });
});
