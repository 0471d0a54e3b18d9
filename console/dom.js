/**
 * DOM and formatting helpers of the console. No framework: `h()` builds elements, and the
 * formatters print virtual instants (always UTC, the sandbox clock's zone) and durations.
 */

/**
 * An element: `h('li', { class: 'x', 'aria-label': '…', onclick: fn }, child, 'text')`.
 * `null`, `undefined` and `false` children are skipped; arrays are flattened.
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
      else if (name === 'vars')
        for (const [prop, v] of Object.entries(/** @type {Record<string, string>} */ (value))) el.style.setProperty(prop, v);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * @param {Node & ParentNode} el
 * @param {unknown[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (/** @type {number} */ n, w = 2) => String(n).padStart(w, '0');

/** `00:01:05` (and `.250` when the instant has milliseconds). @param {number} ms */
export function clock(ms) {
  const d = new Date(ms);
  const base = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return d.getUTCMilliseconds() ? `${base}.${pad(d.getUTCMilliseconds(), 3)}` : base;
}

/** `Jan 1` @param {number} ms */
export function day(ms) {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** `Jan 1 00:01:05`: the console's way of printing a virtual instant (anything else is printed as it is). @param {string} iso */
export function stamp(iso) {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? String(iso) : `${day(ms)} ${clock(ms)}`;
}

/** `2026-01-02 01:00:00` for the big clock. @param {string} iso */
export function longStamp(iso) {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return String(iso);
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${clock(ms)}`;
}

/** A `<time>` element for a virtual instant. @param {string} iso */
export function time(iso, cls = 'ts') {
  return h('time', { datetime: iso, class: cls }, stamp(iso));
}

/** A span of milliseconds, compact: `850 ms`, `5 s`, `1 m 5 s`, `17 h 3 m`, `2 d 1 h`. @param {number} ms */
export function span(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  let s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hr = Math.floor(s / 3600);
  s -= hr * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  /** @type {Array<[number, string]>} */
  const parts =
    d >= 2
      ? [
          [d, 'd'],
          [hr, 'h'],
        ]
      : d || hr
        ? [
            [d * 24 + hr, 'h'],
            [m, 'm'],
          ]
        : [
            [m, 'm'],
            [s, 's'],
          ];
  return parts
    .filter(([n], i) => i === 0 || n > 0)
    .map(([n, u]) => `${n} ${u}`)
    .join(' ');
}

/** A call's `duration` (whole seconds); nothing when there is none. @param {number | null | undefined} n */
export function seconds(n) {
  if (n === null || n === undefined) return '';
  return n < 120 ? `${n} s` : span(n * 1000);
}

/** `1 attempt`, `3 attempts`. @param {number} n @param {string} one */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * An id, whole and copyable in one click: a button whose text is the id (it wraps, never cut
 * off). A click copies it to the clipboard (or, where that is not allowed, selects it) and
 * tells the page with a bubbling `copied` event, which the page announces. Its accessible name
 * is the id itself and "Copy" its description (the title): no `aria-label`, so a test's
 * `getByLabel('At')` never finds an id that happens to hold those letters.
 * @param {string} id
 * @param {string} [cls]
 */
export function copyId(id, cls = '') {
  return copyButton(id, id, `id ${cls}`.trim(), `copy:${id}:${cls}`);
}

/**
 * A long value shown shortened (`SVC_TEST_ses_4kT9…5JuA`), copied whole in one click; the
 * whole value is its title.
 * @param {string} value
 */
export function copyShort(value) {
  return copyButton(value, shorten(value), 'copy-short', `copy-short:${value}`, `Copy ${value}`);
}

/** `SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA` → `SVC_TEST_ses_4kT9…5JuA`; short values stay whole. @param {string} value */
export function shorten(value, head = 17, tail = 4) {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/**
 * @param {string} value  what is copied
 * @param {string} shown  the button's text
 * @param {string} cls
 * @param {string} key  keeps the focus on it across redraws (app.js)
 */
function copyButton(value, shown, cls, key, title = 'Copy') {
  return h(
    'button',
    {
      type: 'button',
      class: cls,
      'data-copy': value,
      'data-key': key,
      title,
      onclick: (/** @type {MouseEvent} */ e) => {
        const button = /** @type {HTMLElement} */ (e.currentTarget);
        const done = (/** @type {boolean} */ ok) =>
          button.dispatchEvent(new CustomEvent('copied', { bubbles: true, detail: { id: value, ok } }));
        const select = () => {
          // Where copying is not allowed, the whole value is shown and selected, for the keyboard to copy.
          button.textContent = value;
          const range = document.createRange();
          range.selectNodeContents(button);
          getSelection()?.removeAllRanges();
          getSelection()?.addRange(range);
          done(false);
        };
        if (!navigator.clipboard) return select();
        navigator.clipboard.writeText(value).then(() => done(true), select);
      },
    },
    shown,
  );
}
