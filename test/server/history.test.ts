import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyChanges, emptyModel, list, load } from '../../console/model.js';
import { createSandbox, type Sandbox, type SandboxSnapshot } from '../../src/index.js';
import { HISTORY_KINDS, NEWEST_EVENTS, recordHistory, type SessionHistory } from '../../src/server/history.js';
import { openSandbox } from '../../src/sandbox.js';
import { client, FROM, KEY, startSandbox } from '../helpers.js';
import { within } from '../support/within.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';

/**
 * The history behind `svc-sandbox show` (src/server/history.ts): one replay of a snapshot,
 * every version of every item the console shows kept with its instant. The session it answers
 * for an instant must be the session as it was then: checked against the snapshot cut at that
 * instant and restored (the inputs up to it, replayed to it), at every instant where something
 * happened, just before and just after it. The session has something of each kind: calls of
 * every outcome (a transfer, a manual hang-up, an inbound call, a campaign), messages sent,
 * failed and received, a number provisioned, changed and released, keys made and revoked, a
 * subscription whose receiver fails for a day (retries, a dead letter, a replay) and one removed.
 */

let snapshot: SandboxSnapshot;
let history: SessionHistory;
let replayed: Sandbox;

beforeAll(async () => {
  let failing = true;
  const receiver = await startReceiver(() => (failing ? 500 : 200));
  const sandbox = startSandbox({ seed: 11 });
  try {
    const api = client(sandbox);
    sandbox.network.setBehavior('+14155550125', { ring: 'manual', talk: 'manual' });
    expect(
      (await api.post('/v1/webhooks', { url: receiver.url, events: ['call.started', 'call.completed', 'message.delivered'] })).status,
    ).toBe(201);
    const removed = await api.post('/v1/webhooks', { url: receiver.url, events: ['recording.ready'] });
    const number = (await api.post('/v1/numbers', { kind: 'local', country: 'US' })).body;
    await api.placeCall();
    await sandbox.advance('2s');
    await api.placeCall({ to: '+15005550002' });
    await api.placeCall({ to: '+15005550003', ai_receptionist: true });
    const manual = (await api.placeCall({ to: '+14155550125' })).body.id;
    await api.post('/v1/messages', { from: number.number, to: '+14155550199', body: 'code 1234' });
    await api.post('/v1/messages', { from: number.number, to: '+15005550009', body: 'to a dead phone' });
    await sandbox.advance('4s');
    const first = sandbox.calls.list().at(-1)!.id;
    expect((await api.post(`/v1/calls/${first}/transfer`, { agent: 'agent_lee' })).status).toBe(200);
    sandbox.calls.answer(manual);
    sandbox.messages.inbound({ from: '+14155550199', to: number.number, body: 'thanks' });
    sandbox.keys.create({ key: 'SVC_TEST_made' });
    sandbox.keys.create({ key: 'SVC_TEST_gone' });
    await sandbox.advance('20s');
    sandbox.calls.hangUp(manual);
    sandbox.keys.revoke('SVC_TEST_gone');
    await api.send('PUT', `/v1/numbers/${number.id}`, { caller_id: { name: 'Northwind' } });
    sandbox.calls.inbound({ from: '+442071234567', to: number.number, apiKey: KEY });
    await api.post('/v1/calls', { campaign: { to: ['+14155550131', '+15005550004'], from: FROM } });
    await sandbox.advance('90s');
    await api.send('DELETE', `/v1/webhooks/${removed.body.id}`);
    await api.send('DELETE', `/v1/numbers/${number.id}`);
    await sandbox.advance('25h');
    const dead = sandbox.webhooks.deadLetters();
    expect(dead.length).toBeGreaterThan(0);
    failing = false;
    await sandbox.webhooks.replay(dead[0]!.id);
    await sandbox.advance('1m');
    snapshot = JSON.parse(JSON.stringify(sandbox.snapshot()));
  } finally {
    sandbox.close();
    await closeReceivers();
  }
  ({ history, sandbox: replayed } = recordHistory(snapshot));
});
afterAll(() => replayed?.close());

/** The session as the console's lists show it at `ms`: the snapshot cut there, restored. */
function restoredAt(ms: number) {
  const cut = { ...snapshot, now: new Date(ms).toISOString(), inputs: snapshot.inputs.filter((input) => input.at <= ms) };
  const { sandbox, internals } = openSandbox({ snapshot: cut });
  try {
    const items: Record<string, unknown[]> = Object.fromEntries(
      HISTORY_KINDS.map((kind) => [kind, kind === 'key' ? sandbox.keys.list() : internals.view().list(kind)]),
    );
    // The history keeps a delivery without its event (the log holds it), a recording without its transcript.
    items.delivery = (items.delivery as Array<Record<string, unknown>>).map(({ event: _event, ...delivery }) => delivery);
    items.recording = (items.recording as Array<Record<string, unknown>>).map(({ transcript: _transcript, ...recording }) => recording);
    return { items, events: sandbox.events.list() };
  } finally {
    sandbox.close();
  }
}

/** Every instant where something happened (an event, an input and 1 ms either side of it; a webhook attempt). */
function instants(): number[] {
  const at = new Set([history.start, history.end]);
  for (const t of [...history.eventInstants, ...snapshot.inputs.map((i) => i.at)]) for (const d of [-1, 0, 1]) at.add(t + d);
  for (const d of replayed.webhooks.deliveries()) for (const a of d.attempts) at.add(Date.parse(a.at));
  return [...at].filter((t) => t >= history.start && t <= history.end).sort((a, b) => a - b);
}

describe('the history of a session', () => {
  it('answers, at every instant, the session as a restore cut at that instant holds it', () => {
    const checked = instants();
    expect(checked.length).toBeGreaterThan(100);
    for (const ms of checked) {
      const mine = JSON.parse(history.stateAt(ms));
      const theirs = restoredAt(ms);
      const when = new Date(ms).toISOString();
      expect(mine.now).toBe(when);
      for (const kind of HISTORY_KINDS) expect(mine.items[kind], `${kind} at ${when}`).toEqual(theirs.items[kind]);
      expect(mine.events.count, `events at ${when}`).toBe(theirs.events.length);
      expect(mine.events.newest, `events at ${when}`).toEqual(theirs.events.slice(-NEWEST_EVENTS));
    }
  });

  it('holds what the session went through: a live transcript growing, a number released, a key revoked', () => {
    const states = instants().map((ms) => JSON.parse(history.stateAt(ms)));
    const spoken = states.flatMap((s) =>
      s.items.transcript.filter((t: { status: string }) => t.status === 'live').map((t: { segments: unknown[] }) => t.segments.length),
    );
    expect(Math.max(...spoken)).toBeGreaterThan(Math.min(...spoken));
    expect(states.some((s) => s.items.number.length === 1)).toBe(true);
    expect(states.at(-1).items.number).toEqual([]);
    expect(states.some((s) => s.items.key.some((k: { key: string }) => k.key === 'SVC_TEST_gone'))).toBe(true);
    expect(states.at(-1).items.key.map((k: { key: string }) => k.key)).toEqual(['SVC_TEST_made']);
    expect(states.at(-1).items.delivery.some((d: { replays: number }) => d.replays > 0)).toBe(true);
    expect(history.eventInstants.length).toBe(replayed.events.list().length);
  });

  it('moves the console’s copy from one instant to another with only what changed, forward and back', () => {
    const checked = instants();
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i + 1 < checked.length; i += 3) pairs.push([checked[i]!, checked[i + 1]!], [checked[i + 1]!, checked[i]!]);
    pairs.push([history.start, history.end], [history.end, history.start], [checked[5]!, checked.at(-5)!]);
    for (const [from, to] of pairs) {
      // The page's own model (console/model.js) holds the session at `from`, then applies the changes.
      const model = emptyModel();
      const before = JSON.parse(history.stateAt(from));
      for (const kind of HISTORY_KINDS) load(model, kind, before.items[kind]);
      const step = JSON.parse(history.changesBetween(from, to)!);
      applyChanges(model, step.changes);
      const after = JSON.parse(history.stateAt(to));
      for (const kind of HISTORY_KINDS) expect(list(model, kind), `${kind} from ${from} to ${to}`).toEqual(after.items[kind]);
      expect(step.events).toEqual(after.events);
      expect(step.now).toBe(after.now);
    }
    // A step of one event carries a few items, not the session.
    const one = JSON.parse(history.changesBetween(checked[10]!, checked[11]!)!);
    expect(one.changes.length).toBeLessThan(5);
    // Past the limit, the whole state is cheaper: none.
    expect(history.changesBetween(history.start, history.end, 3)).toBeNull();
  });

  it('sends no webhook while it replays, not even the attempts in flight when the snapshot was taken', async () => {
    // One receiver on this machine (reached by socket) and one elsewhere (reached by the global fetch); neither answers.
    let probeArrived: () => void = () => undefined;
    const hanging = await startReceiver((request) => {
      if (request.path.endsWith('/probe')) probeArrived();
      return 'hang';
    });
    let connections = 0;
    const counting = await import('node:http').then(
      ({ createServer }) =>
        new Promise<import('node:http').Server>((resolve) => {
          const server = createServer(() => undefined).on('connection', () => connections++);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    );
    const remote = vi.fn((_url: string) => new Promise<Response>(() => undefined));
    vi.stubGlobal('fetch', remote);
    const sandbox = createSandbox({ seed: 3, webhookTimeout: '5s' });
    try {
      const post = (path: string, body: unknown) =>
        sandbox.handle(
          new Request(`${sandbox.baseUrl}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
      const port = (counting.address() as import('node:net').AddressInfo).port;
      await post('/v1/webhooks', { url: hanging.url, events: ['call.started'] });
      await post('/v1/webhooks', { url: `http://127.0.0.1:${port}/hooks`, events: ['call.started'] });
      await post('/v1/webhooks', { url: 'https://hooks.example.test/voice', events: ['call.started'] });
      await post('/v1/calls', { to: '+14155550123', from: FROM });
      await vi.waitFor(() => expect([hanging.received.length, connections, remote.mock.calls.length]).toEqual([1, 1, 1]), {
        timeout: 5000,
        interval: 10,
      });
      const inFlight = sandbox.snapshot();
      expect(inFlight.attempts).toEqual([]); // no result yet: a plain restore sends them again

      const { history: h, sandbox: copy } = recordHistory(inFlight);
      expect(copy.webhooks.deliveries()).toHaveLength(3);
      expect(JSON.parse([...h.marksJson()].join('')).map((e: { type: string }) => e.type)).toEqual(['call.started']);
      // Nothing left by fetch: the global fetch is called at once when an attempt leaves.
      expect(remote.mock.calls).toHaveLength(1);
      // Nothing left by socket, shown by an event rather than by a wait: a probe sent to each receiver after the replay
      // returned arrives behind anything the replay had sent, so once each probe is in, nothing came before it.
      const probed = new Promise<void>((resolve) => counting.once('connection', () => resolve()));
      const probe = (await import('node:net')).connect(port, '127.0.0.1');
      await within(probed, 5000, 'the probe connection');
      probe.destroy();
      expect(connections).toBe(2);
      const arrived = new Promise<void>((resolve) => (probeArrived = resolve));
      const request = (await import('node:http')).request(`${hanging.url}/probe`, { method: 'POST' }).on('error', () => undefined);
      request.end('{}');
      await within(arrived, 5000, 'the probe request');
      request.destroy();
      expect(hanging.received.map((r) => r.path)).toEqual(['/hooks', '/hooks/probe']);
    } finally {
      vi.unstubAllGlobals();
      sandbox.close();
      counting.closeAllConnections();
      await new Promise((resolve) => counting.close(resolve));
      await closeReceivers();
    }
  });

  it('starts at the last reset, with the keys made before it', () => {
    const sandbox = createSandbox({ seed: 5 });
    sandbox.keys.create({ key: 'SVC_TEST_before' });
    sandbox.calls.inbound({ from: '+442071234567', to: '+14155550100', apiKey: KEY });
    return (async () => {
      await sandbox.advance('10s');
      sandbox.reset();
      await sandbox.advance('3s');
      sandbox.calls.inbound({ from: '+442071234568', to: '+14155550100', apiKey: KEY });
      await sandbox.advance('2s');
      const { history: h, sandbox: copy } = recordHistory(JSON.parse(JSON.stringify(sandbox.snapshot())));
      expect(h.start).toBe(Date.parse('2026-01-01T00:00:00Z'));
      expect(h.end).toBe(Date.parse('2026-01-01T00:00:05Z'));
      const atStart = JSON.parse(h.stateAt(h.start));
      expect(atStart.items.call).toEqual([]);
      expect(atStart.items.key.map((k: { key: string }) => k.key)).toEqual(['SVC_TEST_before']);
      const atEnd = JSON.parse(h.stateAt(h.end));
      expect(atEnd.items.call.map((c: { from: string }) => c.from)).toEqual(['+442071234568']);
      copy.close();
      sandbox.close();
    })();
  });
});
