import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach } from 'vitest';
import { SandboxError, verifyWebhook, WEBHOOK_RETRY_SCHEDULE, type Sandbox } from '../../src/index.js';
import { describe, expect, it, test } from '../fixture.js';
import { client, startSandbox } from '../helpers.js';
import { closedPortUrl, closeReceivers, startReceiver, subscribe } from './receivers.js';
import { within } from '../support/within.js';

afterEach(closeReceivers);

const START = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(START + ms).toISOString();

/** A sandbox with one call.started subscription to `url`, and one call placed at the start. */
async function oneEventTo(sandbox: Sandbox, url: string) {
  const sub = await subscribe(sandbox, url, ['call.started']);
  const { body: call } = await client(sandbox).placeCall();
  const [event] = sandbox.events.list({ type: 'call.started' });
  return { sub, call, event: event! };
}

describe('webhook retries', () => {
  it('retries a failing receiver at 0, +30 s, +1 m 30 s, +3 m 30 s with one event id, and stops once it succeeds', async ({ sandbox }) => {
    const receiver = await startReceiver((_, n) => (n <= 3 ? 500 : 204), sandbox);
    const { event } = await oneEventTo(sandbox, receiver.url);

    await sandbox.advance(0);
    expect(receiver.received).toHaveLength(1);
    await sandbox.advance('29.999s');
    expect(receiver.received).toHaveLength(1); // not a millisecond early
    await sandbox.advance(1);
    expect(receiver.received).toHaveLength(2);
    await sandbox.advance('1h');

    expect(receiver.received.map((r) => r.virtualAt)).toEqual([at(0), at(30_000), at(90_000), at(210_000)]);
    expect(receiver.received.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([event.id]));
    expect(new Set(receiver.received.map((r) => r.body.id))).toEqual(new Set([event.id]));
    // The same bytes and signature every time.
    expect(new Set(receiver.received.map((r) => r.raw.toString('base64'))).size).toBe(1);

    const attempts = sandbox.webhooks.attempts({ eventId: event.id });
    expect(attempts.map((a) => [a.attempt, a.at, a.status, a.ok])).toEqual([
      [1, at(0), 500, false],
      [2, at(30_000), 500, false],
      [3, at(90_000), 500, false],
      [4, at(210_000), 204, true],
    ]);
    expect(attempts[0]!.error).toMatch(/HTTP 500/);
    expect(attempts.every((a) => a.durationMs >= 0)).toBe(true);
    expect(sandbox.webhooks.deliveries({ eventId: event.id })[0]).toMatchObject({ state: 'delivered', nextAttemptAt: null });
  });

  it('shows the next scheduled attempt while a retry waits', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 503);
    await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('31s');
    const [delivery] = sandbox.webhooks.deliveries();
    expect(delivery).toMatchObject({ state: 'pending', nextAttemptAt: at(90_000) });
    expect(delivery!.attempts.map((a) => a.status)).toEqual([503, 503]);
  });

  it('makes every attempt of the schedule, the last exactly 24 h after the first, dead-letters the event, and replay delivers it', async ({
    sandbox,
  }) => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 500), sandbox);
    const { event, sub } = await oneEventTo(sandbox, receiver.url);

    await sandbox.advance('23h59m59.999s');
    expect(receiver.received).toHaveLength(12);
    expect(sandbox.webhooks.deadLetters()).toEqual([]);
    await sandbox.advance(1);
    expect(receiver.received).toHaveLength(13);
    expect(receiver.received.map((r) => r.virtualAt)).toEqual(WEBHOOK_RETRY_SCHEDULE.map(at));
    expect(receiver.received.map((r) => Number(r.headers['x-service-delivery-attempt']))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
    ]);
    expect(receiver.received.at(-1)?.virtualAt).toBe(at(24 * 3600_000));

    const dead = sandbox.webhooks.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ eventId: event.id, subscriptionId: sub.id, state: 'dead', nextAttemptAt: null, replays: 0 });
    expect(dead[0]!.event).toEqual(event);
    await sandbox.advance('7d');
    expect(receiver.received).toHaveLength(13); // nothing more after the dead letter

    healthy = true;
    const replayed = await sandbox.webhooks.replay(dead[0]!.id);
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toMatchObject({ attempt: 1, replay: 1, ok: true, status: 200, eventId: event.id });
    const last = receiver.received[13]!;
    expect(last.body.id).toBe(event.id);
    expect(last.headers['x-service-delivery-attempt']).toBe('1');
    expect(verifyWebhook(last.raw, last.headers['x-service-signature'] as string, sub.secret)).toBe(true);
    expect(sandbox.webhooks.deadLetters()).toEqual([]);
    expect(sandbox.webhooks.deliveries()[0]).toMatchObject({ state: 'delivered', replays: 1 });
    expect(sandbox.webhooks.attempts()).toHaveLength(14);
  });

  it('delivers to a receiver down for 20 h: the spec retries for up to 24 hours, and so does the sandbox', async ({ sandbox }) => {
    const receiver = await startReceiver((r) => (Date.parse(r.virtualAt ?? '') - START < 20 * 3600_000 ? 500 : 200), sandbox);
    const { event } = await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('25h');
    expect(receiver.received.map((r) => r.virtualAt)).toEqual(WEBHOOK_RETRY_SCHEDULE.map(at));
    const attempts = sandbox.webhooks.attempts({ eventId: event.id });
    expect(attempts.at(-1)).toMatchObject({ attempt: 13, at: at(24 * 3600_000), status: 200, ok: true });
    expect(sandbox.webhooks.deadLetters()).toEqual([]);
    expect(sandbox.webhooks.deliveries({ eventId: event.id })[0]).toMatchObject({ state: 'delivered' });
  });

  it('replays by event id, replayAll replays every dead letter, and a failing replay runs the schedule again', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 500, sandbox);
    await subscribe(sandbox, receiver.url, ['call.started', 'call.answered']);
    await client(sandbox).placeCall();
    await sandbox.advance('2d');
    const dead = sandbox.webhooks.deadLetters();
    expect(dead.map((d) => d.eventType)).toEqual(['call.started', 'call.answered']);

    const [first] = await sandbox.webhooks.replay(dead[0]!.eventId);
    expect(first).toMatchObject({ attempt: 1, replay: 1, ok: false, status: 500 });
    expect(sandbox.webhooks.deadLetters().map((d) => d.eventType)).toEqual(['call.answered']);
    const replayedAt = sandbox.now().getTime();
    await sandbox.advance('2d');
    const again = sandbox.webhooks.attempts({ eventId: dead[0]!.eventId }).filter((a) => a.replay === 1);
    expect(again.map((a) => Date.parse(a.at) - replayedAt)).toEqual([...WEBHOOK_RETRY_SCHEDULE]);
    expect(again.map((a) => a.attempt)).toEqual(WEBHOOK_RETRY_SCHEDULE.map((_, i) => i + 1));

    const all = await sandbox.webhooks.replayAll();
    expect(all.map((a) => [a.eventType, a.attempt])).toEqual([
      ['call.started', 1],
      ['call.answered', 1],
    ]);
  });

  it('refuses to replay what is not a dead letter, with a SandboxError naming the fix', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 200);
    const { event } = await oneEventTo(sandbox, receiver.url);
    await sandbox.advance(0);
    await expect(sandbox.webhooks.replay('dlv_nope')).rejects.toThrow(/no dead letter dlv_nope.*deadLetters\(\)/);
    await expect(sandbox.webhooks.replay(event.id)).rejects.toThrow(SandboxError);
    const [delivered] = sandbox.webhooks.deliveries();
    await expect(sandbox.webhooks.replay(delivered!.id)).rejects.toThrow(/is delivered, not in the dead-letter queue/);
    await expect(sandbox.webhooks.replay(42 as never)).rejects.toThrow(SandboxError);
    expect(() => sandbox.webhooks.deliveries({ type: 'call.start' as never })).toThrow(/did you mean "call.started"/);
    expect(() => sandbox.webhooks.deliveries({ state: 'failed' as never })).toThrow(/"pending", "delivered", "dead", "canceled"/);
    expect(() => sandbox.webhooks.attempts({ eventID: 'x' } as never)).toThrow(/did you mean `eventId`/);
  });

  describe('with webhookTimeout 150ms', () => {
    test.override({ sandboxOptions: { webhookTimeout: '150ms' } });

    it('times out a hanging receiver without hanging advance, and retries it', async ({ sandbox }) => {
      const receiver = await startReceiver((_, n) => (n === 1 ? 'hang' : 200));
      await oneEventTo(sandbox, receiver.url);
      const started = performance.now();
      // The receiver never answers: only the 150 ms timeout ends the attempt, and the advance waits for it.
      await within(sandbox.advance('1s'), 5_000, 'an advance past a receiver that hangs');
      expect(performance.now() - started).toBeGreaterThanOrEqual(100); // a lower bound: a slow machine only adds to it
      const [first] = sandbox.webhooks.attempts();
      expect(first).toMatchObject({ attempt: 1, status: null, ok: false });
      expect(first!.error).toMatch(/no response within 150 ms \(timed out\)/);
      expect(first!.durationMs).toBeGreaterThanOrEqual(100);
      await sandbox.advance('30s');
      expect(sandbox.webhooks.deliveries()[0]).toMatchObject({ state: 'delivered' });
      expect(receiver.received).toHaveLength(2);
    });
  });

  it('retries when the connection is refused (nothing listens on the port)', async ({ sandbox }) => {
    const { event } = await oneEventTo(sandbox, await closedPortUrl());
    await sandbox.advance('2m');
    const attempts = sandbox.webhooks.attempts({ eventId: event.id });
    expect(attempts.map((a) => [a.attempt, a.at, a.status])).toEqual([
      [1, at(0), null],
      [2, at(30_000), null],
      [3, at(90_000), null],
    ]);
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async ({ sandbox }) => {
    const receiver = await startReceiver((_, n) => (n === 1 ? 302 : 200));
    await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('30s');
    expect(sandbox.webhooks.attempts().map((a) => [a.status, a.ok])).toEqual([
      [302, false],
      [200, true],
    ]);
  });

  it('stops pending retries when the subscription is deleted', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 500);
    const { sub } = await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('40s');
    expect(receiver.received).toHaveLength(2);
    expect((await client(sandbox).send('DELETE', `/v1/webhooks/${sub.id}`)).status).toBe(204);
    await client(sandbox).placeCall(); // a later event: no delivery either
    await sandbox.advance('2d');
    expect(receiver.received).toHaveLength(2);
    expect(sandbox.webhooks.deliveries().map((d) => [d.state, d.nextAttemptAt])).toEqual([['canceled', null]]);
    expect(sandbox.webhooks.deadLetters()).toEqual([]);
  });

  it('keeps dead letters of a deleted subscription visible but refuses to replay them', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 500);
    const { sub } = await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('1d');
    const [dead] = sandbox.webhooks.deadLetters();
    await client(sandbox).send('DELETE', `/v1/webhooks/${sub.id}`);
    expect(sandbox.webhooks.deadLetters()).toHaveLength(1);
    await expect(sandbox.webhooks.replay(dead!.id)).rejects.toThrow(/was deleted/);
    expect(await sandbox.webhooks.replayAll()).toEqual([]);
    expect(receiver.received).toHaveLength(WEBHOOK_RETRY_SCHEDULE.length);
  });

  it('reset() forgets subscriptions, deliveries and dead letters, and cancels pending retries', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 500);
    await oneEventTo(sandbox, receiver.url);
    await sandbox.advance('1m');
    sandbox.reset();
    expect(sandbox.webhooks.deliveries()).toEqual([]);
    expect(sandbox.webhooks.attempts()).toEqual([]);
    expect((await client(sandbox).get('/v1/webhooks')).body.data).toEqual([]);
    const before = receiver.received.length;
    await sandbox.advance('2d');
    expect(receiver.received).toHaveLength(before);
  });

  describe('with webhookTimeout 10s', () => {
    test.override({ sandboxOptions: { webhookTimeout: '10s' } });

    it('close() abandons an attempt in flight at once, and the scripting API then refuses', async ({ sandbox }) => {
      let arrived!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const server = createServer((req) => {
        arrived();
        req.resume(); // never answers
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const aborted = new Promise<void>((resolve) => server.on('connection', (socket) => socket.on('close', () => resolve())));
      await oneEventTo(sandbox, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await arrival;
      sandbox.close();
      await aborted; // the sandbox dropped the connection instead of waiting 10 s
      server.close();
      // After close() the records stay readable: the attempt in flight ended as abandoned.
      expect(sandbox.webhooks.deliveries()[0]!.state).toBe('canceled');
      await expect(sandbox.webhooks.replayAll()).rejects.toThrow(/closed/);
    });
  });
});

describe('the webhookTimeout option', () => {
  it.each([['0ms'], [0], ['soon'], [-1], ['30d']])('refuses %j with a SandboxError naming the option', (value) => {
    expect(() => startSandbox({ webhookTimeout: value as never, baseUrl: 'https://other.svc.test' })).toThrow(SandboxError);
    expect(() => startSandbox({ webhookTimeout: value as never, baseUrl: 'https://other.svc.test' })).toThrow(/webhookTimeout/);
  });
});
