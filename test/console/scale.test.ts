import { describe, expect, it } from 'vitest';
import { callScale, stack } from '../../console/scale.js';

const S = 1000;
const t0 = Date.parse('2026-01-01T00:00:00Z');

describe("the console's call scale", () => {
  it('draws a call to its own life: a 5 s ring and a 60 s talk fill the track at 1:12', () => {
    const scale = callScale(t0, t0 + 65 * S, []);
    expect(scale.tail).toBeNull();
    expect(scale.x(t0)).toBe(0);
    expect(scale.x(t0 + 65 * S)).toBeCloseTo(100);
    const ring = scale.x(t0 + 5 * S) - scale.x(t0);
    const talk = scale.x(t0 + 65 * S) - scale.x(t0 + 5 * S);
    expect(talk / ring).toBeCloseTo(12);
  });

  it('keeps a 60 s call readable after a 25 h advance: 12 retries over 17 h each at its own place in the tail, evenly spread', () => {
    // The answered call of the issue: ringing 5 s, talking 60 s; its call.completed webhook
    // attempts at the retry schedule's offsets, the last 17 h 3 m 30 s after the first.
    const offsets = [0, 5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 61_410].map((s) => t0 + 65 * S + s * S);
    const scale = callScale(t0, t0 + 65 * S, [t0 + 75 * S, t0 + 95 * S, ...offsets]);
    // The life keeps more than half the track: the talk bar is wide, not 3 px of a day.
    const talk = scale.x(t0 + 65 * S) - scale.x(t0 + 5 * S);
    expect(talk).toBeGreaterThan(50);
    expect(talk / (scale.x(t0 + 5 * S) - scale.x(t0))).toBeCloseTo(12);
    // The tail after the cut: every retry after the end at its own place, growing, within the track.
    expect(scale.cut!.x1).toBeGreaterThan(scale.cut!.x0);
    const xs = offsets.slice(1).map(scale.x);
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThan(1.2);
    expect(xs[xs.length - 1]).toBeCloseTo(100);
    expect(xs[0]).toBeGreaterThan(scale.cut!.x1);
    // Its ticks say how far after the end, up to the last mark.
    expect(scale.ticks.map((t) => t.label)).toEqual(['+10 s', '+1 m', '+10 m', '+1 h', '+6 h']);
  });

  it('a still-ringing call of 0 s is still visible, and a mark at the very end is on the life', () => {
    const instant = callScale(t0, t0, []);
    expect(instant.x(t0 + 500)).toBeCloseTo(50);
    const scale = callScale(t0, t0 + 10 * S, [t0 + 10 * S]);
    expect(scale.tail).toBeNull();
    expect(scale.x(t0 + 10 * S)).toBe(100);
  });

  it('stacks marks that would overlap into lanes, so a failed attempt does not hide a delivered one', () => {
    expect(stack([10, 10.5, 11, 50])).toEqual([0, 1, 2, 0]);
    expect(stack([10, 10, 10, 10])).toEqual([0, 1, 2, 2]);
  });
});
