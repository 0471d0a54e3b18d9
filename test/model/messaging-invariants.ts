import { createHash } from 'node:crypto';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { expect } from 'vitest';
import { verifyWebhook } from '../../src/index.js';
import { KEYS, type Driver } from './driver.js';
import type { MessagingModel } from './messaging-reference.js';

/**
 * The end-of-run checks of messaging-model.test.ts: the event log against the model, and
 * webhook deliveries against in-process receivers.
 */

const hash = (text: string) => createHash('sha256').update(text).digest().readUInt32BE(0);

export interface Received {
  key: number;
  raw: string;
  signature: string;
  acked: boolean;
}

/** An in-process receiver per key at https://hooks.test/<key>: key 2's always fails, the others fail a third of attempts. */
export function startReceivers(): { received: Received[]; stop: () => void } {
  const received: Received[] = [];
  const interceptor = new FetchInterceptor();
  interceptor.apply();
  // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
  interceptor.on('request', async ({ request, controller }) => {
    const url = new URL(request.url);
    if (url.origin !== 'https://hooks.test') return;
    const k = Number(url.pathname.slice(1));
    const raw = await request.text();
    const attempt = request.headers.get('x-service-delivery-attempt');
    const acked = k !== 2 && hash(`${JSON.parse(raw).id}:${attempt}`) % 3 !== 0;
    received.push({ key: k, raw, signature: request.headers.get('x-service-signature') ?? '', acked });
    controller.respondWith(new Response(null, { status: acked ? 204 : 503 }));
  });
  return { received, stop: () => interceptor.dispose() };
}

/** The account whose data an event carries, by the model: its message's, or its call's (recordings and transcripts name their call). */
export function ownerOf(model: MessagingModel, data: any, type: string): number | undefined {
  if (type.startsWith('message.')) return model.messages.find((m) => m.id === data.id)?.account;
  const callId = type.startsWith('call.') ? data.id : data.call_id;
  return model.calls.find((c) => c.id === callId)?.account;
}

/** Events: each in exactly its owner's log; message events exactly as the model says; call events in lifecycle order at the model's instants. */
export function checkEvents(d: Driver, model: MessagingModel): void {
  const all = d.sandbox.events.list();
  const accountOf = new Map<string, number>();
  for (const k of [0, 1, 2]) {
    for (const e of d.sandbox.events.list({ apiKey: KEYS[k] })) {
      expect(accountOf.has(e.id), `${e.id} in two accounts`).toBe(false);
      accountOf.set(e.id, k);
    }
  }
  for (const e of all) expect(accountOf.get(e.id), `${e.type} ${e.id}`).toBe(ownerOf(model, e.data, e.type));

  // Both are final states, so the event's data is the message as the model shows it now.
  const delivered = model.messages.filter((m) => m.outcome === 'delivered' && m.created + 3_000 <= model.now);
  expect(all.filter((e) => e.type === 'message.delivered').map((e) => [e.created_at, e.data])).toEqual(
    delivered.map((m) => [new Date(m.created + 3_000).toISOString(), model.messageJson(m)]),
  );
  const received = model.messages.filter((m) => m.outcome === 'received');
  expect(all.filter((e) => e.type === 'message.received').map((e) => [e.created_at, e.data])).toEqual(
    received.map((m) => [new Date(m.created).toISOString(), model.messageJson(m)]),
  );
  for (const c of model.calls) {
    const mine = all.filter((e) => e.type.startsWith('call.') && e.data.id === c.id).map((e) => [e.type, Date.parse(e.created_at)]);
    const expected: Array<[string, number]> = [['call.started', c.created]];
    if (c.answeredAt !== undefined && c.answeredAt <= model.now) expected.push(['call.answered', c.answeredAt]);
    if (c.endedAt <= model.now) expected.push(['call.completed', c.endedAt]);
    expect(mine).toEqual(expected);
  }
}

/** After 25 h: every event delivered or dead-lettered to its own account's receiver, and each receiver saw only its account's events. */
export function checkDeliveries(d: Driver, model: MessagingModel, received: Received[], secrets: string[]): void {
  const deliveries = d.sandbox.webhooks.deliveries();
  for (const e of d.sandbox.events.list()) {
    const owner = ownerOf(model, e.data, e.type)!;
    const mine = deliveries.filter((x) => x.eventId === e.id);
    expect(mine.length, `${e.type} ${e.id}`).toBe(1);
    expect(['delivered', 'dead']).toContain(mine[0]!.state);
    expect(d.sandbox.webhooks.deliveries({ apiKey: KEYS[owner], eventId: e.id })).toHaveLength(1);
    const acked = received.some((r) => r.key === owner && r.acked && JSON.parse(r.raw).id === e.id);
    expect(mine[0]!.state).toBe(acked ? 'delivered' : 'dead');
  }
  for (const r of received) {
    const event = JSON.parse(r.raw);
    expect(ownerOf(model, event.data, event.type), `${event.type} reached receiver ${r.key}`).toBe(r.key);
    expect(verifyWebhook(r.raw, r.signature, secrets[r.key]!)).toBe(true);
  }
}
