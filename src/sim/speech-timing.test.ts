import { describe, expect, it } from 'vitest';
import { planSegments, trimSegments } from './speech-timing.js';

const lines = [
  { speaker: 'a', text: 'one two three four five six' }, // 6 words: 2.1 s
  { speaker: 'b', text: 'yes' }, // 1 word: at least 1 s
];

describe('planSegments', () => {
  it('paces untimed lines naturally when the talk time is unknown', () => {
    expect(planSegments(lines, null)).toEqual([
      { speaker: 'a', text: lines[0]!.text, startMs: 500, endMs: 2600 },
      { speaker: 'b', text: 'yes', startMs: 3200, endMs: 4200 },
    ]);
  });

  it('scales to fill a known talk time, ending about a second before it', () => {
    const plan = planSegments(lines, 10_400); // natural length 5.2 s: twice as slow
    expect(plan.map((s) => [s.startMs, s.endMs])).toEqual([
      [1000, 5200],
      [6400, 8400],
    ]);
  });

  it('never slower than half or faster than twice the natural pace', () => {
    expect(planSegments(lines, 600_000).at(-1)!.endMs).toBe(8400);
    expect(planSegments(lines, 1_000).at(-1)!.endMs).toBe(2100);
  });

  it('keeps given times', () => {
    expect(planSegments([{ speaker: 'a', text: 'x', start: 1.25, end: 2 }], 5_000)).toEqual([
      { speaker: 'a', text: 'x', startMs: 1250, endMs: 2000 },
    ]);
  });
});

describe('trimSegments', () => {
  it('drops lines after the hang-up and cuts the one in progress', () => {
    const plan = planSegments(lines, null);
    expect(trimSegments(plan, 2000)).toEqual([{ speaker: 'a', text: lines[0]!.text, startMs: 500, endMs: 2000 }]);
    expect(trimSegments(plan, 500)).toEqual([]);
    expect(trimSegments(plan, 60_000)).toEqual(plan);
  });
});
