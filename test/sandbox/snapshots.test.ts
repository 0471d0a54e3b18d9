import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox, type SandboxOptions } from '../../src/index.js';
import { closedAfterEach } from '../support/made.js';
import { fakeWall, WALL_CLOCK } from '../support/wall-clock.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';

afterEach(closeReceivers);

const KEY = 'SVC_TEST_alice';
const make = closedAfterEach();

/** A client over sandbox.fetch (no globals: two sandboxes with one base URL side by side); keeps every answer, headers included. */
function recorder(sandbox: Sandbox) {
  const seen: unknown[] = [];
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await sandbox.fetch(path, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    seen.push({ status: res.status, headers: [...res.headers], text });
    return text ? JSON.parse(text) : null;
  };
  return { seen, get: (path: string) => send('GET', path), post: (path: string, body: unknown) => send('POST', path, body) };
}

/** Everything a sandbox shows, as JSON text (an attempt's real duration, the one non-deterministic field, left out). */
function observed(sandbox: Sandbox): string {
  const deliveries = sandbox.webhooks.deliveries().map((d) => ({ ...d, attempts: d.attempts.map(({ durationMs: _d, ...a }) => a) }));
  return JSON.stringify({
    now: sandbox.now(),
    events: sandbox.events.list(),
    deliveries,
    requests: sandbox.requests.list(),
    calls: sandbox.calls.list(),
    faults: sandbox.faults.list(),
    keys: sandbox.keys.list(),
  });
}

/** The first half: a lifecycle left mid-way, with timers pending, retries scheduled and a rate window part used. */
async function firstHalf(sandbox: Sandbox, hooks: string) {
  const api = recorder(sandbox);
  sandbox.network.setBehavior('+14155550111', { outcome: 'busy' });
  sandbox.network.queueBehavior('+14155550124', { outcome: 'no_answer' }, { ring: '4s', talk: '90s' });
  sandbox.network.setBehavior('+14155550125', { ring: 'manual', talk: 'manual' });
  sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503, times: 1 });
  sandbox.faults.inject({ method: 'GET', path: '/v1/calls/{id}', status: 500, times: Infinity });
  await api.post('/v1/webhooks', { url: hooks, events: ['call.started', 'call.completed'] });
  await api.post('/v1/calls', { to: '+14155550123', from: '+14155550100' }); // the injected 503
  const first = await api.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
  await api.post('/v1/calls', { to: '+14155550111', from: '+14155550100', ai_receptionist: true });
  await api.post('/v1/calls', { to: '+14155550124', from: '+14155550100' });
  const manual = await api.post('/v1/calls', { to: '+14155550125', from: '+14155550100' });
  await api.get('/v1/nope');
  await sandbox.advanceUntil('call.answered');
  await sandbox.advance('3s');
  sandbox.calls.answer(manual.id);
  await api.post('/v1/calls', { campaign: { to: ['+14155550123', '+15005550003'], from: '+14155550100' } });
  await sandbox.advance('40s'); // failed attempts wait for their retries
  await api.get(`/v1/calls/${first.id}`); // a fault that never runs out
  for (let i = 0; i < 30; i++) await api.get('/v1/calls?limit=1'); // a rate window part used
  return { manual: manual.id as string };
}

/** The second half: the same on the original and on its restored copy. */
async function secondHalf(sandbox: Sandbox, manual: string) {
  const api = recorder(sandbox);
  for (let i = 0; i < 75; i++) await api.get('/v1/calls?limit=1'); // runs into the window's 100
  await sandbox.advance('1s');
  await api.post('/v1/calls', { to: '+14155550124', from: '+14155550100' }); // the queued second behaviour
  sandbox.calls.hangUp(manual);
  await sandbox.advanceUntil('call.completed');
  await sandbox.advance('10m');
  await api.get('/v1/calls?limit=20');
  await sandbox.advance('1d'); // every retry runs out: dead letters
  return api.seen;
}

describe('snapshots', () => {
  it('a restored sandbox continues as the original does: the same answers, ids, events, rate windows and retries, byte for byte', async () => {
    const receiver = await startReceiver((request) => (request.body.type === 'call.started' ? 200 : 500));
    const original = make({ seed: 42 });
    const { manual } = await firstHalf(original, receiver.url);
    const snapshot = JSON.parse(JSON.stringify(original.snapshot()));
    const copy = make({ snapshot });
    expect(observed(copy)).toBe(observed(original));
    expect(original.webhooks.deliveries({ state: 'pending' }).some((d) => d.nextAttemptAt !== null)).toBe(true);

    const fromOriginal = await secondHalf(original, manual);
    const fromCopy = await secondHalf(copy, manual);
    expect(JSON.stringify(fromCopy)).toBe(JSON.stringify(fromOriginal));
    expect(observed(copy)).toBe(observed(original));
    expect(fromOriginal.some((r) => (r as { status: number }).status === 429)).toBe(true);
    expect(original.webhooks.deadLetters().length).toBeGreaterThan(0);
    expect(original.internalErrors()).toEqual([]);
    expect(copy.internalErrors()).toEqual([]);
  });

  it('a restored sandbox sends no webhook again: recorded attempts are answered from the snapshot', async () => {
    const receiver = await startReceiver(() => 500);
    const original = make({ seed: 3 });
    await recorder(original).post('/v1/webhooks', { url: receiver.url, events: ['call.started'] });
    await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await original.advance('2m');
    const sent = receiver.received.length;
    expect(sent).toBeGreaterThan(1);
    const copy = make({ snapshot: original.snapshot() });
    expect(receiver.received.length).toBe(sent);
    expect(copy.webhooks.attempts().map((a) => a.durationMs)).toEqual(original.webhooks.attempts().map((a) => a.durationMs));
  });

  it('dead letters replayed, and what a listener did during an advance, are restored too', async () => {
    const receiver = await startReceiver(() => 500);
    const original = make({ seed: 8 });
    // A listener that hangs up every answered call: its calls are inputs; the listener itself is not kept.
    original.events.subscribe((event) => {
      if (event.type === 'call.answered') original.calls.hangUp(event.data.id);
    });
    await recorder(original).post('/v1/webhooks', { url: receiver.url, events: ['call.completed'] });
    await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await original.advance('25h');
    const [dead] = original.webhooks.deadLetters();
    expect(dead).toBeDefined();
    await original.webhooks.replay(dead!.id);
    await original.advance('1m');
    const copy = make({ snapshot: original.snapshot() });
    expect(observed(copy)).toBe(observed(original));
    expect(copy.calls.list()[0]).toMatchObject({ status: 'completed', duration: 0 });
  });

  it('an attempt still in flight when the snapshot was taken is sent again by the copy, and its advance waits for it', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const receiver = await startReceiver(() => 200);
    const original = make({ seed: 2 });
    await recorder(original).post('/v1/webhooks', { url: receiver.url, events: ['call.started'] });
    const answered = original.webhooks.subscribe(() => release());
    await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    const snapshot = original.snapshot(); // the call.started attempt has left, unanswered yet
    expect(original.webhooks.attempts()).toEqual([]);
    await slow;
    answered();
    const copy = make({ snapshot });
    await copy.advance(0);
    expect(copy.webhooks.attempts()).toMatchObject([{ attempt: 1, status: 200, ok: true }]);
    expect(receiver.received).toHaveLength(2);
  });

  it('a live transcript stream open at the snapshot is not: the copy has none open, and the same state otherwise', async () => {
    const original = make({ seed: 6 });
    original.network.setBehavior('+14155550123', { ring: '5s', talk: '20s' });
    const call = await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    original.transcripts.setScript(call.id, [
      { speaker: 'agent', text: 'Hello!' },
      { speaker: 'customer', text: 'Hi.' },
    ]);
    await original.advance('5s');
    const stream = await original.fetch(`/v1/transcripts/${original.calls.get(call.id)!.transcript_id}`, {
      headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' },
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await original.advance('3s');
    expect(original.transcripts.openStreams()).toBe(1);
    const copy = make({ snapshot: original.snapshot() });
    expect(copy.transcripts.openStreams()).toBe(0);
    await stream.body!.cancel();
    expect(observed(copy)).toBe(observed(original));
    await Promise.all([original.advance('1m'), copy.advance('1m')]);
    expect(observed(copy)).toBe(observed(original));
  });

  it('a realtime sandbox restores at its virtual instant and flows on from there', async () => {
    // Both on a wall clock the test moves: the time the replay takes leaks into neither.
    const fake = fakeWall();
    const original = make({ seed: 1, clock: 'realtime', startTime: '2026-05-01T00:00:00Z', [WALL_CLOCK]: fake.wall } as SandboxOptions);
    await fake.tick(1_500);
    original.network.setBehavior('+14155550123', { outcome: 'busy' });
    const copy = make({ snapshot: original.snapshot(), [WALL_CLOCK]: fake.wall } as SandboxOptions);
    expect(copy.now().toISOString()).toBe('2026-05-01T00:00:01.500Z');
    await fake.tick(2_000);
    expect([copy.now().toISOString(), original.now().toISOString()]).toEqual(['2026-05-01T00:00:03.500Z', '2026-05-01T00:00:03.500Z']);
  });

  it('a snapshot of a restored sandbox is its snapshot plus what came after; reset keeps the keys made', async () => {
    const original = make({ seed: 5, startTime: '2026-03-01T00:00:00Z' });
    const { key } = original.keys.create();
    await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    original.reset();
    await original.advance('5s');
    const copy = make({ snapshot: original.snapshot() });
    expect(copy.keys.list()).toEqual(original.keys.list());
    expect(copy.keys.create().key).toBe(original.keys.create().key);
    expect(copy.keys.list().map((k) => k.key)).toContain(key);
    await recorder(copy).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await recorder(original).post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    copy.close(); // a closed sandbox still gives its snapshot, as it was when closed
    const again = make({ snapshot: copy.snapshot() });
    expect(observed(again)).toBe(observed(original));
    expect(again.snapshot()).toEqual(original.snapshot());
  });

  it('a snapshot is refused (conflict) while a request body is still arriving, and taken once it is answered', async () => {
    const sandbox = make({ seed: 1 });
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const answer = sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit),
    );
    push.enqueue(new TextEncoder().encode('{"to":"+14155550123",'));
    expect(catchError(() => sandbox.snapshot())).toMatchObject({ code: 'conflict', message: expect.stringMatching(/still being read/) });
    push.enqueue(new TextEncoder().encode('"from":"+14155550100"}'));
    push.close();
    expect((await answer).status).toBe(201);
    const copy = make({ snapshot: sandbox.snapshot() });
    expect(copy.calls.list()).toEqual(sandbox.calls.list());
  });

  it('a snapshot is plain JSON naming its format and version', () => {
    const snapshot = make({ seed: 1 }).snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      format: 'svc-sandbox-snapshot',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      now: '2026-01-01T00:00:00.000Z',
      inputs: [],
      attempts: [],
    });
  });

  it('a snapshot of another version is refused, naming the fix', () => {
    const snapshot = { ...make({ seed: 1 }).snapshot(), version: '0.0.1' };
    const error = catchError(() => createSandbox({ snapshot }));
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'invalid_options', param: 'snapshot.version' });
    expect(error.message).toMatch(/taken by svc-sandbox 0\.0\.1.*take the snapshot again with .*svc-sandbox@0\.0\.1/);
  });

  it('bad snapshots and options beside one are refused, naming the field', () => {
    const good = make({ seed: 1 }).snapshot();
    expect(catchError(() => createSandbox({ snapshot: { ...good, format: 'x' } as never }))).toMatchObject({ param: 'snapshot.format' });
    expect(catchError(() => createSandbox({ snapshot: { ...good, inputs: [{ kind: 'jump', at: 0 }] } as never }))).toMatchObject({
      param: 'snapshot.inputs[0].kind',
    });
    expect(
      catchError(() =>
        createSandbox({ snapshot: { ...good, inputs: [{ kind: 'call', at: Date.parse(good.now), name: 'reset', args: [] }] } as never }),
      ),
    ).toMatchObject({ param: 'snapshot.inputs[0].name' });
    expect(catchError(() => createSandbox({ snapshot: 'nope' as never }))).toMatchObject({ param: 'snapshot' });
    const beside = catchError(() => createSandbox({ snapshot: good, seed: 2 }));
    expect(beside).toMatchObject({ code: 'invalid_options', param: 'seed' });
    expect(beside.message).toMatch(/cannot be given with `snapshot`/);
  });
});

function catchError(fn: () => unknown): Error & { code?: string; param?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('what a snapshot keeps of a request', () => {
  it('every request header the API reads is one a snapshot keeps (REPLAYED_HEADERS)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { REPLAYED_HEADERS } = await import('../../src/scripting/snapshot-checks.js');
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          for (const m of readFileSync(path, 'utf8').matchAll(/(?:headers|request\.headers)\.(?:get|has)\('([a-z-]+)'\)/g)) read.add(m[1]!);
        }
      }
    };
    for (const dir of ['src/api', 'src/state', 'src/sim']) walk(dir);
    // Response headers the pipeline reads back from its own answers are no input.
    for (const own of ['x-ratelimit-limit', 'x-request-id']) read.delete(own);
    expect([...read].filter((h) => !(REPLAYED_HEADERS as readonly string[]).includes(h))).toEqual([]);
    expect(read.size).toBeGreaterThan(1);
    // The pipeline reads the headers it needs in one pass, into ReadHeaders: the same names, so none goes unrecorded.
    const { readHeaders } = await import('../../src/api/pipeline.js');
    expect(Object.keys(readHeaders(new Headers())).sort()).toEqual([...REPLAYED_HEADERS]);
  });
});

describe('a snapshot keeps the chaos profile', () => {
  it('regression: a restored sandbox draws the chaos the original would have (the profile is among the kept options)', async () => {
    const chaos = { requests: { default: { serverError: 0.3 } }, calls: { busy: 0.3, no_answer: 0.2 } };
    const original = make({ seed: 11, chaos });
    const api = recorder(original);
    for (let i = 0; i < 8; i++) await api.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await original.advance('10s');
    const copy = make({ snapshot: JSON.parse(JSON.stringify(original.snapshot())) });
    expect(observed(copy)).toBe(observed(original));
    const before = recorder(original);
    const after = recorder(copy);
    for (let i = 0; i < 20; i++) {
      await before.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
      await after.post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    }
    await original.advance('2m');
    await copy.advance('2m');
    expect(after.seen).toEqual(before.seen);
    expect(observed(copy)).toBe(observed(original));
    // Chaos fired, so the equality above is about its draws, not their absence.
    expect(before.seen.some((answer) => (answer as { status: number }).status === 503)).toBe(true);
    expect(original.calls.list().some((call) => call.disposition === 'busy')).toBe(true);
  });

  it("the snapshot's options carry the profile as it was given", () => {
    const original = make({ seed: 3, chaos: { calls: { busy: 0.5 } } });
    expect((original.snapshot().options as { chaos?: unknown }).chaos).toEqual({ calls: { busy: 0.5 } });
  });
});
