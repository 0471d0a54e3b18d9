import { afterEach } from 'vitest';
import { EVENT_TYPES, SandboxError, verifyWebhook, type EventType } from '../../src/index.js';
import { expect, test } from '../fixture.js';
import { type client, KEY } from '../helpers.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';

/**
 * sandbox.trigger (docs/scenarios.md, "Triggers"): one event of each of the
 * seven types through a real state change, so GET of the resource equals the event's data
 * and the webhook is delivered and signed like any other.
 */

afterEach(() => closeReceivers());

/** How the API shows each event's resource: GET by id, or a message in GET /v1/messages (it has no GET by id). */
async function read(api: ReturnType<typeof client>, type: EventType, id: string): Promise<unknown> {
  if (type.startsWith('message.')) {
    const list = await api.get('/v1/messages?limit=100');
    expect(list.status).toBe(200);
    return list.body.data.find((m: { id: string }) => m.id === id);
  }
  const path = type.startsWith('call.') ? `/v1/calls/${id}` : type === 'recording.ready' ? `/v1/recordings/${id}` : `/v1/transcripts/${id}`;
  const answer = await api.get(path);
  expect(answer.status).toBe(200);
  return answer.body;
}

test.for(EVENT_TYPES)(
  'trigger(%s) makes one event whose resource GET returns as its data, delivered signed',
  async (type, { sandbox, api }) => {
    const receiver = await startReceiver();
    const sub = await api.post('/v1/webhooks', { url: receiver.url, events: [type] });
    expect(sub.status).toBe(201);

    const event = await sandbox.trigger(type);

    expect(event.type).toBe(type);
    expect(sandbox.events.list({ type }).map((e) => e.id)).toEqual([event.id]);
    expect(await read(api, type, event.data.id)).toEqual(event.data);

    await sandbox.advance(0);
    const [delivery] = receiver.received;
    expect(delivery!.body).toEqual(event);
    expect(verifyWebhook(delivery!.raw, delivery!.headers['x-service-signature'] as string, sub.body.secret)).toBe(true);
  },
);

test('a call.completed with disposition busy makes a busy call, answered by nobody', async ({ sandbox, api }) => {
  const event = await sandbox.trigger('call.completed', { disposition: 'busy', to: '+14155550177' }, { apiKey: KEY });
  expect(event.data).toMatchObject({ status: 'completed', disposition: 'busy', duration: 0, answered_by: null, to: '+14155550177' });
  expect((await api.get(`/v1/calls/${event.data.id}`)).body).toEqual(event.data);
  expect(sandbox.events.list({ apiKey: KEY }).map((e) => e.type)).toEqual(['call.started', 'call.completed']);
});

test('every disposition can be triggered', async ({ sandbox }) => {
  for (const disposition of ['answered', 'busy', 'no_answer', 'failed', 'canceled'] as const) {
    const event = await sandbox.trigger('call.completed', { disposition });
    expect(event.data.disposition).toBe(disposition);
  }
});

test('a recording.ready makes the answered call and its recording, with the duration asked', async ({ sandbox, api }) => {
  const event = await sandbox.trigger('recording.ready', { duration: 42 }, { apiKey: KEY });
  expect(event.data).toMatchObject({ status: 'ready', duration: 42 });
  const call = await api.get(`/v1/calls/${event.data.call_id}`);
  expect(call.body).toMatchObject({ status: 'completed', disposition: 'answered', duration: 42, recording_id: event.data.id });
});

test('message triggers provision a number of the account when it has none, and use it after', async ({ sandbox, api }) => {
  const received = await sandbox.trigger('message.received', { body: 'STOP' }, { apiKey: KEY });
  const numbers = await api.get('/v1/numbers?provisioned=true');
  expect(numbers.body.data.map((n: { number: string }) => n.number)).toEqual([received.data.to]);
  const delivered = await sandbox.trigger('message.delivered', { to: '+14155550199' }, { apiKey: KEY });
  expect(delivered.data).toMatchObject({ from: received.data.to, to: '+14155550199', status: 'delivered' });
});

test('the account is the one the test has been using, unless apiKey names another', async ({ sandbox, api }) => {
  await api.get('/v1/calls');
  const mine = await sandbox.trigger('call.started');
  expect(sandbox.events.list({ apiKey: KEY }).map((e) => e.id)).toEqual([mine.id]);
  const theirs = await sandbox.trigger('call.started', {}, { apiKey: 'SVC_TEST_bob' });
  expect(sandbox.events.list({ apiKey: 'SVC_TEST_bob' }).map((e) => e.id)).toEqual([theirs.id]);
});

test('an unknown type or override is refused, naming it and the fix', async ({ sandbox }) => {
  await expect(sandbox.trigger('call.ended' as EventType)).rejects.toThrow(/"call.ended" is not an event type: pass one of call.started/);
  const error = await sandbox.trigger('call.completed', { dispositon: 'busy' } as never).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SandboxError);
  expect(error).toMatchObject({ param: 'overrides.dispositon', message: expect.stringContaining('did you mean `disposition`') });
  await expect(sandbox.trigger('call.completed', { disposition: 'busy', duration: 5 })).rejects.toMatchObject({
    param: 'overrides.duration',
  });
});

test('regression: a trigger whose request meets an injected network fault rejects with a SandboxError (conflict), not a TypeError', async ({
  sandbox,
}) => {
  sandbox.faults.inject({ method: 'POST', path: '/v1/calls', network: true });
  const error = await sandbox.trigger('call.started').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SandboxError);
  expect(error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/network fault/) });
});
