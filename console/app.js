import { h, longStamp, plural, seconds, span, time } from './dom.js';
import { renderCalls } from './timeline.js';

/**
 * The svc-sandbox account console (CONTRACT §9). One session at a time (`?session=ID`,
 * default `default`); everything is read from the control API under `/__sandbox` and kept
 * live by the session stream (`/__sandbox/sessions/{s}/stream`, server-sent events):
 *
 * - `event` frames are prepended to the event log (the stream replays the whole log when it
 *   opens, and only what was missed when EventSource reconnects with Last-Event-ID);
 * - `event`, `change` and `reset` mark the lists stale; they are read again once per frame
 *   (requestAnimationFrame), and never twice at once.
 *
 * The page requests nothing from any other origin and runs under the server's strict
 * Content-Security-Policy (no inline script or style: positions are CSS custom properties).
 */

const CONTROL = '/__sandbox';
const MAX_EVENTS = 500;
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const el = {
  select: /** @type {HTMLSelectElement} */ ($('session-select')),
  sessionMeta: $('session-meta'),
  live: $('live'),
  now: $('virtual-time'),
  form: /** @type {HTMLFormElement} */ ($('advance-form')),
  input: /** @type {HTMLInputElement} */ ($('advance-by')),
  advanceStatus: $('advance-status'),
  advanceError: $('advance-error'),
  banner: $('banner'),
  calls: $('calls'),
  callsCount: $('calls-count'),
  events: $('events'),
  eventsEmpty: $('events-empty'),
  eventsCount: $('events-count'),
  deliveries: $('deliveries'),
  deliveriesCount: $('deliveries-count'),
  dead: $('dead-letters'),
  deadCount: $('dead-count'),
  deadError: $('dead-error'),
  createKey: $('create-key'),
  keysError: $('keys-error'),
  newKey: $('new-key'),
  newKeyValue: $('new-key-value'),
  copyKey: $('copy-key'),
  keys: $('keys'),
  announcer: $('announcer'),
};

const state = {
  session: sessionFromUrl(),
  now: /** @type {string | null} */ (null),
  /** Event ids in the log, to drop the ones a reconnect sends twice. */
  seen: new Set(),
  eventCount: 0,
  /** Events received and not yet drawn, oldest first. */
  pending: /** @type {any[]} */ ([]),
  calls: /** @type {any[]} */ ([]),
  scale: /** @type {'compact' | 'linear'} */ ('compact'),
  /** The last JSON drawn per list: an unchanged list is not drawn again. */
  drawn: /** @type {Record<string, string>} */ ({}),
  source: /** @type {EventSource | null} */ (null),
  advancing: false,
};

function sessionFromUrl() {
  return new URLSearchParams(location.search).get('session') || 'default';
}
const sessionPath = (rest = '') => `${CONTROL}/sessions/${encodeURIComponent(state.session)}${rest}`;

/** JSON from the control API: `{ok, status, body}`; a network failure is status 0. */
async function api(method, path, body) {
  try {
    const res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { error: { message: text } };
    }
    return { ok: res.ok, status: res.status, body: parsed };
  } catch (error) {
    return { ok: false, status: 0, body: { error: { message: `The sandbox server did not answer (${error instanceof Error ? error.message : String(error)}).` } } };
  }
}
/**
 * Every item of a paginated control list (`{data, next_cursor, has_more}`): follows the
 * cursors, 200 items a page, and answers as `api` does with all of them in `body.data`.
 */
async function apiAll(path) {
  const data = [];
  for (let cursor = null; ; ) {
    const res = await api('GET', `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (!res.ok) return res;
    data.push(...res.body.data);
    if (!res.body.has_more) return { ...res, body: { data } };
    cursor = res.body.next_cursor;
  }
}
const messageOf = (res) => res.body?.error?.message ?? `The server answered HTTP ${res.status}.`;

function announce(text) {
  el.announcer.textContent = '';
  // A new text node on a cleared region is announced even when the text repeats.
  requestAnimationFrame(() => (el.announcer.textContent = text));
}

// ---------------------------------------------------------------------------------------
// The clock and the advance form

function setNow(iso) {
  if (!iso || iso === state.now) return;
  state.now = iso;
  el.now.textContent = longStamp(iso);
  el.now.setAttribute('datetime', iso);
  scheduleCalls();
}

async function advance(duration) {
  const value = String(duration).trim();
  el.advanceError.textContent = '';
  el.input.removeAttribute('aria-invalid');
  if (!value) {
    showAdvanceError('Enter a duration, such as 30s, 5m, 25h, or a number of milliseconds.');
    return;
  }
  if (state.advancing) return;
  state.advancing = true;
  el.form.setAttribute('aria-busy', 'true');
  el.advanceStatus.textContent = '';
  const before = state.now;
  const res = await api('POST', sessionPath('/advance'), { duration: /^\d+(\.\d+)?$/.test(value) ? Number(value) : value });
  state.advancing = false;
  el.form.removeAttribute('aria-busy');
  if (!res.ok) {
    showAdvanceError(messageOf(res));
    return;
  }
  setNow(res.body.now);
  const n = res.body.events?.length ?? 0;
  const moved = before ? span(Date.parse(res.body.now) - Date.parse(before)) : value;
  el.advanceStatus.textContent = `Advanced ${moved}: ${plural(n, 'event')}.`;
  scheduleRefresh();
}

function showAdvanceError(message) {
  el.advanceError.textContent = message;
  el.input.setAttribute('aria-invalid', 'true');
}

el.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void advance(el.input.value);
});
for (const button of document.querySelectorAll('[data-advance]')) {
  button.addEventListener('click', () => void advance(/** @type {HTMLElement} */ (button).dataset.advance ?? ''));
}

// ---------------------------------------------------------------------------------------
// The session picker

async function loadSessions() {
  const res = await apiAll(`${CONTROL}/sessions`);
  if (!res.ok) return;
  const ids = res.body.data.map((s) => s.id);
  if (!ids.includes(state.session)) ids.push(state.session);
  const current = res.body.data.find((s) => s.id === state.session);
  el.sessionMeta.textContent = current ? `seed ${current.seed}` : '';
  const key = ids.join('\n');
  if (state.drawn.sessions === key) return;
  state.drawn.sessions = key;
  const known = new Set(res.body.data.map((s) => s.id));
  el.select.replaceChildren(...ids.map((id) => h('option', { value: id, selected: id === state.session }, known.has(id) ? id : `${id} (not found)`)));
  el.select.value = state.session;
}

el.select.addEventListener('change', () => {
  const id = el.select.value;
  if (id === state.session) return;
  const url = new URL(location.href);
  if (id === 'default') url.searchParams.delete('session');
  else url.searchParams.set('session', id);
  history.pushState(null, '', url);
  openSession(id);
});
window.addEventListener('popstate', () => {
  const id = sessionFromUrl();
  if (id !== state.session) openSession(id);
});

// ---------------------------------------------------------------------------------------
// Live: the session stream

function connect() {
  state.source?.close();
  const source = new EventSource(sessionPath('/stream'));
  state.source = source;
  setLive('connecting');
  source.addEventListener('open', () => setLive('open'));
  source.addEventListener('error', () => {
    if (state.source !== source) return;
    setLive(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
    if (source.readyState === EventSource.CLOSED) scheduleRefresh();
  });
  source.addEventListener('event', (message) => {
    const event = JSON.parse(/** @type {MessageEvent} */ (message).data);
    if (state.seen.has(event.id)) return;
    state.seen.add(event.id);
    state.pending.push(event);
    scheduleRefresh();
  });
  source.addEventListener('change', (message) => {
    setNow(JSON.parse(/** @type {MessageEvent} */ (message).data).now);
    scheduleRefresh();
  });
  source.addEventListener('reset', (message) => {
    clearLog();
    setNow(JSON.parse(/** @type {MessageEvent} */ (message).data).now);
    announce('The session was reset.');
    scheduleRefresh();
  });
}

function setLive(value) {
  if (el.live.dataset.state === value) return;
  el.live.dataset.state = value;
  el.live.textContent = value === 'open' ? 'Live' : value === 'closed' ? 'Disconnected' : 'Connecting…';
}

function openSession(id) {
  state.session = id;
  state.now = null;
  state.calls = [];
  state.drawn = {};
  el.now.textContent = '—';
  el.newKey.hidden = true;
  for (const node of [el.advanceError, el.advanceStatus, el.deadError, el.keysError, el.banner]) node.textContent = '';
  document.title = id === 'default' ? 'svc-sandbox console' : `svc-sandbox console · ${id}`;
  clearLog();
  void loadSessions();
  connect();
  scheduleRefresh();
}

// ---------------------------------------------------------------------------------------
// Reading the lists again, at most once per frame and never twice at once

let queued = false;
let running = false;
let again = false;

function scheduleRefresh() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    flushEvents();
    void refresh();
  });
}

async function refresh() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  const session = state.session;
  try {
    const [calls, deliveries, dead, keys] = await Promise.all([
      // The newest 200 calls, one page: the timelines a person reads (every page would cost the whole list each time).
      api('GET', sessionPath('/calls?limit=200')),
      apiAll(sessionPath('/deliveries')),
      apiAll(sessionPath('/dead-letters')),
      apiAll(sessionPath('/keys')),
      loadSessions(),
    ]);
    if (session !== state.session) return;
    const failed = [calls, deliveries, dead, keys].find((r) => !r.ok);
    el.banner.textContent = failed ? messageOf(failed) : '';
    if (failed) return;
    withFocusKept(() => {
      drawList('calls', calls.body.data, (data) => {
        state.calls = data;
        drawCalls();
      });
      drawList('deliveries', deliveries.body.data, drawDeliveries);
      drawList('dead', dead.body.data, drawDeadLetters);
      drawList('keys', keys.body.data, drawKeys);
    });
  } finally {
    running = false;
    if (again) {
      again = false;
      scheduleRefresh();
    }
  }
}

/** Draws a list only when it changed since it was last drawn. */
function drawList(name, data, draw) {
  const json = JSON.stringify(data);
  if (state.drawn[name] === json) return;
  state.drawn[name] = json;
  draw(data);
}

/**
 * Redrawing replaces nodes: the focused control (marked with `data-key`) gets the focus back
 * in its new node, so a keyboard user keeps their place while the page updates live.
 */
function withFocusKept(draw) {
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const key = active?.dataset?.key;
  draw();
  if (key && active && !active.isConnected) {
    const replacement = /** @type {HTMLElement | null} */ (document.querySelector(`[data-key="${CSS.escape(key)}"]`));
    replacement?.focus();
  }
}

// ---------------------------------------------------------------------------------------
// The event log

function clearLog() {
  state.seen.clear();
  state.pending = [];
  state.eventCount = 0;
  el.events.replaceChildren();
  el.eventsCount.textContent = '';
  el.eventsEmpty.hidden = false;
}

function flushEvents() {
  if (state.pending.length === 0) return;
  const batch = state.pending;
  state.pending = [];
  const initial = state.eventCount === 0;
  const fragment = document.createDocumentFragment();
  for (const event of batch.slice(-MAX_EVENTS).reverse()) fragment.append(eventItem(event, !initial));
  el.events.prepend(fragment);
  while (el.events.childElementCount > MAX_EVENTS) el.events.lastElementChild?.remove();
  state.eventCount += batch.length;
  el.eventsEmpty.hidden = true;
  el.eventsCount.textContent = state.eventCount > MAX_EVENTS ? `${MAX_EVENTS} newest of ${state.eventCount}` : String(state.eventCount);
}

function eventItem(event, fresh) {
  const data = event.data ?? {};
  const family = String(event.type).split('.')[0];
  return h(
    'li',
    { class: `event${fresh ? ' fresh' : ''}`, 'data-type': event.type, 'data-id': event.id },
    time(event.created_at),
    h('span', { class: `etype fam-${family}` }, event.type),
    h('span', { class: 'mono subject' }, data.id ?? event.id),
    h('span', { class: 'detail' }, eventDetail(event.type, data)),
  );
}

function eventDetail(type, data) {
  switch (type) {
    case 'call.started':
      return `${data.from} → ${data.to}`;
    case 'call.answered':
      return data.answered_by ? `by ${data.answered_by}` : '';
    case 'call.completed':
      return [data.disposition, seconds(data.duration)].filter(Boolean).join(' · ');
    case 'recording.ready':
      return data.duration ? seconds(data.duration) : '';
    case 'message.received':
    case 'message.delivered':
      return `${data.from} → ${data.to}`;
    default:
      return data.call_id ?? '';
  }
}

// ---------------------------------------------------------------------------------------
// Calls

let callsQueued = false;
/** The timeline depends on the clock too (running calls grow to now): redraw once per frame. */
function scheduleCalls() {
  if (callsQueued) return;
  callsQueued = true;
  requestAnimationFrame(() => {
    callsQueued = false;
    withFocusKept(drawCalls);
  });
}

/** The tracks' width in pixels, for spacing the axis labels (the axis itself is in percent). */
function trackWidth() {
  const width = el.calls.clientWidth;
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 14;
  return matchMedia('(max-width: 720px)').matches ? width : width - 15.5 * rem - 16 - 22;
}
window.addEventListener('resize', () => scheduleCalls());

function drawCalls() {
  const now = state.now ? Date.parse(state.now) : Date.now();
  el.calls.replaceChildren(renderCalls(state.calls, now, state.scale, trackWidth()));
  el.callsCount.textContent = state.calls.length ? String(state.calls.length) : '';
}

for (const button of document.querySelectorAll('[data-scale]')) {
  button.addEventListener('click', () => {
    state.scale = /** @type {any} */ (button).dataset.scale;
    for (const other of document.querySelectorAll('[data-scale]')) other.setAttribute('aria-pressed', String(other === button));
    drawCalls();
  });
}

// ---------------------------------------------------------------------------------------
// Webhook deliveries and dead letters

function drawDeliveries(deliveries) {
  el.deliveriesCount.textContent = deliveries.length ? String(deliveries.length) : '';
  el.deliveries.hidden = deliveries.length === 0;
  $('deliveries-empty').hidden = deliveries.length > 0;
  el.deliveries.replaceChildren(
      ...[...deliveries].reverse().map((d) =>
        h(
          'li',
          { class: `delivery is-${d.state}`, 'data-id': d.id, 'data-state': d.state },
          h(
            'div',
            { class: 'delivery-head' },
            h('span', { class: `badge state-${d.state}` }, d.state),
            h('span', { class: `etype fam-${String(d.eventType).split('.')[0]}` }, d.eventType),
            h('span', { class: 'mono dim' }, d.id),
            h('span', { class: 'attempt-count' }, plural(d.attempts.length, 'attempt')),
          ),
          h('div', { class: 'delivery-url mono', title: `subscription ${d.subscriptionId}` }, `→ ${d.url}`),
          attemptsTable(d),
          d.nextAttemptAt ? h('p', { class: 'next' }, 'Next attempt at ', time(d.nextAttemptAt)) : null,
        ),
      ),
  );
}

function attemptsTable(d) {
  if (d.attempts.length === 0) return h('p', { class: 'next' }, 'No attempt yet.');
  return h(
    'table',
    { class: 'attempts' },
    h('caption', { class: 'sr-only' }, `Attempts of ${d.id}, ${d.eventType}`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Result'))),
    h(
      'tbody',
      null,
      d.attempts.map((a) =>
        h(
          'tr',
          { class: a.ok ? 'ok' : 'failed', 'data-attempt': a.attempt, 'data-replay': a.replay },
          h('td', { class: 'num' }, a.replay ? h('span', { class: 'replay-tag', title: `replay ${a.replay}` }, `R${a.replay}·`) : null, String(a.attempt)),
          h('td', null, time(a.at)),
          h('td', { class: 'status' }, a.status === null ? '—' : String(a.status)),
          h('td', { class: 'result' }, a.ok ? `ok${a.replay ? ' (replay)' : ''}` : a.error ?? 'failed'),
        ),
      ),
    ),
  );
}

function drawDeadLetters(dead) {
  el.deadCount.textContent = dead.length ? String(dead.length) : '';
  if (dead.length === 0) {
    el.dead.replaceChildren(h('p', { class: 'empty' }, 'No dead letters. A delivery lands here when its 12th attempt fails, 17 h 3 m 30 s after the first.'));
    return;
  }
  el.dead.replaceChildren(
    h(
      'ul',
      { class: 'dead-letters' },
      dead.map((d) => {
        const last = d.attempts[d.attempts.length - 1];
        const descId = `dead-${d.id}`;
        return h(
          'li',
          { class: 'dead-letter', 'data-id': d.id },
          h(
            'div',
            { class: 'dead-info', id: descId },
            h('span', { class: `etype fam-${String(d.eventType).split('.')[0]}` }, d.eventType),
            ' ',
            h('span', { class: 'mono dim' }, d.id),
            h(
              'span',
              { class: 'dead-last' },
              `${plural(d.attempts.length, 'attempt')}${d.replays ? `, ${plural(d.replays, 'replay')}` : ''}; last `,
              last ? time(last.at) : '—',
              last ? `: ${last.error ?? `HTTP ${last.status}`}` : '',
            ),
          ),
          h('button', { type: 'button', class: 'replay', 'data-key': `replay:${d.id}`, 'aria-describedby': descId, onclick: (e) => replay(d, /** @type {HTMLButtonElement} */ (e.currentTarget)) }, 'Replay'),
        );
      }),
    ),
  );
}

async function replay(d, button) {
  if (button.getAttribute('aria-busy') === 'true') return;
  button.setAttribute('aria-busy', 'true');
  el.deadError.textContent = '';
  const res = await api('POST', sessionPath(`/dead-letters/${encodeURIComponent(d.id)}/replay`));
  button.removeAttribute('aria-busy');
  if (!res.ok) {
    el.deadError.textContent = messageOf(res);
  } else {
    const attempt = res.body.data[res.body.data.length - 1];
    announce(attempt?.ok ? `Replayed ${d.id}: delivered, HTTP ${attempt.status}.` : `Replayed ${d.id}: failed again (${attempt?.error ?? `HTTP ${attempt?.status}`}).`);
    // The dead letter may leave the list: keep the keyboard user in this section.
    if (document.activeElement === button || !button.isConnected) $('dead-heading').focus();
  }
  scheduleRefresh();
}

// ---------------------------------------------------------------------------------------
// API keys

function drawKeys(keys) {
  if (keys.length === 0) {
    el.keys.replaceChildren(h('li', { class: 'empty' }, 'No keys made in this session yet. Any SVC_TEST_ key works on the default session.'));
    return;
  }
  el.keys.replaceChildren(...[...keys].reverse().map((k) => h('li', { class: 'key' }, h('code', { class: 'mono' }, k.key), h('span', { class: 'dim' }, 'made ', time(k.createdAt)))));
}

el.createKey.addEventListener('click', async () => {
  if (el.createKey.getAttribute('aria-busy') === 'true') return;
  el.createKey.setAttribute('aria-busy', 'true');
  el.keysError.textContent = '';
  const res = await api('POST', sessionPath('/keys'));
  el.createKey.removeAttribute('aria-busy');
  if (!res.ok) {
    el.keysError.textContent = messageOf(res);
    return;
  }
  el.newKeyValue.textContent = res.body.key;
  el.newKey.hidden = false;
  announce(`New test key: ${res.body.key}`);
  scheduleRefresh();
});

el.copyKey.addEventListener('click', () => {
  const key = el.newKeyValue.textContent ?? '';
  const selectKey = () => {
    const range = document.createRange();
    range.selectNodeContents(el.newKeyValue);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  };
  if (!navigator.clipboard) {
    selectKey();
    return;
  }
  navigator.clipboard.writeText(key).then(
    () => announce('Key copied.'),
    () => {
      selectKey();
      announce('Copying is not allowed here: the key is selected, copy it with your keyboard.');
    },
  );
});

// ---------------------------------------------------------------------------------------

$('api-base').textContent = `${location.origin}/v1`;
$('dead-heading').setAttribute('tabindex', '-1');
openSession(state.session);
