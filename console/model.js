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
 * `request` is the request journal (`GET /__sandbox/sessions/{s}/requests`), each entry known by
 * its `requestId`.
 * @typedef {keyof typeof LISTS | 'key' | 'session' | 'request'} Kind
 * @typedef {{ id: string, account?: string, created_at?: string, [field: string]: any }} Item
 * @typedef {{ kind: Kind, id: string, removed: boolean, data: any, after?: string | null }} Change
 * @typedef {{ items: Record<Kind, Map<string, Item>>, events: number, loaded: boolean }} Model
 */

/** The most journal entries the page keeps (the journal's own default size): the oldest go first. */
export const MAX_REQUESTS_KEPT = 10_000;

/** @returns {Model} */
export function emptyModel() {
  const items = /** @type {Record<Kind, Map<string, Item>>} */ ({});
  for (const kind of [...Object.keys(LISTS), 'key', 'session', 'request']) items[/** @type {Kind} */ (kind)] = new Map();
  return { items, events: 0, loaded: false };
}

/** The id a kind's items are known by (a key is its own id, a request its `requestId`). */
const idOf = (/** @type {Kind} */ kind, /** @type {any} */ item) =>
  kind === 'key' ? item.key : kind === 'request' ? item.requestId : item.id;

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
    } else if (change.kind === 'request') {
      model.items.request = withRequest(map, change);
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
const OLDEST_FIRST = new Set(['delivery', 'key', 'session', 'request']);

/**
 * The journal with a new entry where the journal lists it: after the request it names as the one
 * before it (`after`), so a request answered late (its body was slow) still sits in the order
 * the requests arrived; at the end when that one is not held. The oldest go past {@link MAX_REQUESTS_KEPT}.
 * @param {Map<string, Item>} map
 * @param {Change} change
 */
function withRequest(map, change) {
  const last = tails.get(map) ?? [...map.keys()].at(-1);
  let next = map;
  if (!change.after || change.after === last || !map.has(change.after)) {
    map.set(change.id, change.data);
    tails.set(map, change.id);
  } else {
    next = new Map();
    for (const [id, item] of map) {
      next.set(id, item);
      if (id === change.after) next.set(change.id, change.data);
    }
    tails.set(next, last);
  }
  for (const id of next.keys()) {
    if (next.size <= MAX_REQUESTS_KEPT) break;
    next.delete(id);
  }
  return next;
}

/** The last id of each journal map, so a request answered in order costs no walk of the journal. */
const tails = /** @type {WeakMap<Map<string, Item>, string | undefined>} */ (new WeakMap());

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
 * The status line's counts: what actually happened in the session. Dead letters are counted
 * by {@link deadLetters}, the function the dead-letter cards are drawn from.
 * @param {Model} model
 */
export function counts(model) {
  let attempts = 0;
  let failed = 0;
  for (const d of model.items.delivery.values()) {
    attempts += d.attempts.length;
    failed += d.attempts.filter((/** @type {any} */ a) => !a.ok).length;
  }
  const { dead } = deadLetters(model);
  return {
    events: model.events,
    deliveries: model.items.delivery.size,
    attempts,
    failed,
    dead: dead.length,
    calls: model.items.call.size,
    requests: model.items.request.size,
  };
}

/** Attempts per delivery, and per replay, before the dead-letter queue (src/webhooks/retry-schedule.ts `MAX_ATTEMPTS`). */
export const MAX_ATTEMPTS = 13;

/**
 * The dead-letter cards and every count said of them, from one reading of the deliveries: the
 * dead letters, and those replayed from the queue (from this page or anywhere else: a replay is
 * in the delivery's own record), in the deliveries' order, so a replayed card stays where it was.
 * `replayable` are the dead letters whose subscription still exists (a replay of the others is
 * refused): what Replay all sends.
 * @param {Model} model
 */
export function deadLetters(model) {
  /** @type {Item[]} */ const cards = [];
  /** @type {Item[]} */ const dead = [];
  /** @type {Item[]} */ const replayed = [];
  /** @type {Item[]} */ const replayable = [];
  for (const d of model.items.delivery.values()) {
    if (d.state === 'dead') {
      dead.push(d);
      if (model.items.subscription.has(d.subscriptionId)) replayable.push(d);
    } else if (d.replays > 0) replayed.push(d);
    else continue;
    cards.push(d);
  }
  return { cards, dead, replayed, replayable };
}

/**
 * Where a delivery's last replay stands, read from the delivery as it is now (null when it was
 * never replayed): its state, the attempts of that replay, the last of them, and when the next
 * is due (`next`, with its number) while it is back in its retry schedule.
 * @param {Item} d
 * @returns {{ replay: number, state: string, attempts: any[], last: any, next: string | null, nextAttempt: number } | null}
 */
export function replayProgress(d) {
  if (!d.replays) return null;
  const attempts = d.attempts.filter((/** @type {any} */ a) => a.replay === d.replays);
  return {
    replay: d.replays,
    state: d.state,
    attempts,
    last: attempts.at(-1) ?? null,
    next: d.state === 'pending' ? (d.nextAttemptAt ?? null) : null,
    nextAttempt: attempts.length + 1,
  };
}

/** The request log's quick filters (docs/console.md): every request, a class of status, the 429s. */
export const REQUEST_FILTERS = ['all', '2xx', '4xx', '5xx', '429'];

/**
 * What the request log's filter means: `all`, a class (`2xx`, `4xx`, `5xx`), an exact status
 * (`422`, `0` for an injected network fault), or an error code (`rate_limited`); null for text
 * that is none of them.
 * @param {string} text
 * @returns {string | null}  the filter, normalised
 */
export function requestFilter(text) {
  const value = String(text).trim().toLowerCase();
  if (value === '' || value === 'all') return 'all';
  if (/^[1-5]xx$/.test(value) || /^\d{1,3}$/.test(value) || /^[a-z][a-z0-9_]{0,63}$/.test(value)) return value;
  return null;
}

/**
 * Whether a journal entry passes a {@link requestFilter}.
 * @param {any} entry
 * @param {string} filter
 */
export function requestMatches(entry, filter) {
  if (filter === 'all') return true;
  if (/^[1-5]xx$/.test(filter)) return Math.floor(entry.status / 100) === Number(filter[0]);
  if (/^\d+$/.test(filter)) return entry.status === Number(filter);
  return entry.errorCode === filter;
}

/**
 * The request log's rows and the counts its filters show, from one reading of the journal:
 * the entries matching `filter` (in the journal's order: oldest first), and how many match each
 * quick filter and `filter` itself.
 * @param {Model} model
 * @param {string} filter
 */
export function requestLog(model, filter) {
  /** @type {Record<string, number>} */
  const byFilter = Object.fromEntries([...REQUEST_FILTERS, filter].map((f) => [f, 0]));
  /** @type {Item[]} */ const matching = [];
  for (const entry of model.items.request.values()) {
    for (const f of Object.keys(byFilter)) if (requestMatches(entry, f)) byFilter[f] += 1;
    if (requestMatches(entry, filter)) matching.push(entry);
  }
  return { matching, byFilter, total: model.items.request.size };
}

/**
 * The journal as it was at `ms` (a snapshot's, in show mode): the entries answered by then.
 * @param {any[]} journal  every entry, in the journal's order
 * @param {number} ms
 */
export function requestsBy(journal, ms) {
  return journal.filter((entry) => Date.parse(entry.at) <= ms);
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
export const VIEWS = ['calls', 'messages', 'numbers', 'recordings', 'webhooks', 'requests', 'events', 'keys'];

/**
 * Where the page's hash points: `#calls/call_…`, `#recordings/rec_…`, `#webhooks?about=call_…&state=dead`,
 * `#requests?status=4xx&order=oldest`.
 * @param {string} hash
 * @returns {{ view: string, id: string | null, about: string | null, state: 'all' | 'failed' | 'dead', status: string, order: 'newest' | 'oldest' }}
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
    status: requestFilter(params.get('status') ?? '') ?? 'all',
    order: params.get('order') === 'oldest' ? 'oldest' : 'newest',
  };
}
