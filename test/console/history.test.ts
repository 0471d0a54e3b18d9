import { describe, expect, it } from 'vitest';
import {
  addressAt,
  atOfSearch,
  axisScale,
  groupsBy,
  happenedBy,
  isoOf,
  markGroups,
  parseInstant,
  step,
  stops,
} from '../../console/history.js';

/** The time travel's pure part (console/history.js): what `At` means, the stops, the axis. */
const T0 = Date.parse('2026-01-01T00:00:00Z');
const S = 1000;
const END = T0 + 25 * 3600 * S;
const mark = (ms: number, type = 'call.started') => ({ at: isoOf(ms), id: `evt_${ms}`, type, subject: 'call_x', call: 'call_x' });

describe('parseInstant', () => {
  it('reads ISO 8601 with a zone, without one (UTC), the page’s own stamps, and offsets from the start', () => {
    expect(parseInstant('2026-01-01T00:01:05Z', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant(' 2026-01-01T00:01:05.250Z ', T0, END)).toEqual({ ok: true, ms: T0 + 65_250 });
    expect(parseInstant('2026-01-01T02:01:05+02:00', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant('2026-01-01 00:01:05', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant('2026-01-01T00:01', T0, END)).toEqual({ ok: true, ms: T0 + 60 * S });
    expect(parseInstant('Jan 1 00:01:05', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant('jan 2, 00:00:00.5', T0, END)).toEqual({ ok: true, ms: T0 + 24 * 3600 * S + 500 });
    expect(parseInstant('+65s', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant('+1m 5s', T0, END)).toEqual({ ok: true, ms: T0 + 65 * S });
    expect(parseInstant('+1h30m', T0, END)).toEqual({ ok: true, ms: T0 + 5400 * S });
    expect(parseInstant('+250ms', T0, END)).toEqual({ ok: true, ms: T0 + 250 });
  });

  it('says what to type for anything else, and for an instant outside the session', () => {
    const empty = parseInstant('  ', T0, END);
    expect(empty).toEqual({
      ok: false,
      error: expect.stringMatching(/^Enter an instant from 2026-01-01T00:00:00.000Z \(the start\) to 2026-01-02T01:00:00.000Z/),
    });
    for (const text of ['yesterday', '2026-13-01T00:00:00Z', '65s', '+', '+5 parsecs', '2026-01-01T00:00:00Zjunk']) {
      const parsed = parseInstant(text, T0, END);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/is not an instant: type an ISO 8601 time such as 2026-01-01T00:00:00.000Z, or \+30s/);
    }
    expect(parseInstant('2025-12-31T23:59:59Z', T0, END)).toEqual({
      ok: false,
      error:
        '2025-12-31T23:59:59.000Z is outside the session: give an instant from 2026-01-01T00:00:00.000Z (the start) to 2026-01-02T01:00:00.000Z (when the snapshot was taken).',
    });
    expect(parseInstant('+26h', T0, END).ok).toBe(false);
    expect(parseInstant('2026-01-02T01:00:00Z', T0, END)).toEqual({ ok: true, ms: END }); // the end itself is in
  });
});

describe('stepping from event to event', () => {
  // Two events at one instant, one later; the session ends a day after.
  const marks = [mark(T0), mark(T0 + 5 * S), mark(T0 + 5 * S, 'call.answered'), mark(T0 + 65 * S, 'call.completed')];
  const instants = stops(marks, T0, END);

  it('stops at each distinct instant, the start and the end', () => {
    expect(instants).toEqual([T0, T0 + 5 * S, T0 + 65 * S, END]);
    expect(stops([], T0, END)).toEqual([T0, END]);
  });

  it('goes to the next or previous stop from anywhere, and nowhere past the ends', () => {
    expect(step(instants, T0, 1)).toBe(T0 + 5 * S);
    expect(step(instants, T0 + 3 * S, 1)).toBe(T0 + 5 * S);
    expect(step(instants, T0 + 3 * S, -1)).toBe(T0);
    expect(step(instants, T0 + 5 * S, -1)).toBe(T0);
    expect(step(instants, T0 + 65 * S, 1)).toBe(END);
    expect(step(instants, END, 1)).toBeNull();
    expect(step(instants, T0, -1)).toBeNull();
  });

  it('counts the events that had happened by an instant (the last is the one highlighted)', () => {
    expect(happenedBy(marks, T0 - 1)).toBe(0);
    expect(happenedBy(marks, T0)).toBe(1);
    expect(happenedBy(marks, T0 + 5 * S - 1)).toBe(1);
    expect(happenedBy(marks, T0 + 5 * S)).toBe(3);
    expect(happenedBy(marks, END)).toBe(4);
  });
});

describe('the time axis', () => {
  it('keeps the order of time, and draws a quiet day shorter than the seconds around it deserve linearly', () => {
    const instants = [T0, T0 + 5 * S, T0 + 65 * S, T0 + 95 * S, END];
    const { x, cuts } = axisScale(T0, END, instants);
    const xs = instants.map(x);
    expect(xs[0]).toBe(0);
    expect(xs[4]).toBe(100);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!).toBeGreaterThan(xs[i - 1]!);
    // Linearly, the first 95 s of a 25 h session would be 0.1 % of the axis; here they get a fair share.
    expect(xs[3]!).toBeGreaterThan(30);
    // Within a stretch, time still runs forward.
    expect(x(T0 + 2 * S)).toBeGreaterThan(0);
    expect(x(T0 + 2 * S)).toBeLessThan(xs[1]!);
    expect(x(T0 + 3600 * S)).toBeGreaterThan(xs[3]!);
    // The quiet day is marked as a cut with its length.
    expect(cuts).toHaveLength(1);
    expect(cuts[0]!.ms).toBe(END - T0 - 95 * S);
    expect(cuts[0]!.x).toBeGreaterThan(xs[3]!);
  });

  it('maps a position back to the nearest stop (a click on the axis)', () => {
    const instants = [T0, T0 + 5 * S, T0 + 65 * S, END];
    const scale = axisScale(T0, END, instants);
    for (const t of instants) expect(scale.at(scale.x(t))).toBe(t);
    expect(scale.at(0)).toBe(T0);
    expect(scale.at(100)).toBe(END);
  });

  it('draws a session with no time at all (taken at its start)', () => {
    const scale = axisScale(T0, T0, [T0]);
    expect(scale.x(T0)).toBe(0);
    expect(scale.cuts).toEqual([]);
  });
});

describe('the axis marks', () => {
  it('are one per event up to the most the axis draws', () => {
    expect(markGroups([0, 0, 50, 100], 4)).toEqual([
      { first: 0, last: 0 },
      { first: 1, last: 1 },
      { first: 2, last: 2 },
      { first: 3, last: 3 },
    ]);
  });

  it('past it, one per run of events drawn close together, every event in one, about as many as the most', () => {
    const positions = Array.from({ length: 285_000 }, (_, i) => (i / 285_000) ** 2 * 100);
    const groups = markGroups(positions, 2000);
    expect(groups.length).toBeLessThanOrEqual(2001);
    expect(groups.length).toBeGreaterThan(1000);
    expect(groups[0]!.first).toBe(0);
    expect(groups.at(-1)!.last).toBe(positions.length - 1);
    for (let i = 1; i < groups.length; i++) {
      expect(groups[i]!.first).toBe(groups[i - 1]!.last + 1);
      expect(positions[groups[i]!.first]! - positions[groups[i - 1]!.first]!).toBeGreaterThanOrEqual(100 / 2000);
    }
    // A thousand events at one instant are one mark.
    expect(markGroups([...Array(1000).fill(10), 90], 10)).toEqual([
      { first: 0, last: 999 },
      { first: 1000, last: 1000 },
    ]);
  });

  it('count as past those holding one of the events that happened', () => {
    const groups = [
      { first: 0, last: 2 },
      { first: 3, last: 3 },
      { first: 4, last: 9 },
    ];
    expect([0, 1, 3, 4, 5, 10].map((count) => groupsBy(groups, count))).toEqual([0, 1, 1, 2, 3, 3]);
  });
});

describe('the page address', () => {
  it('reads ?at= and writes it, keeping the other parameters and the hash', () => {
    expect(atOfSearch('?at=2026-01-01T00%3A01%3A05Z&x=1')).toBe('2026-01-01T00:01:05Z');
    expect(atOfSearch('?session=s')).toBeNull();
    const next = new URL(addressAt('http://127.0.0.1:9/__sandbox/console?at=old&x=1#calls/call_x', T0 + 65 * S));
    expect(next.searchParams.get('at')).toBe('2026-01-01T00:01:05.000Z');
    expect(next.searchParams.get('x')).toBe('1');
    expect(next.hash).toBe('#calls/call_x');
  });
});
