import { describe, expect, it } from 'vitest';
import { callScale, merge, stack } from '../../console/scale.js';

const S = 1000;
const H = 3600 * S;
const t0 = Date.parse('2026-01-01T00:00:00Z');

describe("the console's call scale", () => {
  it('draws a call to its own life: a 5 s ring and a 60 s talk fill the track at 1:12', () => {
    const scale = callScale(t0, t0 + 65 * S, []);
    expect(scale.breaks).toEqual([]);
    expect(scale.x(t0)).toBe(0);
    expect(scale.x(t0 + 65 * S)).toBeCloseTo(100);
    const ring = scale.x(t0 + 5 * S) - scale.x(t0);
    const talk = scale.x(t0 + 65 * S) - scale.x(t0 + 5 * S);
    expect(talk / ring).toBeCloseTo(12);
  });

  it('keeps a 60 s call readable after a 25 h advance: 12 retries over 17 h are cut apart, each mark at its own place', () => {
    // The answered call of the issue: ringing 5 s, talking 60 s; webhook attempts at the
    // retry schedule's offsets, the last 17 h 3 m 30 s after the first.
    const offsets = [0, 5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 61_410].map((s) => t0 + 5 * S + s * S);
    const scale = callScale(t0, t0 + 65 * S, [t0 + 75 * S, t0 + 95 * S, ...offsets]);
    // The life keeps most of the track: the talk bar is wide, not 3 px of a day.
    const talk = scale.x(t0 + 65 * S) - scale.x(t0 + 5 * S);
    expect(talk).toBeGreaterThan(25);
    const ring = scale.x(t0 + 5 * S) - scale.x(t0);
    expect(talk / ring).toBeCloseTo(12);
    expect(scale.breaks.length).toBeGreaterThan(3);
    // Every break is idle time, and positions only ever grow.
    for (const b of scale.breaks) expect(b.to).toBeGreaterThan(b.from);
    const xs = offsets.map(scale.x);
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1]!);
    // Attempts hours apart are at least a break apart on the track.
    for (let i = 6; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThan(3);
    expect(Math.max(...xs)).toBeLessThanOrEqual(100);
  });

  it('places an instant in a cut at the middle of the cut, and a still-ringing call of 0 s is still visible', () => {
    const scale = callScale(t0, t0 + 10 * S, [t0 + 2 * H]);
    const [cut] = scale.breaks;
    expect(scale.x(t0 + H)).toBeCloseTo((cut!.x0 + cut!.x1) / 2);
    const instant = callScale(t0, t0, []);
    expect(instant.x(t0 + 500)).toBeGreaterThan(0);
  });

  it('merges intervals that touch or lie within the gap', () => {
    expect(merge([[5, 6], [0, 2], [3, 4]], 1)).toEqual([[0, 6]]);
    expect(merge([[0, 1], [5, 6]], 1)).toEqual([[0, 1], [5, 6]]);
  });

  it('stacks marks that would overlap into lanes, so a failed attempt does not hide a delivered one', () => {
    expect(stack([10, 10.5, 11, 50])).toEqual([0, 1, 2, 0]);
    expect(stack([10, 10, 10, 10])).toEqual([0, 1, 2, 2]);
  });
});
