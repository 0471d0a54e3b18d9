/**
 * The console's time travel, its pure part (no DOM): what an instant typed in `At` means, the
 * instants the keys step between, and the time axis's scale (docs/console.md, "Time travel").
 * The page that uses them is show.js; `svc-sandbox show` serves both (docs/debugging.md).
 */

/**
 * @typedef {{ at: string, id: string, type: string, subject: string, call: string | null }} Mark  an event on the axis
 * @typedef {{ ok: true, ms: number } | { ok: false, error: string }} Parsed
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const UNITS = /** @type {Record<string, number>} */ ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 });
const ISO = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?)(Z|[+-]\d\d:?\d\d)?$/i;
const STAMP = new RegExp(`^(${MONTHS.join('|')}) (\\d{1,2}),? (\\d\\d:\\d\\d:\\d\\d(?:\\.\\d{1,3})?)$`, 'i');
const OFFSET = /^\+\s*((?:\d+(?:\.\d+)?\s*(?:ms|s|m|h|d)\s*)+)$/i;

/** `2026-01-01T00:01:05.000Z`: how the field and the page's address write an instant. @param {number} ms */
export const isoOf = (ms) => new Date(ms).toISOString();

/**
 * What the `At` field (or `?at=`) means, within the session: an ISO 8601 instant (`Z` or an
 * offset; without a zone it is UTC, the sandbox's zone), the console's own way of printing one
 * (`Jan 1 00:01:05`, in the start's year, so a time copied from the page works), or an offset
 * from the session's start (`+65s`, `+1m 5s`, `+2h`). Anything else, or an instant outside the
 * session, is an error that says what to type.
 * @param {string} text
 * @param {number} start  the session's start (ms)
 * @param {number} end    when the snapshot was taken (ms)
 * @returns {Parsed}
 */
export function parseInstant(text, start, end) {
  const value = String(text).trim();
  const range = `from ${isoOf(start)} (the start) to ${isoOf(end)} (when the snapshot was taken)`;
  if (!value) return { ok: false, error: `Enter an instant ${range}: an ISO 8601 time such as ${isoOf(start)}, or +30s from the start.` };
  let ms = Number.NaN;
  const iso = ISO.exec(value);
  const stamp = STAMP.exec(value);
  const offset = OFFSET.exec(value);
  if (iso) ms = Date.parse(`${iso[1]}T${iso[2]}${(iso[3] ?? 'Z').toUpperCase()}`);
  else if (stamp) {
    const month = MONTHS.findIndex((m) => m.toLowerCase() === stamp[1]?.toLowerCase());
    ms = Date.parse(`${new Date(start).getUTCFullYear()}-${pad(month + 1)}-${pad(Number(stamp[2]))}T${stamp[3]}Z`);
  } else if (offset) {
    let total = 0;
    for (const [, n, unit] of (offset[1] ?? '').matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/gi))
      total += Number(n) * (UNITS[String(unit).toLowerCase()] ?? 0);
    ms = start + Math.round(total);
  }
  if (Number.isNaN(ms))
    return {
      ok: false,
      error: `“${value.slice(0, 60)}” is not an instant: type an ISO 8601 time such as ${isoOf(start)}, or +30s from the start.`,
    };
  if (ms < start || ms > end) return { ok: false, error: `${isoOf(ms)} is outside the session: give an instant ${range}.` };
  return { ok: true, ms };
}

const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');

/**
 * The instants the keys step between: each distinct event instant, with the start and the end.
 * @param {Mark[]} marks
 * @param {number} start
 * @param {number} end
 * @returns {number[]} ascending
 */
export function stops(marks, start, end) {
  const all = new Set([start, end]);
  for (const mark of marks) all.add(Date.parse(mark.at));
  return [...all].filter((t) => t >= start && t <= end).sort((a, b) => a - b);
}

/**
 * The next stop after `at` (`direction` 1) or the one before it (-1); null when there is none.
 * @param {number[]} instants  {@link stops}
 * @param {number} at
 * @param {1 | -1} direction
 * @returns {number | null}
 */
export function step(instants, at, direction) {
  if (direction > 0) return instants.find((t) => t > at) ?? null;
  for (let i = instants.length - 1; i >= 0; i--) if (instants[i] < at) return instants[i];
  return null;
}

/**
 * How many events had happened by `at` (the marks are in the order of their instants): the last
 * of them, at index count - 1, is the one the page highlights.
 * @param {Mark[]} marks
 * @param {number} at
 */
export function happenedBy(marks, at) {
  return leading(marks.length, (i) => Date.parse(marks[i].at) <= at);
}

/**
 * How many of the first items of a list of `length` pass `passes`, when those that pass all come
 * first (a binary search).
 * @param {number} length
 * @param {(index: number) => boolean} passes
 */
function leading(length, passes) {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (passes(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The axis's marks: one per event, or, past `max` events, one per run of events drawn within
 * 100/max % of the run's first (which places it), so the axis holds about `max` marks at most
 * whatever the session (a mark per event froze the page at hundreds of thousands). Each is the
 * range of the events it stands for, by index.
 * @param {number[]} positions  each event's place on the axis (%), in the order of the events (so ascending)
 * @param {number} max
 * @returns {Array<{ first: number, last: number }>}
 */
export function markGroups(positions, max) {
  if (positions.length <= max) return positions.map((_, i) => ({ first: i, last: i }));
  const width = 100 / max;
  /** @type {Array<{ first: number, last: number }>} */
  const groups = [];
  positions.forEach((x, i) => {
    const run = groups[groups.length - 1];
    if (run && x - (positions[run.first] ?? 0) < width) run.last = i;
    else groups.push({ first: i, last: i });
  });
  return groups;
}

/**
 * How many of `groups` ({@link markGroups}) hold an event of the first `count`: the last of them
 * holds the event the page highlights.
 * @param {Array<{ first: number, last: number }>} groups
 * @param {number} count
 */
export function groupsBy(groups, count) {
  return leading(groups.length, (i) => groups[i].first < count);
}

/** A gap of the axis drawn this long (ms of time in a stretch without events), at least, shows a cut. */
const CUT_MS = 10 * 60_000;

/**
 * The time axis's scale: time runs left to right and every event keeps its order, but a stretch
 * without events is drawn at a logarithmic length of its duration (`ln(1 + gap / 1 s)`), so the
 * seconds of a call's life and the hours of webhook retries after it both get room, and a long
 * quiet stretch (10 minutes or more) is marked as a cut with its length. Positions in %.
 * @param {number} start
 * @param {number} end
 * @param {number[]} instants  {@link stops}: ascending, start and end included
 * @returns {{ x: (t: number) => number, at: (x: number) => number, cuts: Array<{ x: number, ms: number }> }}
 */
export function axisScale(start, end, instants) {
  const anchors = instants.length >= 2 ? instants : [start, Math.max(start, end)];
  const drawn = (/** @type {number} */ gap) => Math.log1p(gap / 1000);
  const xs = [0];
  for (let i = 1; i < anchors.length; i++) xs.push(xs[i - 1] + drawn(anchors[i] - anchors[i - 1]));
  const total = xs[xs.length - 1] || 1;
  /** @param {number} t */
  const x = (t) => {
    if (t <= anchors[0]) return 0;
    if (t >= anchors[anchors.length - 1]) return 100;
    let lo = 0;
    let hi = anchors.length - 1;
    // The last anchor at or before t: anchors[lo] <= t < anchors[hi].
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (anchors[mid] <= t) lo = mid;
      else hi = mid;
    }
    const i = lo;
    return ((xs[i] + drawn(t - anchors[i])) / total) * 100;
  };
  /** The stop nearest to a position. @param {number} px */
  const at = (px) => {
    let best = 0;
    for (let i = 1; i < anchors.length; i++) if (Math.abs((xs[i] / total) * 100 - px) < Math.abs((xs[best] / total) * 100 - px)) best = i;
    return anchors[best];
  };
  const cuts = [];
  for (let i = 1; i < anchors.length; i++) {
    const gap = anchors[i] - anchors[i - 1];
    if (gap >= CUT_MS) cuts.push({ x: ((xs[i - 1] + xs[i]) / 2 / total) * 100, ms: gap });
  }
  return { x, at, cuts };
}

/**
 * The `at` of a page address's query (`?at=ISO`), or null.
 * @param {string} search  `location.search`
 */
export function atOfSearch(search) {
  return new URLSearchParams(search).get('at');
}

/**
 * The page's address showing `ms` (`?at=ISO`, the other parameters and the hash kept): what
 * `history.replaceState` writes, so the address always says the instant on screen.
 * @param {string} href
 * @param {number} ms
 */
export function addressAt(href, ms) {
  const url = new URL(href);
  url.searchParams.set('at', isoOf(ms));
  return url.toString();
}
