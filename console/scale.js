/**
 * The time scale of one call's timeline (pure: no DOM). Each call is drawn to its own life,
 * from its creation to its end (or now while it runs), so a 60 s call fills its track whatever
 * else happened in the session. Things that happen long after (a recording ready 10 s later, a
 * transcript 30 s later, webhook retries spread over 17 hours) get a short stretch of their own
 * after a cut: the idle time between is cut out and marked with its length.
 *
 * Within every stretch the scale is the same (so a 5 s ring and a 60 s talk keep their 1:12
 * ratio); the cuts take a fixed width each.
 */

const SECOND = 1000;

/**
 * @typedef {{ from: number, to: number, x0: number, x1: number }} Segment   an uncut stretch: [from, to] ms drawn at [x0, x1] %
 * @typedef {{ from: number, to: number, x0: number, x1: number }} Break     a cut: the idle time [from, to] drawn as [x0, x1] %
 * @typedef {{ segments: Segment[], breaks: Break[], x: (t: number) => number, start: number, end: number }} Scale
 */

/**
 * Intervals sorted and merged when they overlap or lie at most `gap` apart.
 * @param {Array<[number, number]>} intervals
 * @param {number} gap
 * @returns {Array<[number, number]>}
 */
export function merge(intervals, gap) {
  /** @type {Array<[number, number]>} */
  const out = [];
  for (const [a, b] of [...intervals].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && a - last[1] <= gap) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * The scale of one call's track.
 * @param {number} start  when the call was placed (ms)
 * @param {number} end    when its life ends: its end, or now while it runs (ms)
 * @param {number[]} marks  instants drawn on the track besides the life (ms): media ready, webhook attempts
 * @param {{ breakWidth?: number }} [options]  the width of one cut, in % (less when there are many)
 * @returns {Scale}
 */
export function callScale(start, end, marks, options = {}) {
  const life = Math.max(end - start, SECOND);
  const lifeEnd = start + life;
  // A mark within half a life of another stretch joins it; farther, the time between is cut.
  const gap = life * 0.5;
  const lone = life * 0.03; // half the width given to a mark that stands alone
  /** @type {Array<[number, number]>} */
  const intervals = [[start, lifeEnd], ...marks.filter((t) => Number.isFinite(t)).map((t) => /** @type {[number, number]} */ ([t, t]))];
  const spans = merge(intervals, gap).map(([a, b]) => /** @type {[number, number]} */ ([a === start ? a : a - lone, b === lifeEnd ? b : b + lone]));
  const stretches = merge(spans, 0);
  const cuts = stretches.length - 1;
  const breakWidth = cuts > 0 ? Math.min(options.breakWidth ?? 3, 36 / cuts) : 0;
  const room = 100 - breakWidth * cuts;
  const total = stretches.reduce((sum, [a, b]) => sum + (b - a), 0);
  const k = room / total;
  let cursor = 0;
  const segments = stretches.map(([from, to]) => {
    const seg = { from, to, x0: cursor, x1: cursor + (to - from) * k };
    cursor = seg.x1 + breakWidth;
    return seg;
  });
  const breaks = segments.slice(1).map((seg, i) => ({ from: segments[i].to, to: seg.from, x0: segments[i].x1, x1: seg.x0 }));
  /** @param {number} t */
  const x = (t) => {
    if (t <= segments[0].from) return 0;
    for (const seg of segments) if (t <= seg.to) return t >= seg.from ? seg.x0 + (t - seg.from) * k : seg.x0 - breakWidth / 2;
    return 100;
  };
  return { segments, breaks, x, start, end: segments[segments.length - 1].to };
}

/**
 * Lanes for marks that would overlap: each mark gets the first lane where it keeps `minGap`
 * (in %) from the previous mark of that lane; at most `lanes` lanes (the last takes the rest).
 * @param {number[]} xs  positions in %, in any order
 * @param {number} [minGap]
 * @param {number} [lanes]
 * @returns {number[]} the lane of each position, in the order given
 */
export function stack(xs, minGap = 1.2, lanes = 3) {
  const order = xs.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
  const lastX = Array(lanes).fill(-Infinity);
  const out = Array(xs.length).fill(0);
  for (const [x, i] of order) {
    let lane = lastX.findIndex((last) => x - last >= minGap);
    if (lane === -1) lane = lanes - 1;
    lastX[lane] = x;
    out[i] = lane;
  }
  return out;
}
