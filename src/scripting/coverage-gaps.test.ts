import { describe, expect, it } from 'vitest';
import { coverageGaps } from './coverage-gaps.js';
import { withUncovered, type CoverageReport } from './coverage-report.js';
import { coverageSummary } from './coverage-summary.js';

/**
 * A report of a suite that placed answered calls and hit one 404: it never reached voicemail, a
 * failed SMS, a transfer, transcript.ready or a failed or canceled disposition, and never saw a
 * 5xx, which only an injected fault answers.
 */
function answeredCallsOnly(): CoverageReport {
  return withUncovered({
    format: 'svc-sandbox-coverage',
    version: 1,
    sandboxes: 2,
    endpoints: {
      'POST /v1/calls': { '201': 3, '400': 0, '422': 0, '429': 0, '500': 0, '503': 0 },
      'GET /v1/calls/{id}': { '200': 1, '404': 1, '500': 0 },
      'POST /v1/calls/{id}/transfer': { '200': 0, '422': 0, '503': 0 },
    },
    calls: {
      states: { ringing: 3, answered: 3, completed: 3 },
      transitions: { 'answered → answered (TRANSFERRED)': 0, 'answered → completed (after talkTime)': 3 },
      dispositions: { answered: 3, busy: 1, failed: 0, canceled: 0 },
      answeredBy: { human: 3, voicemail: 0 },
    },
    messages: { outcomes: { delivered: 1, failed: 0 } },
    webhooks: { delivered_first_time: 3, retried: 0 },
    events: { 'call.completed': 3, 'transcript.ready': 0 },
    errors: { not_found: 1, rate_limited: 0, internal_error: 0, service_unavailable: 0, network_error: 0 },
  });
}

describe('coverageGaps', () => {
  const r = answeredCallsOnly();

  it('leads with what the suite never made happen, each with how a test reaches it, and keeps what needs a fault for last', () => {
    expect(coverageGaps(r).map((gap) => [gap.needs, gap.title, gap.never])).toEqual([
      ['behaviour', 'How calls ended', ['failed', 'canceled']],
      ['behaviour', 'Who answered', ['voicemail']],
      ['behaviour', 'How messages ended', ['failed']],
      ['behaviour', 'Call transitions', ['answered → answered (TRANSFERRED)']],
      ['behaviour', 'Events', ['transcript.ready']],
      ['behaviour', 'Webhook deliveries', ['retried']],
      ['behaviour', 'Operations never called', ['POST /v1/calls/{id}/transfer']],
      ['behaviour', 'Answers never given', ['POST /v1/calls 400', 'POST /v1/calls 422', 'POST /v1/calls 429']],
      ['behaviour', 'Error codes never answered', ['rate_limited']],
      ['fault', 'Server errors (5xx) never answered', ['POST /v1/calls 500', 'POST /v1/calls 503', 'GET /v1/calls/{id} 500']],
      ['fault', 'Error codes only a fault produces', ['internal_error', 'service_unavailable', 'network_error']],
    ]);
    for (const gap of coverageGaps(r)) expect(gap.how, gap.title).toMatch(/\w{3,}.{30,}/);
    expect(coverageGaps(r).find((g) => g.title === 'How calls ended')!.how).toMatch(/network\.setBehavior\(to, \{ outcome: 'busy' \}\)/);
    expect(coverageGaps(r).find((g) => g.needs === 'fault')!.how).toMatch(/faults\.inject\(.*chaos/s);
  });

  it('is the report: `gaps` is made by it, and every uncovered item is in one gap, or is a status of an operation never called', () => {
    expect(r.gaps).toEqual(coverageGaps(r));
    const listed = r.gaps.flatMap((gap) =>
      gap.never.map((item) => (gap.section === 'endpoints' ? `endpoints: ${item}` : `${gap.section}: ${item}`)),
    );
    expect(new Set(listed).size).toBe(listed.length);
    const neverCalled = r.gaps.find((g) => g.title === 'Operations never called')!.never;
    const rest = r.uncovered.filter((item) => !listed.includes(item));
    expect(rest).toEqual([
      'endpoints: POST /v1/calls/{id}/transfer 200',
      'endpoints: POST /v1/calls/{id}/transfer 422',
      'endpoints: POST /v1/calls/{id}/transfer 503',
    ]);
    for (const item of rest) expect(neverCalled.some((op) => item.startsWith(`endpoints: ${op} `))).toBe(true);
    // What the gaps list beyond `uncovered` is the operation never called itself (its statuses are the items).
    expect(listed.filter((item) => !r.uncovered.includes(item))).toEqual(['endpoints: POST /v1/calls/{id}/transfer']);
  });

  it('has nothing to show for a report that exercised everything', () => {
    const all = withUncovered({
      ...r,
      endpoints: { 'GET /v1/calls': { '200': 1 } },
      calls: { states: {}, transitions: {}, dispositions: {}, answeredBy: {} },
      messages: { outcomes: {} },
      webhooks: {},
      events: {},
      errors: {},
    });
    expect(all.gaps).toEqual([]);
    expect(coverageSummary(all)).toBe(
      [
        'coverage of 2 sandboxes: the suite made happen everything a test can reach by itself',
        'in all: 1 of 1 items exercised (100%)',
      ].join('\n'),
    );
  });
});

describe('coverageSummary', () => {
  const r = answeredCallsOnly();

  it('prints the gaps in their order: the suite never made happen, then only a fault produces, then the totals', () => {
    const lines = coverageSummary(r).split('\n');
    expect(lines[0]).toBe('coverage of 2 sandboxes: what the suite never made happen (a test can reach each)');
    expect(lines[1]).toBe('  How calls ended: never failed, canceled');
    expect(lines[2]).toMatch(/^ {4}how: Script the carrier/);
    expect(lines).toContain('  Operations never called: POST /v1/calls/{id}/transfer');
    expect(lines).toContain('  Answers never given: 3 statuses of 1 operation called (the full summary lists them)');
    const faults = lines.indexOf('only an injected fault produces these (no plain request can):');
    expect(faults).toBeGreaterThan(lines.indexOf('  Error codes never answered: never rate_limited'));
    expect(lines[faults + 1]).toBe('  Server errors (5xx) never answered: 3 statuses of 2 operations called (the full summary lists them)');
    expect(lines.at(-1)).toBe('in all: 14 of 34 items exercised (41%); 7 of the 20 never exercised need an injected fault');
  });

  it('full lists the statuses never answered, one operation a line', () => {
    const text = coverageSummary(r, { endpoints: 'full' });
    expect(text).toContain('  Answers never given:\n    POST /v1/calls: never 400, 422, 429\n    how: ');
    expect(text).toContain(
      '  Server errors (5xx) never answered:\n    POST /v1/calls: never 500, 503\n    GET /v1/calls/{id}: never 500\n',
    );
  });
});
