import { h, longStamp, plural, span } from './dom.js';
import {
  LISTS,
  MAX_REQUESTS_KEPT,
  REQUEST_FILTERS,
  accounts,
  applyChanges,
  conversations,
  counts,
  countsDelta,
  deadLetters,
  deliveriesByCall,
  emptyModel,
  filterDeliveries,
  list,
  load,
  parseRoute,
  requestFilter,
  requestLog,
  requestsBy,
  timelineOf,
} from './model.js';
import { timeControl } from './show.js';
import { renderCall } from './timeline.js';
import {
  eventItem,
  renderDeadLetters,
  renderDelivery,
  renderKeys,
  renderMessages,
  renderNumbers,
  renderRecordings,
  redelivered,
  renderRequest,
  renderSubscriptions,
} from './views.js';

/**
 * The svc-sandbox account console (docs/console.md). One session at a time (`?session=ID`,
 * default `default`), one view at a time (`#calls`, `#webhooks?about=call_…`, ...).
 *
 * The page keeps a copy of the session (model.js): it reads the console's lists
 * (`/__sandbox/sessions/{s}/console/*`, the keys and the sessions) when the session stream
 * opens (at load, and again after a disconnect), and then only applies what the stream
 * pushes: `event` frames (the event log), `change` frames (each changed item with its JSON:
 * no request), `resync` and `reset` (read the lists again). So one new event costs the page no
 * request, however many calls the session holds.
 *
 * Served by `svc-sandbox show FILE` (the page marked `data-mode="show"`), it shows a snapshot
 * instead, read-only, at the instant its time control (show.js) asks for: no stream, nothing that
 * would change the session (docs/console.md, "Time travel").
 *
 * Nothing here runs at import: {@link start} looks the page up and wires it. The page requests
 * nothing from any other origin and runs under the server's strict Content-Security-Policy (no
 * inline script or style: positions are CSS custom properties).
 */

const CONTROL = '/__sandbox';
/** The most events, calls and deliveries drawn at once (the rest are counted). */
const MAX_EVENTS = 500;
const MAX_CALLS = 50;
const MAX_DELIVERIES = 100;
const MAX_REQUESTS = 200;

/** @param {Document} doc */
export function start(doc) {
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (doc.getElementById(id));
  const el = {
    select: /** @type {HTMLSelectElement} */ ($('session-select')),
    sessionMeta: $('session-meta'),
    live: $('live'),
    now: $('virtual-time'),
    form: /** @type {HTMLFormElement} */ ($('advance-form')),
    input: /** @type {HTMLInputElement} */ ($('advance-by')),
    totals: $('totals'),
    advanceStatus: $('advance-status'),
    advanceError: $('advance-error'),
    banner: $('banner'),
    calls: $('calls'),
    callsCount: $('calls-count'),
    accountFilter: /** @type {HTMLSelectElement} */ ($('account-filter')),
    messages: $('messages'),
    numbers: $('numbers'),
    recordings: $('recordings'),
    events: $('events'),
    eventsEmpty: $('events-empty'),
    eventsCount: $('events-count'),
    deliveries: $('deliveries'),
    deliveriesCount: $('deliveries-count'),
    aboutFilter: $('about-filter'),
    dead: $('dead-letters'),
    deadCount: $('dead-count'),
    deadError: $('dead-error'),
    replayAll: /** @type {HTMLButtonElement} */ ($('replay-all')),
    replayAllHint: $('replay-all-hint'),
    replayAllStatus: $('replay-all-status'),
    requests: $('requests'),
    requestsCount: $('requests-count'),
    codeForm: /** @type {HTMLFormElement} */ ($('code-form')),
    codeInput: /** @type {HTMLInputElement} */ ($('request-code')),
    codeError: $('code-error'),
    bars: $('bars'),
    subscriptions: $('subscriptions'),
    createKey: /** @type {HTMLButtonElement} */ ($('create-key')),
    keysError: $('keys-error'),
    newKey: $('new-key'),
    newKeyValue: $('new-key-value'),
    copyKey: $('copy-key'),
    keys: $('keys'),
    announcer: $('announcer'),
  };

  const state = {
    /**
     * A snapshot's counts at the instant shown (show mode): the show server sends each list's
     * newest items only, so the page counts from these, and says when a list holds only the newest.
     * @type {Record<string, number> | null}
     */
    totals: null,
    session: sessionFromUrl(),
    now: /** @type {string | null} */ (null),
    model: emptyModel(),
    route: parseRoute(location.hash),
    /** The key (account) whose calls are shown; '' for all. */
    account: '',
    /** Events received and not yet drawn, oldest first. */
    pending: /** @type {any[]} */ ([]),
    /** Change frames that came while the lists were being read: applied after. */
    queued: /** @type {any[][] | null} */ (null),
    /** The request log's rows opened to their details, by request id. */
    expanded: /** @type {Set<string>} */ (new Set()),
    /** A snapshot's whole request journal (show mode): the log shows the entries answered by the instant on screen. */
    journal: /** @type {any[] | null} */ (null),
    source: /** @type {EventSource | null} */ (null),
    advancing: false,
    /**
     * The last advance: what it moved, and the counts before it. The status line says what it
     * did as the stream reports it (attempts settle after the answer), until the next action
     * on the page freezes it.
     */
    lastAdvance: /** @type {{ moved: string, before: ReturnType<typeof counts>, said?: string } | null} */ (null),
    /** The session does not exist (deleted, or never made). */
    gone: false,
    /** Drawn rows, reused while their item is unchanged: id → [signature, element]. */
    rows: /** @type {Map<string, [string, HTMLElement]>} */ (new Map()),
    /** How many list requests the page made (for the test of the stream's cost). */
    loads: 0,
    /** The stream has caught up with the log once: events after that are new, and flash. */
    caughtUp: false,
  };

  /** A snapshot's session, at the instants its time control asks for (null: a live session). */
  const travel =
    doc.documentElement.dataset.mode === 'show'
      ? timeControl(doc, {
          api,
          show: showState,
          fail: (message) => {
            el.banner.textContent = message;
          },
          announce,
        })
      : null;

  function sessionFromUrl() {
    return new URLSearchParams(location.search).get('session') || 'default';
  }
  const sessionPath = (rest = '') => `${CONTROL}/sessions/${encodeURIComponent(state.session)}${rest}`;

  /** JSON from the control API: `{ok, status, body}`; a network failure is status 0. */
  async function api(/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body = undefined) {
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
      return {
        ok: false,
        status: 0,
        body: { error: { message: `The sandbox server did not answer (${error instanceof Error ? error.message : String(error)}).` } },
      };
    }
  }
  /** Every item of a paginated control list, following the cursors 200 items a page. */
  async function apiAll(/** @type {string} */ path) {
    const data = [];
    for (let cursor = null; ; ) {
      const res = await api('GET', `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (!res.ok) return res;
      data.push(...res.body.data);
      if (!res.body.has_more) return { ...res, body: { data } };
      cursor = res.body.next_cursor;
    }
  }
  const messageOf = (/** @type {any} */ res) => res.body?.error?.message ?? `The server answered HTTP ${res.status}.`;

  function announce(/** @type {string} */ text) {
    el.announcer.textContent = '';
    requestAnimationFrame(() => (el.announcer.textContent = text));
  }
  doc.addEventListener('copied', (e) => {
    const { id, ok } = /** @type {CustomEvent} */ (e).detail;
    announce(ok ? `Copied ${id}.` : `Selected ${id}: copy it with your keyboard.`);
  });

  // -------------------------------------------------------------------------------------
  // Reading the session: the lists once per stream opening, then the stream's changes

  let loading = /** @type {Promise<void> | null} */ (null);
  let loadAgain = false;

  function loadAll() {
    if (loading !== null) {
      loadAgain = true;
      return loading;
    }
    const session = state.session;
    state.queued = [];
    loading = (async () => {
      const kinds = /** @type {Array<keyof typeof LISTS>} */ (Object.keys(LISTS));
      const [sessions, keys, requests, ...lists] = await Promise.all([
        apiAll(`${CONTROL}/sessions`),
        apiAll(sessionPath('/keys')),
        apiAll(sessionPath('/requests')),
        ...kinds.map((kind) => apiAll(sessionPath(`/console/${LISTS[kind]}`))),
      ]);
      state.loads += 1;
      if (session !== state.session) return;
      if (sessions.ok) load(state.model, 'session', sessions.body.data);
      const failed = [keys, requests, ...lists].find((r) => !r.ok);
      if (failed) {
        if (failed.status === 404) return checkSession();
        el.banner.textContent = messageOf(failed);
        return;
      }
      el.banner.textContent = '';
      load(state.model, 'key', keys.body.data);
      load(state.model, 'request', requests.body.data.slice(-MAX_REQUESTS_KEPT));
      for (const [i, kind] of kinds.entries()) load(state.model, kind, lists[i].body.data);
      state.model.loaded = true;
      for (const changes of state.queued ?? []) applyChanges(state.model, changes);
      state.rows.clear();
      render();
    })().finally(() => {
      loading = null;
      state.queued = null;
      if (loadAgain) {
        loadAgain = false;
        void loadAll();
      }
    });
    return loading;
  }

  function connect() {
    state.source?.close();
    const source = new EventSource(sessionPath('/stream'));
    state.source = source;
    setLive('connecting');
    // At every opening, a first load or after a disconnect: read the lists (what changed while
    // the stream was away was not kept for it); the events come again from Last-Event-ID.
    source.addEventListener('open', () => {
      setLive('open');
      void loadAll();
    });
    source.addEventListener('error', () => {
      if (state.source !== source) return;
      setLive(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
      if (source.readyState === EventSource.CLOSED) void checkSession();
    });
    source.addEventListener('event', (message) => {
      const m = /** @type {MessageEvent} */ (message);
      const position = Number(m.lastEventId);
      if (position <= state.model.events) return;
      state.model.events = position;
      state.pending.push(JSON.parse(m.data));
      schedule();
    });
    source.addEventListener('change', (message) => {
      const { now, changes } = JSON.parse(/** @type {MessageEvent} */ (message).data);
      // A change frame comes once the stream has sent the whole log.
      state.caughtUp = true;
      setNow(now);
      if (!changes?.length) return schedule();
      if (state.queued) state.queued.push(changes);
      if (!state.model.loaded) return;
      const changed = applyChanges(state.model, changes);
      if (changed.kinds.has('session') && !state.model.items.session.has(state.session)) void checkSession();
      schedule();
    });
    source.addEventListener('resync', (message) => {
      setNow(JSON.parse(/** @type {MessageEvent} */ (message).data).now);
      void loadAll();
    });
    source.addEventListener('reset', (message) => {
      clearLog();
      state.model = emptyModel();
      state.expanded.clear();
      state.lastAdvance = null;
      el.advanceStatus.textContent = '';
      setNow(JSON.parse(/** @type {MessageEvent} */ (message).data).now);
      announce('The session was reset.');
      void loadAll();
    });
  }

  function setLive(/** @type {string} */ value) {
    if (el.live.dataset.state === value) return;
    el.live.dataset.state = value;
    el.live.textContent =
      value === 'open'
        ? 'Live'
        : value === 'closed'
          ? 'Disconnected'
          : value === 'gone'
            ? 'No such session'
            : value === 'snapshot'
              ? 'Snapshot, read-only'
              : 'Connecting…';
  }

  /** The stream closed for good, or the session left the list: is the session still there? */
  async function checkSession() {
    const res = await apiAll(`${CONTROL}/sessions`);
    if (!res.ok) return;
    load(state.model, 'session', res.body.data);
    drawSessions();
    if (res.body.data.some((/** @type {any} */ s) => s.id === state.session)) {
      if (state.source?.readyState === EventSource.CLOSED) connect();
      return;
    }
    setGone();
  }

  /** The session does not exist: say so, show nothing of it, and disable what acts on it. */
  function setGone() {
    state.gone = true;
    state.source?.close();
    state.model = emptyModel();
    setLive('gone');
    el.now.textContent = '—';
    el.now.removeAttribute('datetime');
    state.now = null;
    el.banner.replaceChildren(
      `Session ${state.session} does not exist: it was deleted, or never made. Its clock, keys and lists are gone, and nothing here can act on it. `,
      h('a', { href: '?session=default' }, 'Open the default session'),
    );
    clearLog();
    for (const control of doc.querySelectorAll('.clockbar button, .clockbar input, #create-key, button.replay')) {
      /** @type {HTMLButtonElement} */ (control).disabled = true;
    }
    doc.body.dataset.gone = 'true';
    render();
  }

  function openSession(/** @type {string} */ id) {
    state.session = id;
    state.now = null;
    state.model = emptyModel();
    state.rows.clear();
    state.expanded.clear();
    state.journal = null;
    state.lastAdvance = null;
    state.gone = false;
    state.account = '';
    delete doc.body.dataset.gone;
    for (const control of doc.querySelectorAll('.clockbar button, .clockbar input, #create-key')) {
      /** @type {HTMLButtonElement} */ (control).disabled = false;
    }
    el.now.textContent = '—';
    el.newKey.hidden = true;
    for (const node of [el.advanceError, el.advanceStatus, el.deadError, el.replayAllStatus, el.keysError, el.banner])
      node.textContent = '';
    doc.title = id === 'default' ? 'svc-sandbox console' : `svc-sandbox console · ${id}`;
    clearLog();
    drawSessions();
    if (travel) {
      setLive('snapshot');
      // Nothing on the page may change a snapshot (the server refuses it too): the controls that would are gone.
      for (const control of doc.querySelectorAll('.clockbar button, .clockbar input, #create-key')) {
        /** @type {HTMLButtonElement} */ (control).disabled = true;
      }
      void travel.open();
      void loadJournal();
    } else connect();
    render();
  }

  /**
   * The session at an instant of a snapshot, as the show server answers it: the whole of it
   * (`items`), or what changed since the instant on screen (`changes`, as a live `change` frame
   * carries them); with the event log's length and its newest events.
   */
  function showState(/** @type {any} */ body) {
    if (body.items) {
      state.model = emptyModel();
      for (const kind of /** @type {Array<keyof typeof LISTS | 'key'>} */ ([...Object.keys(LISTS), 'key']))
        load(state.model, kind, body.items[kind]);
      state.model.loaded = true;
    } else applyChanges(state.model, body.changes);
    if (state.journal) load(state.model, 'request', requestsBy(state.journal, Date.parse(body.now)));
    clearLog();
    state.model.events = body.events.count;
    state.totals = body.counts ?? null;
    state.pending = body.events.newest;
    setNow(body.now);
    render();
  }

  /**
   * A snapshot's request journal, read once (its entries never change): each instant shows those
   * answered by then.
   */
  async function loadJournal() {
    const res = await apiAll(sessionPath('/requests'));
    if (!res.ok) {
      el.banner.textContent = messageOf(res);
      return;
    }
    state.journal = res.body.data;
    if (state.now) load(state.model, 'request', requestsBy(res.body.data, Date.parse(state.now)));
    render();
  }

  // -------------------------------------------------------------------------------------
  // The clock and the advance form

  function setNow(/** @type {string} */ iso) {
    if (!iso || iso === state.now || state.gone) return;
    state.now = iso;
    el.now.textContent = longStamp(iso);
    el.now.setAttribute('datetime', iso);
    schedule();
  }

  async function advance(/** @type {string} */ duration) {
    const value = String(duration).trim();
    el.advanceError.textContent = '';
    el.input.removeAttribute('aria-invalid');
    if (!value) return showAdvanceError('Enter a duration, such as 30s, 5m, 25h, or a number of milliseconds.');
    if (state.advancing || state.gone) return;
    state.advancing = true;
    el.form.setAttribute('aria-busy', 'true');
    el.advanceStatus.textContent = '';
    const before = state.now;
    const countsBefore = counts(state.model);
    const res = await api('POST', sessionPath('/advance'), { duration: /^\d+(\.\d+)?$/.test(value) ? Number(value) : value });
    state.advancing = false;
    el.form.removeAttribute('aria-busy');
    if (!res.ok) return showAdvanceError(messageOf(res));
    const moved = before ? span(Date.parse(res.body.now) - Date.parse(before)) : value;
    state.lastAdvance = { moved, before: countsBefore };
    setNow(res.body.now);
    schedule();
  }

  function showAdvanceError(/** @type {string} */ message) {
    el.advanceError.textContent = message;
    el.input.setAttribute('aria-invalid', 'true');
  }

  el.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void advance(el.input.value);
  });
  for (const button of doc.querySelectorAll('[data-advance]')) {
    button.addEventListener('click', () => void advance(/** @type {HTMLElement} */ (button).dataset.advance ?? ''));
  }

  // -------------------------------------------------------------------------------------
  // The session picker

  function drawSessions() {
    const listed = list(state.model, 'session');
    const ids = listed.map((s) => s.id);
    if (!ids.includes(state.session)) ids.push(state.session);
    const current = listed.find((s) => s.id === state.session);
    el.sessionMeta.textContent = current ? `seed ${current.seed}` : '';
    const known = new Set(listed.map((s) => s.id));
    el.select.replaceChildren(
      ...ids.map((id) => h('option', { value: id, selected: id === state.session }, known.has(id) || !state.gone ? id : `${id} (gone)`)),
    );
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

  // -------------------------------------------------------------------------------------
  // Views and drawing, at most once per frame

  let queuedFrame = false;
  function schedule() {
    if (queuedFrame) return;
    queuedFrame = true;
    requestAnimationFrame(() => {
      queuedFrame = false;
      render();
    });
  }

  function showRoute() {
    state.route = parseRoute(location.hash);
    for (const section of doc.querySelectorAll('.view')) {
      /** @type {HTMLElement} */ (section).hidden = section.id !== `view-${state.route.view}`;
    }
    for (const link of doc.querySelectorAll('[data-view]')) {
      if (/** @type {HTMLElement} */ (link).dataset.view === state.route.view) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    for (const button of doc.querySelectorAll('[data-filter]'))
      button.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (button).dataset.filter === state.route.state));
    for (const button of doc.querySelectorAll('[data-status]'))
      button.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (button).dataset.status === state.route.status));
    for (const button of doc.querySelectorAll('[data-order]'))
      button.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (button).dataset.order === state.route.order));
    if (doc.activeElement !== el.codeInput) el.codeInput.value = REQUEST_FILTERS.includes(state.route.status) ? '' : state.route.status;
    render();
    const target = state.route.id ? doc.querySelector(`[data-id="${CSS.escape(state.route.id)}"]`) : null;
    if (target) {
      target.classList.add('target');
      target.scrollIntoView({ block: 'center' });
    }
  }
  window.addEventListener('hashchange', showRoute);
  for (const button of doc.querySelectorAll('[data-filter]')) {
    button.addEventListener('click', () => {
      const filter = /** @type {HTMLElement} */ (button).dataset.filter;
      const params = new URLSearchParams();
      if (state.route.about) params.set('about', state.route.about);
      if (filter !== 'all') params.set('state', filter ?? 'all');
      location.hash = `webhooks${params.size ? `?${params}` : ''}`;
    });
  }
  el.accountFilter.addEventListener('change', () => {
    state.account = el.accountFilter.value;
    render();
  });

  function render() {
    withFocusKept(() => {
      flushEvents();
      drawSessions();
      drawTotals();
      drawNav();
      const view = state.route.view;
      if (view === 'calls') drawCalls();
      else if (view === 'messages') el.messages.replaceChildren(renderMessages(conversations(state.model)));
      else if (view === 'numbers') el.numbers.replaceChildren(renderNumbers(list(state.model, 'number')));
      else if (view === 'recordings') drawRecordings();
      else if (view === 'webhooks') drawWebhooks();
      else if (view === 'requests') drawRequests();
      else if (view === 'keys') drawKeys();
      travel?.decorate();
    });
  }

  /**
   * Redrawing replaces nodes: the focused control (marked with `data-key`) gets the focus back
   * in its new node, so a keyboard user keeps their place while the page updates live.
   */
  function withFocusKept(/** @type {() => void} */ draw) {
    const active = /** @type {HTMLElement | null} */ (doc.activeElement);
    const key = active?.dataset?.key;
    draw();
    if (key && active && !active.isConnected)
      /** @type {HTMLElement | null} */ (doc.querySelector(`[data-key="${CSS.escape(key)}"]`))?.focus();
  }

  /** Rows of a list, reusing the element of every item whose signature did not change. */
  function rows(
    /** @type {string} */ prefix,
    /** @type {any[]} */ items,
    /** @type {(item: any) => string} */ signature,
    /** @type {(item: any) => HTMLElement} */ draw,
  ) {
    return items.map((item) => {
      const key = `${prefix}:${item.id}`;
      const sig = signature(item);
      const drawn = state.rows.get(key);
      if (drawn && drawn[0] === sig) return drawn[1];
      const element = draw(item);
      state.rows.set(key, [sig, element]);
      return element;
    });
  }

  function drawTotals() {
    const c = counts(state.model);
    el.totals.textContent = state.gone
      ? ''
      : `${plural(c.events, 'event')} · ${plural(c.calls, 'call')} · ${plural(c.attempts, 'webhook attempt')} (${c.failed} failed) · ${plural(c.dead, 'dead letter')}`;
    const last = state.lastAdvance;
    el.advanceStatus.textContent = last && !state.gone ? (last.said ?? `Advanced ${last.moved}: ${countsDelta(last.before, c)}.`) : '';
  }

  /** Another action begins: the last advance's line says what the advance did, and stays so. */
  function freezeAdvance() {
    if (state.lastAdvance && state.lastAdvance.said === undefined) state.lastAdvance.said = el.advanceStatus.textContent ?? '';
  }

  function drawNav() {
    const c = counts(state.model);
    /** What the page holds, or the snapshot's count at the instant when the page holds only the newest. */
    const total = (/** @type {string} */ kind, /** @type {number} */ held) => Math.max(held, state.totals?.[kind] ?? 0);
    const text = {
      calls: total('call', c.calls),
      messages: total('message', state.model.items.message.size),
      numbers: total('number', state.model.items.number.size),
      recordings: total('recording', state.model.items.recording.size),
      webhooks: c.dead ? `${c.dead} dead` : total('delivery', c.deliveries),
      requests: c.requests,
      events: c.events,
      keys: total('key', state.model.items.key.size),
    };
    for (const [view, n] of Object.entries(text)) {
      const badge = /** @type {HTMLElement} */ (doc.querySelector(`[data-count="${view}"]`));
      badge.textContent = n ? String(n) : '';
      badge.classList.toggle('bad', view === 'webhooks' && c.dead > 0);
    }
  }

  // The event log: appended as the stream sends it, newest first.
  function clearLog() {
    state.pending = [];
    state.caughtUp = false;
    el.events.replaceChildren();
    el.eventsCount.textContent = '';
    el.eventsEmpty.hidden = false;
  }

  function flushEvents() {
    if (state.pending.length === 0) return;
    const batch = state.pending;
    state.pending = [];
    const fragment = doc.createDocumentFragment();
    for (const event of batch.slice(-MAX_EVENTS).reverse()) fragment.append(eventItem(event, state.caughtUp));
    el.events.prepend(fragment);
    while (el.events.childElementCount > MAX_EVENTS) el.events.lastElementChild?.remove();
    const n = state.model.events;
    el.eventsEmpty.hidden = true;
    el.eventsCount.textContent = n > MAX_EVENTS ? `${MAX_EVENTS} newest of ${n}` : String(n);
  }

  function drawCalls() {
    const now = state.now ? Date.parse(state.now) : 0;
    const all = list(state.model, 'call');
    const options = accounts(state.model);
    const wanted = ['', ...options.map((o) => o.account)].join('\n');
    if (el.accountFilter.dataset.options !== wanted) {
      el.accountFilter.dataset.options = wanted;
      el.accountFilter.replaceChildren(
        h('option', { value: '' }, 'All keys'),
        ...options.map((o) => h('option', { value: o.account }, `${o.account} (${plural(o.calls, 'call')})`)),
      );
    }
    el.accountFilter.value = state.account;
    const mine = state.account ? all.filter((c) => c.account === state.account) : all;
    let shown = mine.slice(0, MAX_CALLS);
    const target = state.route.id && mine.find((c) => c.id === state.route.id);
    if (target && !shown.includes(target)) shown = [target, ...shown];
    const held = state.totals?.call ?? 0;
    el.callsCount.textContent =
      held > all.length
        ? `the newest ${all.length} of ${held} (svc-sandbox show sends each list's newest)`
        : mine.length
          ? state.account
            ? `${mine.length} of ${all.length}`
            : String(all.length)
          : '';
    if (state.gone) {
      el.calls.replaceChildren(h('p', { class: 'empty' }, 'No session, no calls: pick a session above.'));
      return;
    }
    if (all.length === 0) {
      el.calls.replaceChildren(
        h(
          'p',
          { class: 'empty' },
          'No calls yet. Place one with ',
          h('code', null, 'POST /v1/calls'),
          ' and watch it ring, talk and complete as the clock moves.',
        ),
      );
      return;
    }
    const byCall = deliveriesByCall(state.model);
    const items = shown.map((call) => ({ id: call.id, call, t: timelineOf(state.model, call, byCall) }));
    el.calls.replaceChildren(
      h(
        'ol',
        { class: 'calls', 'aria-label': 'Calls, newest first' },
        rows(
          'call',
          items,
          ({ call, t }) => JSON.stringify([call, t, call.ended_at ? 0 : now]),
          ({ call, t }) => renderCall(call, t, now),
        ),
      ),
      ...(mine.length > shown.length ? [h('p', { class: 'note' }, `Showing the ${shown.length} newest of ${mine.length} calls.`)] : []),
    );
  }

  function drawRecordings() {
    const byCall = deliveriesByCall(state.model);
    el.recordings.replaceChildren(
      renderRecordings(
        list(state.model, 'recording'),
        (id) => state.model.items.transcript.get(id),
        (id) => sessionPath(`/console/recordings/${encodeURIComponent(id)}/audio`),
        (callId) => byCall.get(callId)?.length ?? 0,
      ),
    );
  }

  function drawWebhooks() {
    const deliveries = list(state.model, 'delivery');
    // The cards and every count of them, from one reading (the header once said 4 while 5 cards showed).
    const letters = deadLetters(state.model);
    el.deadCount.textContent = letters.cards.length
      ? [plural(letters.dead.length, 'dead letter'), letters.replayed.length ? `${letters.replayed.length} replayed` : '']
          .filter(Boolean)
          .join(' · ')
      : '';
    el.dead.replaceChildren(renderDeadLetters(letters.cards, (d) => state.model.items.subscription.has(d.subscriptionId), replay));
    const n = letters.replayable.length;
    // Shown for two or more: with one dead letter its own Replay says it all, and the page keeps
    // exactly one button whose name holds "Replay" (docs/console.md, "Names a test can find").
    el.replayAll.hidden = n < 2 || travel !== null;
    el.replayAllHint.hidden = el.replayAll.hidden;
    if (state.gone || travel)
      for (const button of el.dead.querySelectorAll('button.replay')) /** @type {HTMLButtonElement} */ (button).disabled = true;
    const { about, state: filter } = state.route;
    const matching = filterDeliveries(deliveries, { state: filter, about }).reverse();
    el.deliveriesCount.textContent =
      matching.length === deliveries.length ? String(deliveries.length || '') : `${matching.length} of ${deliveries.length}`;
    el.aboutFilter.hidden = !about;
    if (about)
      el.aboutFilter.replaceChildren(
        'Only ',
        h('code', { class: 'mono' }, about),
        ' ',
        h('a', { href: `#webhooks${filter === 'all' ? '' : `?state=${filter}`}` }, 'Show all'),
      );
    const open = filter !== 'all' || about !== null;
    const shown = matching.slice(0, MAX_DELIVERIES);
    el.deliveries.replaceChildren(
      ...(shown.length
        ? rows(
            `delivery-${open}`,
            shown,
            (d) => JSON.stringify(d),
            (d) => renderDelivery(d, open || d.id === state.route.id),
          )
        : [
            h(
              'li',
              { class: 'empty' },
              deliveries.length ? 'No delivery matches.' : 'No deliveries yet. Subscribe a receiver with POST /v1/webhooks.',
            ),
          ]),
      ...(matching.length > shown.length ? [h('li', { class: 'note' }, `Showing the ${shown.length} newest of ${matching.length}.`)] : []),
    );
    el.subscriptions.replaceChildren(renderSubscriptions(list(state.model, 'subscription')));
  }

  async function replay(/** @type {any} */ d, /** @type {HTMLButtonElement} */ button) {
    if (button.getAttribute('aria-busy') === 'true' || state.gone) return;
    button.setAttribute('aria-busy', 'true');
    freezeAdvance();
    el.deadError.textContent = '';
    const res = await api('POST', sessionPath(`/dead-letters/${encodeURIComponent(d.id)}/replay`));
    button.removeAttribute('aria-busy');
    if (!res.ok) {
      el.deadError.textContent = messageOf(res);
      return;
    }
    // The card says where the replay stands from the delivery itself, as the stream brings it.
    const attempt = res.body.data[res.body.data.length - 1];
    announce(
      attempt?.ok
        ? `Replayed ${d.id}: delivered, HTTP ${attempt.status}.`
        : `Replayed ${d.id}: attempt 1 failed (${attempt?.error ?? `HTTP ${attempt?.status}`}); it is back in its retry schedule.`,
    );
    // The Replay button goes once the delivery is no longer dead: keep the keyboard user here.
    $('dead-heading').focus();
    render();
  }

  el.replayAll.addEventListener('click', async () => {
    if (el.replayAll.getAttribute('aria-busy') === 'true' || state.gone || travel) return;
    el.replayAll.setAttribute('aria-busy', 'true');
    freezeAdvance();
    el.deadError.textContent = '';
    el.replayAllStatus.textContent = '';
    const res = await api('POST', sessionPath('/dead-letters/replay'), {});
    el.replayAll.removeAttribute('aria-busy');
    if (!res.ok) {
      el.deadError.textContent = messageOf(res);
      return;
    }
    const said = redelivered(res.body.data);
    el.replayAllStatus.textContent = said;
    announce(said);
    $('dead-heading').focus();
    render();
  });

  function drawRequests() {
    const { status, order } = state.route;
    const log = requestLog(state.model, status);
    for (const badge of doc.querySelectorAll('[data-status-count]')) {
      const n = log.byFilter[/** @type {HTMLElement} */ (badge).dataset.statusCount ?? ''] ?? 0;
      badge.textContent = String(n);
    }
    el.requestsCount.textContent =
      status === 'all'
        ? String(log.total || '')
        : `${log.matching.length} of ${log.total}${REQUEST_FILTERS.includes(status) ? '' : ` (${status})`}`;
    el.requests.setAttribute('aria-label', `Requests, ${order} first`);
    const ordered = order === 'newest' ? log.matching.reverse() : log.matching;
    const shown = ordered.slice(0, MAX_REQUESTS);
    const toggle = (/** @type {string} */ id) => {
      if (!state.expanded.delete(id)) state.expanded.add(id);
      render();
    };
    el.requests.replaceChildren(
      ...(shown.length
        ? rows(
            'request',
            shown.map((entry) => ({ id: entry.requestId, entry })),
            ({ id, entry }) => `${state.expanded.has(id)}${JSON.stringify(entry)}`,
            ({ id, entry }) => renderRequest(entry, state.expanded.has(id), toggle),
          )
        : [
            h(
              'li',
              { class: 'empty' },
              log.total ? 'No request matches.' : 'No requests yet. Every request the API answers in this session is listed here.',
            ),
          ]),
      ...(ordered.length > shown.length ? [h('li', { class: 'note' }, `Showing the ${shown.length} ${order} of ${ordered.length}.`)] : []),
    );
  }

  /** The request log's filter, as the address says it (`#requests?status=4xx&order=oldest`). */
  function showRequests(/** @type {{ status?: string, order?: string }} */ change) {
    const params = new URLSearchParams();
    const status = change.status ?? state.route.status;
    const order = change.order ?? state.route.order;
    if (status !== 'all') params.set('status', status);
    if (order !== 'newest') params.set('order', order);
    // Not `location.hash =`: `#requests` is the list's id, and going to it would scroll there and
    // move the keyboard's place from the filter just pressed to the list.
    history.pushState(history.state, '', `#requests${params.size ? `?${params}` : ''}`);
    showRoute();
  }
  for (const button of doc.querySelectorAll('[data-status]'))
    button.addEventListener('click', () => showRequests({ status: /** @type {HTMLElement} */ (button).dataset.status }));
  for (const button of doc.querySelectorAll('[data-order]'))
    button.addEventListener('click', () => showRequests({ order: /** @type {HTMLElement} */ (button).dataset.order }));
  el.codeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const filter = requestFilter(el.codeInput.value);
    if (filter === null) {
      el.codeError.textContent = `“${el.codeInput.value.trim().slice(0, 40)}” is no status or error code: type a status (422), a class (4xx) or an error code (rate_limited), or nothing for all.`;
      el.codeInput.setAttribute('aria-invalid', 'true');
      return;
    }
    el.codeError.textContent = '';
    el.codeInput.removeAttribute('aria-invalid');
    showRequests({ status: filter });
  });

  function drawKeys() {
    const callsOf = (/** @type {string} */ account) => [...state.model.items.call.values()].filter((c) => c.account === account).length;
    el.keys.replaceChildren(
      ...renderKeys(list(state.model, 'key'), callsOf, (account) => {
        state.account = account;
        location.hash = 'calls';
      }),
    );
  }

  el.createKey.addEventListener('click', async () => {
    if (el.createKey.getAttribute('aria-busy') === 'true' || state.gone) return;
    el.createKey.setAttribute('aria-busy', 'true');
    freezeAdvance();
    el.keysError.textContent = '';
    const res = await api('POST', sessionPath('/keys'));
    el.createKey.removeAttribute('aria-busy');
    if (!res.ok) {
      el.keysError.textContent = messageOf(res);
      return;
    }
    el.newKeyValue.textContent = res.body.key;
    el.newKey.hidden = false;
    announce(`New test key: ${res.body.key}. It is a new, empty account.`);
  });

  el.copyKey.addEventListener('click', () => {
    const key = el.newKeyValue.textContent ?? '';
    const selectKey = () => {
      const range = doc.createRange();
      range.selectNodeContents(el.newKeyValue);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
    };
    if (!navigator.clipboard) return selectKey();
    navigator.clipboard.writeText(key).then(
      () => announce('Key copied.'),
      () => {
        selectKey();
        announce('Copying is not allowed here: the key is selected, copy it with your keyboard.');
      },
    );
  });

  // The bars stay in view (sticky): the navigation and whatever the page scrolls to keep clear of them.
  if (typeof ResizeObserver === 'function')
    new ResizeObserver(() => doc.documentElement.style.setProperty('--bars-h', `${el.bars.offsetHeight}px`)).observe(el.bars);
  $('api-base').textContent = `${location.origin}/v1`;
  // For the browser test: how many times the page read the lists.
  Object.defineProperty(window, '__consoleLoads', { get: () => state.loads });
  openSession(state.session);
  showRoute();
}
