import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach } from 'vitest';
import { silentReceiver } from '../../bench/hanging-receiver.mjs';
import { MAX_IN_FLIGHT_PER_SUBSCRIPTION } from '../../src/webhooks/deliveries.js';
import { createSandbox, type Sandbox, startServer } from '../../src/index.js';
import { describe, expect, it, test } from '../fixture.js';
import { client, startSandbox } from '../helpers.js';
import { closeReceivers, type Responder, startReceiver, subscribe } from './receivers.js';

afterEach(closeReceivers);

const CALL_EVENTS = ['call.started', 'call.answered', 'call.completed'];

describe('a receiver that never answers', () => {
  test.override({ sandboxOptions: { webhookTimeout: '200ms' } });

  it('waits one timeout per instant, not one per attempt: the attempts of an instant are in flight together, every event dead-lettered', async ({
    sandbox,
  }) => {
    const receiver = await silentReceiver();
    try {
      await subscribe(sandbox, receiver.url, ['call.started']);
      // 25 events at one instant, 13 attempts each.
      for (let i = 0; i < 25; i++) await client(sandbox).placeCall({ to: `+141555503${String(i).padStart(2, '0')}` });
      const started = performance.now();
      await sandbox.advance('25h');
      const seconds = (performance.now() - started) / 1000;
      const deliveries = sandbox.webhooks.deliveries();
      expect(deliveries).toHaveLength(25);
      expect(deliveries.every((d) => d.state === 'dead' && d.attempts.length === 13)).toBe(true);
      const attempts = sandbox.webhooks.attempts();
      expect(attempts).toHaveLength(325);
      expect(attempts.every((a) => a.status === null && /timed out/.test(a.error!))).toBe(true);
      // One attempt at a time would take 325 × 0.2 s = 65 s (54 min at the default 10 s); side by side,
      // one timeout per instant: 13 × 0.2 s. The receiver holding all 25 connections of an instant at
      // once is the proof (one at a time, it would hold one, or two as a socket closes); the time is printed.
      console.log(`hanging receiver: 325 attempts (25 events) in advance('25h') took ${seconds.toFixed(2)} s of real time`);
      expect(receiver.mostOpen()).toBeGreaterThanOrEqual(25);
    } finally {
      await receiver.close();
    }
  });
});

describe('a receiver that never answers, with time to open every connection', () => {
  // Long enough that all of an instant's connections reach the receiver before the first times
  // out, on a loaded machine too (at 200 ms, a busy machine opened 8 before the first timed out).
  test.override({ sandboxOptions: { webhookTimeout: '3s' } });

  it(`gets ${MAX_IN_FLIGHT_PER_SUBSCRIPTION} attempts at a time per subscription; the next when one settles, still in event order`, async ({
    sandbox: hanging,
  }) => {
    // Each attempt to a loopback receiver is a connection of its own: the receiver counts them.
    const receiver = await silentReceiver();
    try {
      // More calls than that answered at one instant, 5 s after they were placed.
      const calls = MAX_IN_FLIGHT_PER_SUBSCRIPTION + 8;
      await subscribe(hanging, receiver.url, ['call.answered']);
      await Promise.all(
        Array.from({ length: calls }, (_, i) => client(hanging).placeCall({ to: `+14155506${String(i).padStart(3, '0')}` })),
      );
      await hanging.advance('6s');
      // That many leave at once; the next when one has timed out. (A timed-out attempt's socket may
      // close at the receiver a moment after the attempt has settled, so one more can overlap here.)
      expect(receiver.mostOpen()).toBeGreaterThanOrEqual(MAX_IN_FLIGHT_PER_SUBSCRIPTION);
      expect(receiver.mostOpen()).toBeLessThan(calls);
      const events = hanging.events.list({ type: 'call.answered' }).map((e) => e.id);
      expect(hanging.webhooks.attempts().map((a) => a.eventId)).toEqual(events);
      expect(hanging.webhooks.attempts().every((a) => a.at === '2026-01-01T00:00:05.000Z')).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});

describe('attempts in flight together', () => {
  it('are recorded, and reported to subscribe(), in the order they left, whatever order the answers come in', async ({ sandbox }) => {
    // Answers each request only when the next one arrives, the last one at once: answers
    // come back last first.
    const waiting: Array<() => void> = [];
    const server = createHttpServer((req, res) => {
      req.resume();
      waiting.push(() => res.writeHead(200).end());
      if (waiting.length === 3) while (waiting.length) waiting.pop()!();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await subscribe(sandbox, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, ['call.started']);
      const seen: string[] = [];
      sandbox.webhooks.subscribe((attempt) => seen.push(attempt.eventId));
      // Three calls at one instant, their first attempts in flight together.
      await Promise.all([0, 1, 2].map((i) => client(sandbox).placeCall({ to: `+1415555040${i}` })));
      await sandbox.advance(0);
      const events = sandbox.events.list({ type: 'call.started' }).map((e) => e.id);
      expect(sandbox.webhooks.attempts().map((a) => [a.eventId, a.ok])).toEqual(events.map((id) => [id, true]));
      expect(seen).toEqual(events);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('keep the attempt log (order, instants) the same whatever the receivers’ timing', async () => {
    // The same scenario twice: two subscriptions failing with 500, once answered at once and
    // once after uneven real delays. Both subscriptions' retries fall due at shared instants.
    const run = async (delayMs: (n: number) => number) => {
      const sandbox = startSandbox({ seed: 7 });
      const servers = [0, 1].map((r) => {
        let n = 0;
        return createHttpServer((req, res) => {
          req.resume();
          const wait = delayMs(n++ + r);
          setTimeout(() => res.writeHead(500).end(), wait);
        });
      });
      try {
        for (const server of servers) {
          await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
          await subscribe(sandbox, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, CALL_EVENTS);
        }
        await Promise.all([0, 1, 2].map((i) => client(sandbox).placeCall({ to: `+1415555050${i}` })));
        await sandbox.advance('10m');
        return sandbox.webhooks.attempts().map((a) => [a.subscriptionId, a.eventId, a.attempt, a.at, a.status]);
      } finally {
        sandbox.close();
        for (const server of servers) {
          server.closeAllConnections();
          server.close();
        }
      }
    };
    const prompt = await run(() => 0);
    const uneven = await run((n) => [40, 0, 15, 5][n % 4]!);
    expect(prompt.length).toBeGreaterThan(50);
    expect(uneven).toEqual(prompt);
  });
});

describe('the webhook timeout in server mode', () => {
  const post = async (url: string, body: unknown, key?: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  /** Subscribes, places a call and advances 1 s in the session of `key`; returns that session's attempts. */
  const hangOnce = async (serverUrl: string, session: string, key: string, receiverUrl: string) => {
    expect((await post(`${serverUrl}/v1/webhooks`, { url: receiverUrl, events: ['call.started'] }, key)).status).toBe(201);
    expect((await post(`${serverUrl}/v1/calls`, { to: '+14155550123', from: '+14155550100' }, key)).status).toBe(201);
    expect((await post(`${serverUrl}/__sandbox/sessions/${session}/advance`, { duration: '1s' })).status).toBe(200);
    return (await (await fetch(`${serverUrl}/__sandbox/sessions/${session}/deliveries`)).json()).data[0].attempts;
  };

  it('is an option of startServer, and of each session (POST /__sandbox/sessions {webhookTimeout})', async () => {
    const receiver = await silentReceiver();
    const server = await startServer({ port: 0, webhookTimeout: '200ms' });
    try {
      const [byServer] = await hangOnce(server.url, 'default', server.sandbox.keys.create().key, receiver.url);
      expect(byServer.error).toBe('no response within 200 ms (timed out)');
      const session = await post(`${server.url}/__sandbox/sessions`, { webhookTimeout: '150ms' });
      expect(session.status).toBe(201);
      const [bySession] = await hangOnce(server.url, session.body.id, session.body.apiKey, receiver.url);
      expect(bySession.error).toBe('no response within 150 ms (timed out)');
      const bad = await post(`${server.url}/__sandbox/sessions`, { webhookTimeout: 'soon' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('webhookTimeout');
    } finally {
      await server.close();
      await receiver.close();
    }
  });

  it('startServer refuses a bad webhookTimeout before it listens', async () => {
    await expect(startServer({ port: 0, webhookTimeout: '0ms' })).rejects.toMatchObject({
      code: 'invalid_options',
      param: 'webhookTimeout',
    });
  });
});

describe('a hanging receiver: one that let an attempt time out', () => {
  /** Deliveries and attempts as JSON, without the one real-time field (and the receiver's port, another each run). */
  const logOf = (sandbox: Sandbox) =>
    JSON.stringify({
      deliveries: sandbox.webhooks.deliveries().map((d) => ({ ...d, attempts: d.attempts.map(({ durationMs: _, ...a }) => a) })),
      attempts: sandbox.webhooks.attempts().map(({ durationMs: _, ...a }) => a),
    }).replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'RECEIVER/');

  const made: Sandbox[] = [];
  afterEach(() => {
    for (const sandbox of made.splice(0)) sandbox.close();
  });

  /** A sandbox whose one subscription (every call event) goes to `respond`; `calls` calls placed at one instant. */
  const story = async (respond: Responder, calls: number, webhookTimeout = '300ms') => {
    const receiver = await startReceiver(respond);
    const sandbox = startSandbox({ seed: 11, webhookTimeout });
    made.push(sandbox);
    await subscribe(sandbox, receiver.url, CALL_EVENTS);
    for (let i = 0; i < calls; i++) await client(sandbox).placeCall({ to: `+141555508${String(i).padStart(2, '0')}` });
    return { sandbox, receiver };
  };

  /** Hangs on the first `n` attempts of each delivery (by content: requests in flight together may arrive in any order), then `then`. */
  const hangFirst =
    (n: number, then: (type: string) => number = () => 204): Responder =>
    (request) =>
      Number(request.headers['x-service-delivery-attempt']) <= n ? 'hang' : then(request.body.type);

  it('gets a tenth of the timeout for its next attempts, until it answers one; its first attempt gets the whole timeout', async () => {
    const { sandbox, receiver } = await story(hangFirst(2), 1, '500ms');
    await sandbox.advance('25h');
    const attempts = sandbox.webhooks.attempts();
    expect(sandbox.webhooks.deliveries().map((d) => [d.state, d.attempts.map((a) => a.ok)])).toEqual([
      ['delivered', [false, false, true]],
      ['delivered', [false, false, true]],
      ['delivered', [false, false, true]],
    ]);
    expect(attempts.filter((a) => !a.ok).map((a) => a.error)).toEqual([
      'no response within 500 ms (timed out)',
      ...Array(5).fill('no response within 200 ms (timed out; a receiver that let an attempt time out gets 200 ms until it answers again)'),
    ]);
    expect(receiver.received.length).toBe(attempts.length);
  });

  it('its attempts count at their delivery’s next attempt, or when the advance ends: advance(0) still shows every one', async () => {
    const { sandbox } = await story(() => 'hang', 1);
    const [started] = sandbox.webhooks.deliveries();
    const seen: Array<[number, string]> = [];
    sandbox.webhooks.subscribe((attempt) => {
      if (attempt.deliveryId === started!.id) seen.push([attempt.attempt, sandbox.now().toISOString()]);
    });
    await sandbox.advance(0); // attempt 1 of call.started: the receiver is not yet known to hang
    expect(seen).toEqual([[1, '2026-01-01T00:00:00.000Z']]);
    await sandbox.advance('1m'); // attempt 2 at +30 s; attempt 3 would be at +1 m 30 s
    expect(seen.slice(1)).toEqual([[2, '2026-01-01T00:01:00.000Z']]); // counted when the advance ended
    expect(sandbox.webhooks.deliveries({ type: 'call.started' })[0]).toMatchObject({
      state: 'pending',
      nextAttemptAt: '2026-01-01T00:01:30.000Z',
    });
    await sandbox.advance('4m'); // attempts 3 (+1 m 30 s) and 4 (+3 m 30 s); 5 would be at +7 m 30 s
    expect(seen.slice(2)).toEqual([
      [3, '2026-01-01T00:03:30.000Z'], // counted at attempt 4's instant
      [4, '2026-01-01T00:05:00.000Z'], // counted when the advance ended
    ]);
  });

  it('gives the same log, attempts and states twice, whether it never answers or answers after hanging', async () => {
    // A receiver that answers after hanging must answer within the time it gets (200 ms here), as a local one does.
    for (const [respond, timeout] of [
      [() => 'hang' as const, '300ms'],
      [hangFirst(1, (type) => (type === 'call.answered' ? 500 : 204)), '1s'],
    ] as const) {
      const runs: string[] = [];
      for (let run = 0; run < 2; run++) {
        const { sandbox, receiver } = await story(respond, 3, timeout);
        await sandbox.advance('90s');
        await sandbox.advance('25h');
        runs.push(logOf(sandbox));
        sandbox.close();
        await receiver.close();
      }
      expect(runs[1]).toBe(runs[0]);
      expect(JSON.parse(runs[0]!).attempts.length).toBeGreaterThan(12);
    }
  });

  it('a snapshot taken while its attempts wait to count goes on as the original does', async () => {
    const { sandbox, receiver } = await story(() => 'hang', 2);
    await sandbox.advance('2m');
    const copy = createSandbox({ snapshot: sandbox.snapshot(), webhookTimeout: '300ms' });
    try {
      expect(logOf(copy)).toBe(logOf(sandbox));
      await Promise.all([sandbox.advance('25h'), copy.advance('25h')]);
      expect(logOf(copy)).toBe(logOf(sandbox));
      expect(sandbox.webhooks.deadLetters()).toHaveLength(6);
    } finally {
      copy.close();
      await receiver.close();
    }
  });
});
