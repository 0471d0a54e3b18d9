/**
 * The time scale of one call's timeline (pure: no DOM). Each call is drawn to its own life,
 * from its creation to its end (or now while it runs), at one linear scale, so a 60 s call
 * fills most of its track whatever else happened in the session, and a 5 s ring and a 60 s
 * talk keep their 1:12 ratio.
 *
 * What happens after the call's end (its recording ready 10 s later, its transcript 30 s
 * later, webhook retries spread over 24 hours) is drawn in a tail after a cut, on a
 * logarithmic scale of the time since the end: an exponential retry schedule comes out evenly
 * spaced, each attempt at its own place, and the tail's ticks (+10 s, +1 m, +1 h...) say how
 * far each is.
 */

const SECOND = 1000;
/** The share of the track the life takes when something follows it, the cut, and the tail. */
const LIFE = 58;
const CUT = 3;
/** @type {Array<[number, string]>} */
const TAIL_TICKS = [
  [10 * SECOND, '+10 s'],
  [60 * SECOND, '+1 m'],
  [10 * 60 * SECOND, '+10 m'],
  [3600 * SECOND, '+1 h'],
  [6 * 3600 * SECOND, '+6 h'],
  [24 * 3600 * SECOND, '+1 d'],
  [7 * 24 * 3600 * SECOND, '+1 w'],
];

/**
 * @typedef {{ from: number, to: number, x0: number, x1: number }} Stretch  [from, to] ms drawn at [x0, x1] %
 * @typedef {{ t: number, x: number, label: string }} Tick
 * @typedef {{ life: Stretch, cut: Stretch | null, tail: Stretch | null, ticks: Tick[], x: (t: number) => number }} Scale
 */

/**
 * The scale of one call's track.
 * @param {number} start  when the call was placed (ms)
 * @param {number} end    when its life ends: its end, or now while it runs (ms)
 * @param {number[]} marks  instants drawn besides the life (ms): media ready, webhook attempts
 * @returns {Scale}
 */
export function callScale(start, end, marks) {
  const lifeEnd = Math.max(end, start + SECOND);
  const last = Math.max(lifeEnd, ...marks.filter((t) => Number.isFinite(t)));
  const hasTail = last > lifeEnd;
  const lifeWidth = hasTail ? LIFE : 100;
  const k = lifeWidth / (lifeEnd - start);
  const life = { from: start, to: lifeEnd, x0: 0, x1: lifeWidth };
  const tailFrom = lifeWidth + CUT;
  // log(1 + Δ/1 s), scaled so the last mark is at 100 %.
  const span = Math.log1p((last - lifeEnd) / SECOND);
  const inTail = (/** @type {number} */ t) => tailFrom + ((100 - tailFrom) * Math.log1p((t - lifeEnd) / SECOND)) / span;
  /** @param {number} t */
  const x = (t) => (t <= start ? 0 : t <= lifeEnd ? (t - start) * k : hasTail ? Math.min(100, inTail(t)) : 100);
  const ticks = hasTail
    ? TAIL_TICKS.filter(([d]) => d <= last - lifeEnd).map(([d, label]) => ({ t: lifeEnd + d, x: inTail(lifeEnd + d), label }))
    : [];
  return {
    life,
    cut: hasTail ? { from: lifeEnd, to: lifeEnd, x0: lifeWidth, x1: tailFrom } : null,
    tail: hasTail ? { from: lifeEnd, to: last, x0: tailFrom, x1: 100 } : null,
    ticks,
    x,
  };
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
