/**
 * The console's copy of a session (pure: no DOM). It holds every item the control lists gave
 * (`/__sandbox/sessions/{s}/console/*`), by kind and id, and applies the session stream's
 * `change` frames to it: each frame names what changed with its JSON now, so the page updates
 * those items and reads nothing again. The views derive from it (a call's timeline joins its
 * deliveries, recording and transcript; the status line counts attempts and dead letters).
 */

/** The kinds a `change` frame may carry, and those the console lists (with the path of their list). */
export const LISTS = /** @type {const} */ ({
  call: 'calls',
  message: 'messages',
  number: 'numbers',
  recording: 'recordings',
  transcript: 'transcripts',
  subscription: 'subscriptions',
  delivery: 'deliveries',
});

/**
 * @typedef {keyof typeof LISTS | 'key' | 'session'} Kind
 * @typedef {{ id: string, account?: string, created_at?: string, [field: string]: any }} Item
 * @typedef {{ kind: Kind, id: string, removed: boolean, data: any }} Change
 * @typedef {{ items: Record<Kind, Map<string, Item>>, events: number, loaded: boolean }} Model
 */

/** @returns {Model} */
export function emptyModel() {
  const items = /** @type {Record<Kind, Map<string, Item>>} */ ({});
  for (const kind of [...Object.keys(LISTS), 'key', 'session']) items[/** @type {Kind} */ (kind)] = new Map();
  return { items, events: 0, loaded: false };
}

/** The id a kind's items are known by (a key is its own id). */
const idOf = (/** @type {Kind} */ kind, /** @type {any} */ item) => (kind === 'key' ? item.key : item.id);

/**
 * Replaces every item of `kind` with `list`.
 * @param {Model} model
 * @param {Kind} kind
 * @param {any[]} list
 */
export function load(model, kind, list) {
  const map = new Map();
  for (const item of list) map.set(idOf(kind, item), item);
  model.items[kind] = map;
}

/**
 * Applies a `change` frame's items: each is set or removed. Answers what changed, as
 * `kind:id` keys, and the kinds touched, so a view redraws only what it shows of them; an
 * item whose JSON is the same as before is no change.
 * @param {Model} model
 * @param {Change[]} changes
 * @returns {{ keys: Set<string>, kinds: Set<Kind> }}
 */
export function applyChanges(model, changes) {
  const keys = new Set();
  const kinds = new Set();
  for (const change of changes) {
    const map = model.items[change.kind];
    if (!map) continue;
    const before = map.get(change.id);
    if (change.removed || change.data === null) {
      if (!before) continue;
      map.delete(change.id);
    } else if (before) {
      if (JSON.stringify(before) === JSON.stringify(change.data)) continue;
      map.set(change.id, change.data);
    } else if (OLDEST_FIRST.has(change.kind)) {
      map.set(change.id, change.data);
    } else {
      // Newest first, as the lists are: a new item goes on top (ids and instants cannot order
      // items made at the same virtual instant; the order they came in does).
      model.items[change.kind] = new Map([[change.id, change.data], ...map]);
    }
    keys.add(`${change.kind}:${change.id}`);
    kinds.add(change.kind);
  }
  return { keys, kinds };
}

/** The kinds listed oldest first (the others newest first). */
const OLDEST_FIRST = new Set(['delivery', 'key', 'session']);

/**
 * Items of a kind in the lists' order: newest first (deliveries, keys and sessions oldest first).
 * @param {Model} model
 * @param {Kind} kind
 * @returns {Item[]}
 */
export function list(model, kind) {
  return [...model.items[kind].values()];
}

/**
 * The deliveries whose event belongs to `callId` (its own events, its recording's and transcript's).
 * @param {Model} model
 * @param {string} callId
 */
export function deliveriesOfCall(model, callId) {
  return [...model.items.delivery.values()].filter((d) => d.call_id === callId);
}

/**
 * What a call's timeline draws: its recording and transcript (when known) and every webhook
 * attempt of its deliveries, oldest first.
 * @param {Model} model
 * @param {Item} call
 * @param {Map<string, Item[]> | null} [byCall]  {@link deliveriesByCall}, when drawing many calls
 */
export function timelineOf(model, call, byCall = null) {
  const recording = call.recording_id ? (model.items.recording.get(call.recording_id) ?? null) : null;
  const transcript = call.transcript_id ? (model.items.transcript.get(call.transcript_id) ?? null) : null;
  const webhooks = (byCall ? (byCall.get(call.id) ?? []) : deliveriesOfCall(model, call.id))
    .flatMap((d) => d.attempts.map((/** @type {any} */ a) => ({ ...a, eventType: d.eventType, deliveryId: d.id })))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { recording, transcript, webhooks };
}

/**
 * The status line's counts: what actually happened in the session.
 * @param {Model} model
 */
export function counts(model) {
  let attempts = 0;
  let failed = 0;
  let dead = 0;
  for (const d of model.items.delivery.values()) {
    attempts += d.attempts.length;
    failed += d.attempts.filter((/** @type {any} */ a) => !a.ok).length;
    if (d.state === 'dead') dead += 1;
  }
  return { events: model.events, deliveries: model.items.delivery.size, attempts, failed, dead, calls: model.items.call.size };
}

/**
 * What changed between two counts, in words: `7 events, 84 webhook attempts (84 failed), 8 new dead letters`.
 * @param {ReturnType<typeof counts>} before
 * @param {ReturnType<typeof counts>} after
 */
export function countsDelta(before, after) {
  const n = (/** @type {number} */ k, /** @type {string} */ one, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const attempts = after.attempts - before.attempts;
  const failed = after.failed - before.failed;
  const dead = after.dead - before.dead;
  const parts = [n(after.events - before.events, 'event')];
  parts.push(`${n(attempts, 'webhook attempt')}${attempts > 0 ? ` (${failed} failed)` : ''}`);
  if (dead !== 0) parts.push(dead > 0 ? n(dead, 'new dead letter') : `${n(-dead, 'dead letter')} replayed`);
  return parts.join(', ');
}

/**
 * Deliveries matching the view's filter: `failed` (its last attempt failed), `dead`, or all;
 * `about` keeps those of one resource (its id, or the call it belongs to).
 * @param {Item[]} deliveries
 * @param {{ state?: 'all' | 'failed' | 'dead', about?: string | null }} filter
 */
export function filterDeliveries(deliveries, { state = 'all', about = null }) {
  return deliveries.filter((d) => {
    if (about && d.about?.id !== about && d.call_id !== about) return false;
    if (state === 'dead') return d.state === 'dead';
    if (state === 'failed') return d.state === 'dead' || d.attempts.some((/** @type {any} */ a) => !a.ok);
    return true;
  });
}

/**
 * The accounts seen in the session (the calls' and the keys'), each with how many calls it has.
 * @param {Model} model
 * @returns {Array<{ account: string, calls: number }>}
 */
export function accounts(model) {
  const byAccount = new Map();
  for (const key of model.items.key.values()) byAccount.set(key.account ?? key.key, 0);
  for (const call of model.items.call.values()) byAccount.set(call.account, (byAccount.get(call.account) ?? 0) + 1);
  return [...byAccount]
    .map(([account, calls]) => ({ account, calls }))
    .sort((a, b) => b.calls - a.calls || (a.account < b.account ? -1 : 1));
}

/**
 * Messages grouped into conversations (the pair of numbers), newest conversation first, each
 * conversation's messages oldest first.
 * @param {Model} model
 */
export function conversations(model) {
  /** @type {Map<string, { id: string, account: string, numbers: [string, string], messages: Item[] }>} */
  const byId = new Map();
  for (const message of list(model, 'message').reverse()) {
    const own = message.direction === 'outbound' ? message.from : message.to;
    const remote = message.direction === 'outbound' ? message.to : message.from;
    let conversation = byId.get(message.conversation_id);
    if (!conversation)
      byId.set(
        message.conversation_id,
        (conversation = { id: message.conversation_id, account: message.account ?? '', numbers: [own, remote], messages: [] }),
      );
    conversation.messages.push(message);
  }
  return [...byId.values()].reverse();
}

/**
 * The deliveries of each call, by call id: built once per drawing, so each call's timeline
 * costs its own deliveries.
 * @param {Model} model
 * @returns {Map<string, Item[]>}
 */
export function deliveriesByCall(model) {
  const byCall = new Map();
  for (const d of model.items.delivery.values()) {
    if (!d.call_id) continue;
    const list = byCall.get(d.call_id);
    if (list) list.push(d);
    else byCall.set(d.call_id, [d]);
  }
  return byCall;
}

/** The views, in the navigation's order. */
export const VIEWS = ['calls', 'messages', 'numbers', 'recordings', 'webhooks', 'events', 'keys'];

/**
 * Where the page's hash points: `#calls/call_…`, `#recordings/rec_…`, `#webhooks?about=call_…&state=dead`.
 * @param {string} hash
 * @returns {{ view: string, id: string | null, about: string | null, state: 'all' | 'failed' | 'dead' }}
 */
export function parseRoute(hash) {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const [view = '', id = ''] = path.split('/');
  const params = new URLSearchParams(query);
  const state = params.get('state');
  return {
    view: VIEWS.includes(view) ? view : 'calls',
    id: id ? decodeURIComponent(id) : null,
    about: params.get('about') || null,
    state: state === 'failed' || state === 'dead' ? state : 'all',
  };
}
