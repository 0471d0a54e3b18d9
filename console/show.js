import { h, longStamp, span, stamp } from './dom.js';
import { addressAt, atOfSearch, axisScale, groupsBy, happenedBy, isoOf, markGroups, parseInstant, step, stops } from './history.js';

/**
 * The console's time control, when it shows a snapshot (`svc-sandbox show FILE`,
 * docs/debugging.md): the field `At`, the buttons that step from event to event, and the time
 * axis with a mark per event (past 2,000, one per run of events drawn close together). The
 * session at an instant comes from the show server (`/__sandbox/show/state?at=ISO`, with `&from=`
 * the instant on screen, so a step brings only what it changed); app.js draws it as it draws a
 * live session. The page's address keeps `?at=ISO`
 * (`history.replaceState`), so a link opens the same instant.
 *
 * Keys: ↑ and ↓ in the field; `[` and `]` anywhere but a text field; Alt+← and Alt+→ anywhere.
 *
 * @param {Document} doc
 * @param {{
 *   api: (method: string, path: string) => Promise<{ ok: boolean, status: number, body: any }>,
 *   show: (state: any) => void,
 *   fail: (message: string) => void,
 *   announce: (text: string) => void,
 * }} page  what app.js lends: its control API reader, the drawing of a state, the banner, the live region
 */
export function timeControl(doc, page) {
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (doc.getElementById(id));
  const el = {
    bar: $('timebar'),
    about: $('timebar-about'),
    file: $('show-file'),
    start: $('show-start'),
    end: $('show-end'),
    form: /** @type {HTMLFormElement} */ ($('at-form')),
    input: /** @type {HTMLInputElement} */ ($('at')),
    status: $('at-status'),
    error: $('at-error'),
    axis: $('axis'),
    toStart: /** @type {HTMLButtonElement} */ ($('at-start')),
    prev: /** @type {HTMLButtonElement} */ ($('prev-event')),
    next: /** @type {HTMLButtonElement} */ ($('next-event')),
    toEnd: /** @type {HTMLButtonElement} */ ($('at-end')),
  };
  /** @type {{ file: string, start: number, end: number, marks: import('./history.js').Mark[], instants: number[] } | null} */
  let session = null;
  /** The instant the page shows (its model is the session then), and the one asked for last. */
  let shown = /** @type {number | null} */ (null);
  let wanted = /** @type {number | null} */ (null);
  let loading = false;
  /** The axis's marks, in the order of the events, the events each stands for, and how many are drawn as past. */
  let marks = /** @type {HTMLElement[]} */ ([]);
  let groups = /** @type {Array<{ first: number, last: number }>} */ ([]);
  let past = 0;
  let cursor = /** @type {HTMLElement | null} */ (null);

  async function open() {
    el.bar.hidden = false;
    el.about.hidden = false;
    const res = await page.api('GET', '/__sandbox/show');
    if (!res.ok) return page.fail(res.body?.error?.message ?? `The show server answered HTTP ${res.status}.`);
    const { file, start, end, events } = res.body;
    session = { file, start: Date.parse(start), end: Date.parse(end), marks: events, instants: [] };
    session.instants = stops(events, session.start, session.end);
    el.file.textContent = file;
    for (const [node, iso] of /** @type {const} */ ([
      [el.start, start],
      [el.end, end],
    ])) {
      node.textContent = longStamp(iso);
      node.setAttribute('datetime', iso);
    }
    doc.title = `svc-sandbox show · ${file}`;
    drawAxis();
    const asked = atOfSearch(location.search);
    let at = session.end;
    if (asked !== null) {
      const parsed = parseInstant(asked, session.start, session.end);
      if (parsed.ok) at = parsed.ms;
      else showError(`The address's at=: ${parsed.error} Showing the end instead.`);
    }
    await go(at);
  }

  /** Shows the session at `ms`; asked again while a state is on its way, the last ask wins. */
  async function go(/** @type {number} */ ms) {
    wanted = ms;
    if (loading || !session) return;
    loading = true;
    try {
      while (wanted !== shown && wanted !== null) {
        const at = wanted;
        const from = shown === null ? '' : `&from=${encodeURIComponent(isoOf(shown))}`;
        const res = await page.api('GET', `/__sandbox/show/state?at=${encodeURIComponent(isoOf(at))}${from}`);
        if (!res.ok) {
          showError(res.body?.error?.message ?? `The show server answered HTTP ${res.status}.`);
          wanted = shown;
          break;
        }
        shown = at;
        page.show(res.body);
        moved(at);
      }
    } finally {
      loading = false;
    }
  }

  /** The instant on screen changed: the field, the address, the axis and the status follow. */
  function moved(/** @type {number} */ at) {
    if (!session) return;
    if (doc.activeElement !== el.input || el.input.value === '') el.input.value = isoOf(at);
    history.replaceState(history.state, '', addressAt(location.href, at));
    const count = happenedBy(session.marks, at);
    drawPast(count);
    if (cursor) cursor.style.setProperty('--x', `${scale.x(at).toFixed(3)}%`);
    el.toStart.disabled = at <= session.start;
    el.prev.disabled = at <= session.start;
    el.next.disabled = at >= session.end;
    el.toEnd.disabled = at >= session.end;
    el.status.replaceChildren(...statusOf(at, count));
  }

  /** Where the reader is: the instant against the start and the end, and the last event by then. */
  function statusOf(/** @type {number} */ at, /** @type {number} */ count) {
    if (!session) return [];
    const { start, end, marks: events } = session;
    const where =
      at >= end
        ? 'the end, when the snapshot was taken'
        : at <= start
          ? 'the start'
          : `${span(at - start)} after the start, ${span(end - at)} before the end`;
    const last = count > 0 ? events[count - 1] : undefined;
    const head = [h('strong', null, stamp(isoOf(at))), ` (${where}). `];
    if (!last) return [...head, `No event yet (the session has ${events.length}).`];
    return [
      ...head,
      `Last event: ${count} of ${events.length}, `,
      h('span', { class: `etype fam-${family(last.type)}` }, last.type),
      ' of ',
      last.call ? h('a', { href: `#calls/${encodeURIComponent(last.call)}` }, last.subject) : last.subject,
      ` at ${stamp(last.at)}.`,
    ];
  }

  /** @type {ReturnType<typeof axisScale>} */
  let scale = axisScale(0, 0, []);
  function drawAxis() {
    if (!session) return;
    const { start, end, marks: events, instants } = session;
    scale = axisScale(start, end, instants);
    const positions = events.map((e) => scale.x(Date.parse(e.at)));
    groups = markGroups(positions, MAX_MARKS);
    marks = groups.map(({ first, last }) => {
      const e = events[first];
      const n = last - first + 1;
      return h('span', {
        class: `axis-mark fam-${family(e.type)}`,
        title: n === 1 ? `${e.type} ${e.subject} at ${stamp(e.at)}` : `${n} events, ${stamp(e.at)} to ${stamp(events[last].at)}`,
        vars: { '--x': `${(positions[first] ?? 0).toFixed(3)}%` },
      });
    });
    past = marks.length;
    cursor = h('span', { class: 'axis-now' });
    el.axis.replaceChildren(
      h(
        'div',
        { class: 'axis-track' },
        ...scale.cuts.map((cut) =>
          h('span', { class: 'axis-cut', title: `${span(cut.ms)} without events`, vars: { '--x': `${cut.x.toFixed(3)}%` } }, span(cut.ms)),
        ),
        ...marks,
        cursor,
      ),
      h('div', { class: 'axis-labels' }, h('span', null, stamp(isoOf(start))), h('span', null, stamp(isoOf(end)))),
    );
  }

  /** Marks those of the first `count` events as past (the rest dim), the last of them current. */
  function drawPast(/** @type {number} */ count) {
    const now = groupsBy(groups, count);
    for (let i = Math.min(past, now); i < Math.max(past, now); i++) marks[i]?.classList.toggle('after', i >= now);
    for (const node of el.axis.querySelectorAll('.axis-mark.current')) node.classList.remove('current');
    marks[now - 1]?.classList.add('current');
    past = now;
  }

  /**
   * After app.js drew the views: the last event by the instant shown is highlighted where it
   * appears (the event log, its call's row), so the reader sees at once what just happened.
   */
  function decorate() {
    if (!session || shown === null) return;
    const count = happenedBy(session.marks, shown);
    const last = count > 0 ? session.marks[count - 1] : undefined;
    for (const node of doc.querySelectorAll('.event.current, .call-row.current')) node.classList.remove('current');
    if (!last) return;
    doc.querySelector(`.event[data-id="${CSS.escape(last.id)}"]`)?.classList.add('current');
    if (last.call) doc.querySelector(`.call-row[data-id="${CSS.escape(last.call)}"]`)?.classList.add('current');
  }

  function showError(/** @type {string} */ message) {
    el.error.textContent = message;
    el.input.setAttribute('aria-invalid', 'true');
  }
  function clearError() {
    el.error.textContent = '';
    el.input.removeAttribute('aria-invalid');
  }

  /** One event on (1) or back (-1) from the instant asked for last. */
  function stepBy(/** @type {1 | -1} */ direction) {
    if (!session) return;
    const from = wanted ?? shown ?? session.end;
    const to = step(session.instants, from, direction);
    if (to === null) return page.announce(direction > 0 ? 'This is the end: no event after it.' : 'This is the start: no event before it.');
    clearError();
    el.input.value = isoOf(to);
    void go(to);
  }

  el.form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!session) return;
    const parsed = parseInstant(el.input.value, session.start, session.end);
    if (!parsed.ok) return showError(parsed.error);
    clearError();
    el.input.value = isoOf(parsed.ms);
    void go(parsed.ms);
  });
  el.input.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
    event.preventDefault();
    stepBy(event.key === 'ArrowDown' ? 1 : -1);
  });
  el.prev.addEventListener('click', () => stepBy(-1));
  el.next.addEventListener('click', () => stepBy(1));
  /** To the start or the end. @param {'start' | 'end'} which */
  const jump = (which) => {
    if (!session) return;
    clearError();
    void go(session[which]);
  };
  el.toStart.addEventListener('click', () => jump('start'));
  el.toEnd.addEventListener('click', () => jump('end'));
  el.axis.addEventListener('click', (event) => {
    const track = el.axis.querySelector('.axis-track');
    if (!session || !track) return;
    const box = track.getBoundingClientRect();
    if (box.width === 0) return;
    clearError();
    void go(scale.at(((event.clientX - box.left) / box.width) * 100));
  });
  doc.addEventListener('keydown', (event) => {
    const typing = event.target instanceof HTMLElement && event.target.closest('input, select, textarea, [contenteditable]') !== null;
    const back =
      (event.altKey && event.key === 'ArrowLeft') || (!typing && !event.altKey && !event.ctrlKey && !event.metaKey && event.key === '[');
    const on =
      (event.altKey && event.key === 'ArrowRight') || (!typing && !event.altKey && !event.ctrlKey && !event.metaKey && event.key === ']');
    if (!back && !on) return;
    // Alt+← is also the browser's Back: here it steps through time instead.
    event.preventDefault();
    stepBy(on ? 1 : -1);
  });

  return { open, decorate };
}

/** The most marks the axis draws: past that many events, events drawn close together share one. */
const MAX_MARKS = 2000;

/** `call` of `call.completed`: the colour family of an event type. @param {string} type */
const family = (type) => type.slice(0, type.indexOf('.'));
