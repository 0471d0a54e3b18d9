import { describe, expect, it } from 'vitest';
import { Invalid } from '../core/schema.js';
import { emptyCoverage, mergeCoverage, parseCoverage, withUncovered, type CoverageReport } from './coverage-report.js';

/** A small report: `counts` fills every section with the same items. */
function report(sandboxes: number, counts: Record<string, number>, endpoint: Record<string, number> = {}): CoverageReport {
  return withUncovered({
    format: 'svc-sandbox-coverage',
    version: 1,
    sandboxes,
    endpoints: { 'POST /v1/calls': endpoint },
    calls: { states: { ringing: counts.a ?? 0 }, transitions: {}, dispositions: { ...counts }, answeredBy: {} },
    messages: { outcomes: {} },
    webhooks: { retried: counts.b ?? 0 },
    events: {},
    errors: {},
  });
}

describe('mergeCoverage', () => {
  const a = report(1, { a: 1, b: 0 }, { '201': 2, '429': 0 });
  const b = report(2, { a: 0, b: 0, c: 3 }, { '201': 0, '429': 1, '503': 0 });
  const c = report(1, { b: 5 });

  it('adds counts item by item over the union of items; uncovered is what no report exercised', () => {
    const union = mergeCoverage(a, b);
    expect(union.sandboxes).toBe(3);
    expect(union.calls.dispositions).toEqual({ a: 1, b: 0, c: 3 });
    expect(union.endpoints['POST /v1/calls']).toEqual({ '201': 2, '429': 1, '503': 0 });
    expect(union.uncovered).toEqual(['endpoints: POST /v1/calls 503', 'calls.dispositions: b', 'webhooks: retried']);
  });

  it('is pure, commutative and associative in its counts, and the empty report is its unit', () => {
    const before = JSON.stringify([a, b, c]);
    const ab = mergeCoverage(a, b);
    expect(JSON.stringify([a, b, c])).toBe(before);
    expect(mergeCoverage(b, a)).toEqual(ab);
    expect(mergeCoverage(mergeCoverage(a, b), c)).toEqual(mergeCoverage(a, mergeCoverage(b, c)));
    expect(mergeCoverage(a, b, c)).toEqual(mergeCoverage(c, b, a));
    expect(mergeCoverage(a, emptyCoverage())).toEqual(a);
    expect(mergeCoverage()).toEqual(emptyCoverage());
  });

  it('ignores the uncovered lists it is given: they are derived from the counts', () => {
    expect(mergeCoverage({ ...a, uncovered: ['made up'] }).uncovered).toEqual(a.uncovered);
  });
});

describe('parseCoverage', () => {
  it('reads a report back from its JSON', () => {
    const a = report(1, { a: 1 }, { '201': 1 });
    expect(parseCoverage(JSON.parse(JSON.stringify(a)))).toEqual(a);
  });

  it('reads a version 1 report written before `gaps` existed, and makes the derived lists again from the counts', () => {
    const a = report(1, { a: 1, b: 0 }, { '201': 1, '503': 0 });
    const { gaps, ...older } = a;
    expect(gaps.length).toBeGreaterThan(0);
    expect(parseCoverage(JSON.parse(JSON.stringify(older)))).toEqual(a);
    expect(parseCoverage({ ...a, uncovered: ['made up'], gaps: [] })).toEqual(a);
  });

  it('refuses what is not a report, or a version it does not read, saying what to do', () => {
    const refusal = (value: unknown) => {
      try {
        parseCoverage(value);
      } catch (error) {
        return error instanceof Invalid ? error.message : error;
      }
      return 'accepted';
    };
    expect(refusal({ name: 'x' })).toMatch(/`format` must be "svc-sandbox-coverage": this is not a coverage report of svc-sandbox/);
    expect(refusal({ ...report(1, {}), version: 2 })).toMatch(/`version` is 2, and this svc-sandbox reads version 1 reports/);
    expect(refusal({ ...report(1, {}), webhooks: { retried: -1 } })).toMatch(/`webhooks.retried` must be an integer from 0/);
  });
});
