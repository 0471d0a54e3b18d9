import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { verifyWebhook } from '../../src/index.js';
import { describe, expect, it, test } from '../fixture.js';
import { client, KEY, OTHER_KEY, startSandbox } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from './receivers.js';

afterEach(closeReceivers);

const CALL_EVENTS = ['call.started', 'call.answered', 'call.completed'];

describe('webhook delivery', () => {
  it("delivers a call's three events, signed, in order, each at its virtual instant", async ({ sandbox, api }) => {
    const receiver = await startReceiver(() => 200, sandbox);
    const sub = await subscribe(sandbox, receiver.url, CALL_EVENTS);
    const { body: call } = await api.placeCall();
    await sandbox.advance('70s');

    expect(receiver.received.map((r) => r.body.type)).toEqual(CALL_EVENTS);
    expect(receiver.received.map((r) => r.virtualAt)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:05.000Z',
      '2026-01-01T00:01:05.000Z',
    ]);
    const logged = sandbox.events.list({ apiKey: KEY });
    for (const [i, r] of receiver.received.entries()) {
      expect(r.path).toBe('/hooks');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-service-signature']).toBe(createHmac('sha256', sub.secret).update(r.raw).digest('hex'));
      expect(verifyWebhook(r.raw, r.headers['x-service-signature'] as string, sub.secret)).toBe(true);
      expect(verifyWebhook(r.raw, r.headers['x-service-signature'] as string, 'whsec_wrong')).toBe(false);
      expect(r.headers['x-service-event-id']).toBe(r.body.id);
      expect(r.headers['x-service-event-type']).toBe(r.body.type);
      expect(r.headers['x-service-delivery-attempt']).toBe('1');
      // The envelope is the logged event, pretty-printed byte for byte, as the service would send it.
      expect(r.raw.toString('utf8')).toBe(JSON.stringify(logged[i], null, 2));
      expect(Object.keys(r.body)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(r.body.id).toMatch(/^evt_[0-9A-Za-z]{16}$/);
      expect(r.body.data.id).toBe(call.id);
    }
    expect(receiver.received[2]!.body.data).toMatchObject({ status: 'completed', disposition: 'answered', duration: 60 });
    expect(receiver.received[2]!.body.data.recording_url).toMatch(/^https:\/\/api\.svc\.test\/v1\/recordings\/rec_/);

    const deliveries = sandbox.webhooks.deliveries({ subscriptionId: sub.id });
    expect(deliveries.map((d) => [d.eventType, d.state, d.attempts.length])).toEqual(CALL_EVENTS.map((t) => [t, 'delivered', 1]));
    expect(sandbox.webhooks.attempts()[0]).toMatchObject({ attempt: 1, replay: 0, status: 200, ok: true, error: null, url: receiver.url });
  });

  it('sends a body that differs from its re-serialisation, so a receiver that verifies JSON.stringify(JSON.parse(body)) fails here as it would live', async ({
    sandbox,
    api,
  }) => {
    const receiver = await startReceiver(() => 200, sandbox);
    const sub = await subscribe(sandbox, receiver.url, CALL_EVENTS);
    await api.placeCall();
    await sandbox.advance('70s');
    expect(receiver.received).toHaveLength(3);
    for (const r of receiver.received) {
      const raw = r.raw.toString('utf8');
      const reserialised = JSON.stringify(JSON.parse(raw));
      expect(raw).not.toBe(reserialised);
      const signature = r.headers['x-service-signature'] as string;
      expect(verifyWebhook(raw, signature, sub.secret)).toBe(true);
      expect(verifyWebhook(reserialised, signature, sub.secret)).toBe(false);
    }
  });

  it('sends the same bytes for the same seed and steps, run after run', async () => {
    const bodies = async () => {
      const sandbox = startSandbox({ seed: 7 });
      try {
        const receiver = await startReceiver(() => 200);
        await subscribe(sandbox, receiver.url, CALL_EVENTS);
        await client(sandbox).placeCall();
        await sandbox.advance('70s');
        return receiver.received.map((r) => r.raw.toString('utf8'));
      } finally {
        sandbox.close();
      }
    };
    const [first, second] = [await bodies(), await bodies()];
    expect(first).toHaveLength(3);
    expect(second).toEqual(first);
  });

  it('sends only the subscribed events', async ({ sandbox, api }) => {
    const receiver = await startReceiver();
    await subscribe(sandbox, receiver.url, ['call.completed']);
    await api.placeCall();
    await api.placeCall({ to: '+15005550002' }); // busy: started and completed, never answered
    await sandbox.advance('2m');
    expect(receiver.received.map((r) => [r.body.type, r.body.data.disposition])).toEqual([
      ['call.completed', 'busy'],
      ['call.completed', 'answered'],
    ]);
    expect(sandbox.webhooks.deliveries().every((d) => d.eventType === 'call.completed')).toBe(true);
  });

  it('delivers each event to every matching subscription of the account, each signed with its own secret', async ({ sandbox, api }) => {
    const a = await startReceiver();
    const b = await startReceiver();
    const subA = await subscribe(sandbox, a.url, ['call.started']);
    const subB = await subscribe(sandbox, b.url, ['call.started', 'call.answered']);
    await api.placeCall();
    await sandbox.advance('10s');
    expect(a.received.map((r) => r.body.type)).toEqual(['call.started']);
    expect(b.received.map((r) => r.body.type)).toEqual(['call.started', 'call.answered']);
    expect(a.received[0]!.raw.equals(b.received[0]!.raw)).toBe(true);
    expect(verifyWebhook(a.received[0]!.raw, a.received[0]!.headers['x-service-signature'] as string, subA.secret)).toBe(true);
    expect(verifyWebhook(b.received[0]!.raw, b.received[0]!.headers['x-service-signature'] as string, subB.secret)).toBe(true);
    expect(a.received[0]!.headers['x-service-signature']).not.toBe(b.received[0]!.headers['x-service-signature']);
  });

  it("never delivers one account's events to another account's subscription", async ({ sandbox, api }) => {
    const mine = await startReceiver();
    const theirs = await startReceiver();
    await subscribe(sandbox, mine.url, CALL_EVENTS, KEY);
    await subscribe(sandbox, theirs.url, CALL_EVENTS, OTHER_KEY);
    await api.placeCall();
    await sandbox.advance('70s');
    expect(mine.received).toHaveLength(3);
    expect(theirs.received).toHaveLength(0);
    expect(sandbox.webhooks.deliveries({ apiKey: OTHER_KEY })).toEqual([]);
  });

  it('keeps event order per subscription when several events happen at the same instant', async ({ sandbox, api }) => {
    const receiver = await startReceiver();
    await subscribe(sandbox, receiver.url, ['call.started']);
    for (let i = 0; i < 8; i++) await api.placeCall({ to: `+1415555020${i}` });
    const placed = sandbox.events.list({ type: 'call.started' }).map((e) => e.id);
    await sandbox.advance(0);
    expect(receiver.received.map((r) => r.body.id)).toEqual(placed);
  });

  describe('with webhookTimeout 1s', () => {
    test.override({ sandboxOptions: { webhookTimeout: '1s' } });

    it('sends the next request to one subscription without waiting for the answer to the one before, in event order', async ({
      sandbox,
    }) => {
      // Holds the first request until the second arrives, then answers both: a sender that
      // waited for each answer would see its first attempt time out.
      let open = 0;
      let maxOpen = 0;
      const arrived: string[] = [];
      const held: Array<() => void> = [];
      const server = createServer((req, res) => {
        open += 1;
        maxOpen = Math.max(maxOpen, open);
        arrived.push(String(req.headers['x-service-event-id']));
        res.on('close', () => (open -= 1));
        held.push(() => res.writeHead(200).end());
        if (held.length === 2) for (const answer of held) answer();
        req.resume();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        await subscribe(sandbox, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, ['call.started']);
        await client(sandbox).placeCall();
        await client(sandbox).placeCall();
        await sandbox.advance(0);
        expect(maxOpen).toBe(2);
        const attempts = sandbox.webhooks.attempts();
        const [first, second] = sandbox.events.list().map((e) => e.id);
        expect(arrived).toEqual([first, second]);
        expect(attempts.map((a) => [a.eventId, a.attempt, a.ok])).toEqual([
          [first, 1, true],
          [second, 1, true],
        ]);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });

  it('delivers nothing for events before the subscription existed, and nothing at all without one', async ({ sandbox, api }) => {
    const receiver = await startReceiver();
    await api.placeCall();
    await sandbox.advance('1s');
    await subscribe(sandbox, receiver.url, CALL_EVENTS);
    await sandbox.advance('70s');
    expect(receiver.received.map((r) => r.body.type)).toEqual(['call.answered', 'call.completed']);
  });
});
