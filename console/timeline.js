import { clock, day, h, plural, seconds, span, stamp } from './dom.js';

/**
 * The calls' timelines, drawn to scale on the virtual clock. One time axis is shared by
 * every call, so calls line up against each other; each call is a track of
 *
 *   a ringing bar (created_at → answered_at, or → ended_at when nobody answered),
 *   a talking bar (answered_at → ended_at) and an end cap at ended_at,
 *   a recording-ready dot and a transcript-ready diamond,
 *   webhook attempt marks under the bar (a filled dot delivered, a cross failed),
 *
 * placed in percent of the axis through CSS custom properties (`--x`, `--w`): the page's
 * Content-Security-Policy allows those (no inline style attributes). The picture is
 * `aria-hidden`; each call carries the same facts as a visually hidden list.
 *
 * Two axes:
 * - "Compact" (default): the calls' lives (ringing to transcript ready, or to now while a
 *   call runs) are drawn at one common scale, and idle stretches between them are cut out
 *   and shown as a labelled break ("24 h 58 m"), so a 65 s call stays readable next to one
 *   placed a day later. Webhook attempts that fall in a cut stretch (retries go on for
 *   17 h) are counted in a chip on the break, those after the last call in a chip at the end.
 * - "Linear": one unbroken scale from the first call to the later of now and the last
 *   webhook attempt.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR,
  DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY, 56 * DAY, 112 * DAY, 364 * DAY,
];
/** The most calls drawn (newest first); the rest are counted. */
const MAX_CALLS = 60;
/** Width of one break, in percent of the track (less when there are many). */
const BREAK = 4.5;
/** Space kept between two axis labels, in pixels: a label that would come closer is dropped (its grid line stays). */
const LABEL_GAP = 10;
/** About how wide an axis label is, in pixels (11 px monospace). */
const labelWidth = (text) => text.length * 6.7 + 10;

const ms = (iso) => (iso ? Date.parse(iso) : NaN);
const finite = (values) => values.filter((v) => Number.isFinite(v));

/** When a call's own life ends: its end, its recording and transcript being ready, or now while it runs. */
function lifeEnd(call, now) {
  const t = call.timeline ?? {};
  return Math.max(...finite([call.ended_at ? ms(call.ended_at) : now, ms(t.recording?.ready_at), ms(t.transcript?.ready_at), ms(call.created_at)]));
}

/** Sorted intervals merged when they overlap or are at most `gap` apart. */
function merge(intervals, gap) {
  const out = [];
  for (const [a, b] of [...intervals].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && a - last[1] <= gap) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * The shared axis: `{segments, breaks, ticks, x(t), locate(t)}`, positions in percent.
 * @param {any[]} calls
 * @param {number} now  the session's virtual time (ms)
 * @param {'compact' | 'linear'} mode
 * @param {number} [width]  the tracks' width in pixels, to keep tick labels apart
 */
export function axisFor(calls, now, mode, width = 800) {
  const lives = calls.map((c) => [ms(c.created_at), lifeEnd(c, now)]).filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
  if (lives.length === 0) lives.push([now, now]);
  let spans;
  if (mode === 'linear') {
    const hooks = finite(calls.flatMap((c) => (c.timeline?.webhooks ?? []).map((w) => ms(w.at))));
    spans = [[Math.min(...lives.map((l) => l[0])), Math.max(now, ...hooks, ...lives.map((l) => l[1]))]];
  } else {
    const raw = merge(lives, 0);
    const active = raw.reduce((sum, [a, b]) => sum + (b - a), 0);
    spans = merge(raw, Math.max(20 * SECOND, active * 0.5));
  }
  // Padding, and a least width so an instant (a call placed this very moment) is visible.
  const base = Math.max(spans.reduce((sum, [a, b]) => sum + (b - a), 0), 10 * SECOND);
  const pad = base * 0.025;
  const least = base * 0.08;
  spans = merge(
    spans.map(([a, b]) => [a - pad, Math.max(b, a + least) + pad]),
    0,
  );

  const total = spans.reduce((sum, [a, b]) => sum + (b - a), 0);
  const breakWidth = spans.length > 1 ? Math.min(BREAK, 36 / (spans.length - 1)) : 0;
  const room = 100 - breakWidth * (spans.length - 1);
  const scale = room / total;
  let cursor = 0;
  const segments = spans.map(([from, to]) => {
    const seg = { from, to, x0: cursor, x1: cursor + (to - from) * scale };
    cursor = seg.x1 + breakWidth;
    return seg;
  });
  const breaks = segments.slice(1).map((seg, i) => ({ from: segments[i].to, to: seg.from, x0: segments[i].x1, x1: seg.x0 }));
  const first = segments[0];
  const last = segments[segments.length - 1];

  /** Where an instant falls: in a segment (`x`), in a break (`index`), or outside. */
  const locate = (t) => {
    if (t < first.from) return { kind: 'before', x: first.x0 + (t - first.from) * scale };
    if (t > last.to) return { kind: 'after', x: last.x1 + (t - last.to) * scale };
    for (const seg of segments) if (t <= seg.to) return t >= seg.from ? { kind: 'in', x: seg.x0 + (t - seg.from) * scale } : null;
    return null;
  };
  const x = (t) => {
    const place = locate(t);
    if (place) return place.x;
    const index = breaks.findIndex((b) => t > b.from && t < b.to);
    return (breaks[index].x0 + breaks[index].x1) / 2;
  };
  const gapOf = (t) => breaks.findIndex((b) => t > b.from && t < b.to);

  // Ticks: one step for the whole axis (the scale is common); labels that would touch drop.
  const step = STEPS.find((s) => total / s <= 7) ?? STEPS[STEPS.length - 1];
  // Labels kept so far, as [left px, right px]: the breaks' first. A label that would stick
  // out of an end of the axis is aligned inside it instead of centred on its tick.
  const px = (percent) => (percent / 100) * width;
  const extent = (centre, w) => (centre - w / 2 < -16 ? [centre, centre + w, ' start'] : centre + w / 2 > width + 16 ? [centre - w, centre, ' end'] : [centre - w / 2, centre + w / 2, '']);
  const taken = breaks.map((b) => extent(px((b.x0 + b.x1) / 2), labelWidth(span(b.to - b.from))));
  const ticks = [];
  let previousDay = spans.length > 1 || day(first.from) !== day(last.to) ? '' : day(first.from);
  for (const seg of segments) {
    for (let t = Math.ceil(seg.from / step) * step; t <= seg.to; t += step) {
      const at = x(t);
      const d = day(t);
      let label = step >= DAY ? d : step < MINUTE || t % MINUTE ? clock(t) : clock(t).slice(0, 5);
      if (step < DAY && d !== previousDay) label = `${d} ${label}`;
      const [left, right, align] = extent(px(at), labelWidth(label));
      if (taken.every(([l, r]) => right + LABEL_GAP <= l || left >= r + LABEL_GAP)) {
        previousDay = d;
        taken.push([left, right]);
      } else label = null;
      ticks.push({ t, x: at, label, align });
    }
  }
  return { mode, segments, breaks, ticks, x, locate, gapOf };
}

const pct = (n) => `${n.toFixed(3)}%`;
const clamp = (n) => Math.min(100, Math.max(0, n));

/** A positioned piece of a track. */
function at(cls, x, title, ...children) {
  return h('span', { class: cls, vars: { '--x': pct(clamp(x)) }, title }, ...children);
}
function bar(cls, x0, x1, title) {
  return h('span', { class: `bar ${cls}`, vars: { '--x': pct(clamp(x0)), '--w': pct(Math.max(0, clamp(x1) - clamp(x0))) }, title });
}
function band(b) {
  return h('span', { class: 'cut', vars: { '--x': pct(b.x0), '--w': pct(b.x1 - b.x0) } });
}

/** The axis row: tick labels and breaks, shared by every call below it. */
export function renderAxis(axis, now) {
  const place = axis.locate(now);
  return h(
    'div',
    { class: 'axis-row', 'aria-hidden': 'true' },
    h('div', { class: 'axis-caption' }, 'Call'),
    h(
      'div',
      { class: 'axis' },
      axis.ticks
        .filter((tick) => tick.label)
        .map((tick) => at(`tick${tick.align}`, tick.x, undefined, tick.label)),
      axis.breaks.map((b) => [band(b), at('cut-label', (b.x0 + b.x1) / 2, `${span(b.to - b.from)} with no call activity, cut out`, span(b.to - b.from))]),
      place?.kind === 'in' ? at('now-flag', place.x, `now: ${stamp(new Date(now).toISOString())}`) : null,
    ),
  );
}

/** One call: its head (id, parties, status, outcome), its track, and the same facts as text. */
export function renderCall(call, axis, now) {
  const t = call.timeline ?? { recording: null, transcript: null, webhooks: [] };
  const created = ms(call.created_at);
  const answered = ms(call.answered_at);
  const ended = ms(call.ended_at);
  const live = !Number.isFinite(ended);
  const ringEnd = Number.isFinite(answered) ? answered : Number.isFinite(ended) ? ended : now;
  const facts = [];
  const pieces = [];

  for (const tick of axis.ticks) pieces.push(at('grid', tick.x));
  for (const b of axis.breaks) pieces.push(band(b));
  const nowPlace = axis.locate(now);
  if (nowPlace?.kind === 'in') pieces.push(at('now-line', nowPlace.x));

  pieces.push(bar(`ringing${live && !Number.isFinite(answered) ? ' open' : ''}`, axis.x(created), axis.x(ringEnd), `ringing ${stamp(call.created_at)} → ${stamp(new Date(ringEnd).toISOString())} (${span(ringEnd - created)})`));
  facts.push(`Ringing from ${stamp(call.created_at)}${live && !Number.isFinite(answered) ? ', still ringing' : ` for ${span(ringEnd - created)}`}.`);
  if (Number.isFinite(answered)) {
    const talkEnd = Number.isFinite(ended) ? ended : now;
    pieces.push(bar(`talking${live ? ' open' : ''}`, axis.x(answered), axis.x(talkEnd), `talking ${stamp(call.answered_at)} → ${live ? 'now' : stamp(call.ended_at)} (${span(talkEnd - answered)})`));
    facts.push(`Answered at ${stamp(call.answered_at)}${call.answered_by ? ` by ${call.answered_by}` : ''}${live ? ', still talking' : `, talked ${span(talkEnd - answered)}`}.`);
  }
  if (Number.isFinite(ended)) {
    pieces.push(at(`end-cap${call.disposition === 'answered' ? '' : ' unanswered'}`, axis.x(ended), `completed at ${stamp(call.ended_at)}: ${call.disposition ?? ''}, ${seconds(call.duration ?? 0)}`));
    facts.push(`Completed at ${stamp(call.ended_at)}: ${call.disposition ?? 'no disposition'}, duration ${seconds(call.duration ?? 0)}.`);
  }
  for (const [kind, item] of [['recording', t.recording], ['transcript', t.transcript]]) {
    if (!item) continue;
    const ready = ms(item.ready_at);
    if (Number.isFinite(ready)) {
      pieces.push(at(`mark ${kind}`, axis.x(ready), `${kind} ${item.id} ready at ${stamp(item.ready_at)}`));
      facts.push(`${kind === 'recording' ? 'Recording' : 'Transcript'} ${item.id} ready at ${stamp(item.ready_at)}.`);
    } else facts.push(`${kind === 'recording' ? 'Recording' : 'Transcript'} ${item.id}: ${item.status}.`);
  }

  const hooks = t.webhooks ?? [];
  /** Attempts not drawn to scale: per break index, and -1 for after the axis. */
  const hidden = new Map();
  for (const w of hooks) {
    const when = ms(w.at);
    const place = axis.locate(when);
    if (place && place.kind !== 'after') {
      const result = w.ok ? `delivered, HTTP ${w.status}` : w.error ?? `HTTP ${w.status}`;
      pieces.push(at(`hook ${w.ok ? 'ok' : 'failed'}`, place.x, `${w.eventType} attempt ${w.attempt} at ${stamp(w.at)}: ${result}`));
      continue;
    }
    const key = place ? -1 : axis.gapOf(when);
    const entry = hidden.get(key) ?? { count: 0, failed: 0 };
    entry.count += 1;
    if (!w.ok) entry.failed += 1;
    hidden.set(key, entry);
  }
  for (const [key, { count, failed }] of hidden) {
    const where = key === -1 ? 'after the last call' : `in the ${span(axis.breaks[key].to - axis.breaks[key].from)} cut out here`;
    const title = `${plural(count, 'webhook attempt')} ${where}: ${failed} failed, ${count - failed} delivered`;
    const cls = `chip${failed ? (failed === count ? ' all-failed' : ' some-failed') : ''}`;
    pieces.push(key === -1 ? h('span', { class: `${cls} after`, title }, `+${count}`) : at(cls, (axis.breaks[key].x0 + axis.breaks[key].x1) / 2, title, String(count)));
  }
  if (hooks.length) {
    const ok = hooks.filter((w) => w.ok).length;
    const lastHook = hooks[hooks.length - 1];
    facts.push(
      `Webhooks: ${plural(hooks.length, 'attempt')}, ${ok} delivered, ${hooks.length - ok} failed; the last, ${lastHook.eventType} attempt ${lastHook.attempt} at ${stamp(lastHook.at)}, ${lastHook.ok ? `delivered (HTTP ${lastHook.status})` : `failed (${lastHook.error ?? `HTTP ${lastHook.status}`})`}.`,
    );
  } else facts.push('No webhook attempts.');

  const outcome = call.status === 'completed' ? [call.disposition, seconds(call.duration)].filter(Boolean).join(' · ') : call.status === 'ringing' ? 'ringing…' : 'talking…';
  const headId = `call-${call.id}`;
  return h(
    'li',
    { class: 'call-row', 'aria-labelledby': headId, 'data-id': call.id, 'data-status': call.status },
    h(
      'div',
      { class: 'call-head' },
      h('div', { class: 'call-line' }, h('span', { class: 'mono call-id', id: headId }, call.id), h('span', { class: `badge status-${call.status}` }, call.status)),
      h('div', { class: 'call-meta' }, h('span', { class: 'dir', title: call.direction }, call.direction === 'inbound' ? '↙' : '↗'), h('span', { class: 'mono' }, `${call.from} → ${call.to}`)),
      h('div', { class: `call-outcome disp-${call.disposition ?? 'none'}` }, outcome),
    ),
    h('div', { class: 'track', 'aria-hidden': 'true' }, pieces),
    h('ul', { class: 'sr-only' }, facts.map((f) => h('li', null, f))),
  );
}

/** The calls panel body: the axis, a row per call, and a note when some calls are not drawn. */
export function renderCalls(calls, now, mode, width) {
  if (calls.length === 0) {
    return h('p', { class: 'empty' }, 'No calls yet. Place one with ', h('code', null, 'POST /v1/calls'), ' and watch it ring, talk and complete as the clock moves.');
  }
  const shown = calls.slice(0, MAX_CALLS);
  const axis = axisFor(shown, now, mode, width);
  return h(
    'div',
    { class: 'timeline' },
    renderAxis(axis, now),
    h('ol', { class: 'calls', 'aria-label': 'Calls, newest first' }, shown.map((c) => renderCall(c, axis, now))),
    calls.length > shown.length ? h('p', { class: 'note' }, `Showing the ${shown.length} newest of ${calls.length} calls.`) : null,
  );
}
