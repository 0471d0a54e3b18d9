import { createHash } from 'node:crypto';
import type { Sandbox } from '../../src/index.js';
import { KEY, OTHER_KEY, TO } from './kit.js';

/** A number whose calls are answered and then stay live until the test hangs up. */
const LIVE_TO = '+14155550124';
const ALL_EVENTS = [
  'call.started',
  'call.answered',
  'call.completed',
  'message.received',
  'message.delivered',
  'recording.ready',
  'transcript.ready',
];

/** One API request through `sandbox.handle()`; anything but 2xx fails the test that seeds or reads. */
async function api(sandbox: Sandbox, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await sandbox.handle(
    new Request(`${sandbox.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Seeds real state for both keys and returns the values of the corpus's `<<name>>`
 * placeholders: a provisioned number each, a webhook subscription each (delivering to
 * `receiverUrl`), an outbound and an inbound message, a completed answered call with its
 * recording and transcript, a busy call, a live (answered) call, and cursors of several lists.
 */
export async function seed(sandbox: Sandbox, receiverUrl: string): Promise<Record<string, string>> {
  const webhook = await api(sandbox, KEY, 'POST', '/v1/webhooks', { url: receiverUrl, events: ALL_EVENTS });
  const otherWebhook = await api(sandbox, OTHER_KEY, 'POST', '/v1/webhooks', { url: receiverUrl, events: ['message.received'] });
  const number = await api(sandbox, KEY, 'POST', '/v1/numbers', { kind: 'local', country: 'US' });
  const otherNumber = await api(sandbox, OTHER_KEY, 'POST', '/v1/numbers', { kind: 'local', country: 'US' });
  const message = await api(sandbox, KEY, 'POST', '/v1/messages', { from: number.number, to: TO, body: 'Hello' });
  sandbox.messages.inbound({ from: TO, to: number.number, body: 'Hi back' });
  const call = await api(sandbox, KEY, 'POST', '/v1/calls', { to: TO, from: number.number, ai_receptionist: true });
  const busy = await api(sandbox, KEY, 'POST', '/v1/calls', { to: '+15005550002', from: number.number });
  sandbox.network.setBehavior(LIVE_TO, { talk: 'manual' });
  const live = await api(sandbox, KEY, 'POST', '/v1/calls', { to: LIVE_TO, from: number.number });
  await sandbox.advance('3m');
  const done = await api(sandbox, KEY, 'GET', `/v1/calls/${call.id}`);
  const cursor = async (key: string, path: string) => (await api(sandbox, key, 'GET', path)).next_cursor as string;
  const cursorCalls = await cursor(KEY, '/v1/calls?limit=1');
  const ids: Record<string, string> = {
    webhook: webhook.id,
    other_webhook: otherWebhook.id,
    number_id: number.id,
    number: number.number,
    other_number_id: otherNumber.id,
    other_number: otherNumber.number,
    message: message.id,
    conversation: message.conversation_id,
    call: call.id,
    busy_call: busy.id,
    live_call: live.id,
    recording: done.recording_id,
    transcript: done.transcript_id,
    cursor_calls: cursorCalls,
    cursor_calls_tampered: cursorCalls.slice(0, -1) + (cursorCalls.endsWith('A') ? 'B' : 'A'),
    cursor_messages: await cursor(KEY, '/v1/messages?limit=1'),
    cursor_available: await cursor(KEY, '/v1/numbers?limit=1'),
    other_cursor_available: await cursor(OTHER_KEY, '/v1/numbers?limit=1'),
  };
  for (const [name, value] of Object.entries(ids)) if (typeof value !== 'string' || !value) throw new Error(`seed: no ${name}`);
  if ((await api(sandbox, KEY, 'GET', `/v1/calls/${live.id}`)).status !== 'answered')
    throw new Error('seed: the live call is not answered');
  return ids;
}

/** Every item of a list, page by page. */
async function walk(sandbox: Sandbox, key: string, path: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await api(sandbox, key, 'GET', `${path}${sep}limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

const LISTS = ['/v1/calls', '/v1/numbers?provisioned=true', '/v1/numbers', '/v1/messages', '/v1/recordings', '/v1/webhooks'];

/**
 * Everything observable for `keys`, as one JSON string: every list walked to its end, each
 * call, recording (and a hash of its audio) and transcript fetched by id, the event log,
 * webhook deliveries and dead letters, open streams, the virtual clock and internal errors.
 */
export async function fingerprint(sandbox: Sandbox, keys: readonly string[]): Promise<string> {
  const accounts: Record<string, unknown> = {};
  for (const key of keys) {
    const lists: Record<string, unknown[]> = {};
    for (const path of LISTS) lists[path] = await walk(sandbox, key, path);
    const calls = lists['/v1/calls'] as Array<{ id: string; transcript_id: string | null }>;
    const recordings = lists['/v1/recordings'] as Array<{ id: string }>;
    const byId: Record<string, unknown> = {};
    for (const call of calls) {
      byId[call.id] = await api(sandbox, key, 'GET', `/v1/calls/${call.id}`);
      if (call.transcript_id) byId[call.transcript_id] = await api(sandbox, key, 'GET', `/v1/transcripts/${call.transcript_id}`);
    }
    for (const recording of recordings) {
      byId[recording.id] = await api(sandbox, key, 'GET', `/v1/recordings/${recording.id}`);
      const audio = await sandbox.handle(
        new Request(`${sandbox.baseUrl}/v1/recordings/${recording.id}/audio`, { headers: { authorization: `Bearer ${key}` } }),
      );
      byId[`${recording.id}/audio`] = createHash('sha256')
        .update(new Uint8Array(await audio.arrayBuffer()))
        .digest('hex');
    }
    accounts[key] = { lists, byId };
  }
  return JSON.stringify({
    accounts,
    events: sandbox.events.list(),
    deliveries: sandbox.webhooks.deliveries(),
    deadLetters: sandbox.webhooks.deadLetters(),
    openStreams: sandbox.transcripts.openStreams(),
    now: sandbox.now().toISOString(),
    internalErrors: sandbox.internalErrors().map((e) => String(e.error)),
  });
}

/**
 * The same creating requests, made after the corpus: a number, a call, a message and a
 * subscription, then three virtual minutes. A sandbox that the corpus left truly untouched
 * (no id drawn, no position taken) answers them exactly as a twin that never saw it.
 */
export async function followUp(sandbox: Sandbox, receiverUrl: string): Promise<string> {
  const number = await api(sandbox, KEY, 'POST', '/v1/numbers', { kind: 'local' });
  const call = await api(sandbox, KEY, 'POST', '/v1/calls', { to: TO, from: number.number });
  const message = await api(sandbox, KEY, 'POST', '/v1/messages', { from: number.number, to: TO, body: 'Again' });
  const webhook = await api(sandbox, OTHER_KEY, 'POST', '/v1/webhooks', { url: receiverUrl, events: ['call.completed'] });
  await sandbox.advance('3m');
  return JSON.stringify({ number, call, message, webhook, events: sandbox.events.list(), page: await walk(sandbox, KEY, '/v1/calls') });
}
