import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { timelineSvg, type ScenarioResult, type TimelineEntry } from '../../src/index.js';

/** The timeline picture (`svc-sandbox run --svg`): a pure function, tested for structure and escaping. */

const entry = (offsetMs: number, kind: TimelineEntry['kind'], text: string, more: Partial<TimelineEntry> = {}): TimelineEntry => ({
  offsetMs,
  at: new Date(Date.UTC(2026, 0, 1) + offsetMs).toISOString(),
  kind,
  text,
  ...more,
});

const result = (timeline: TimelineEntry[], more: Partial<ScenarioResult> = {}): ScenarioResult => ({
  name: 'Two calls & a <message>',
  passed: true,
  held: 2,
  timeline,
  failure: null,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:02:00.000Z',
  ...more,
});

const TIMELINE = [
  entry(0, 'request', 'POST /v1/calls -> 201 call_a ringing', { subject: 'call_a' }),
  entry(0, 'event', 'call.started call_a', { eventType: 'call.started', callId: 'call_a', subject: 'call_a' }),
  entry(0, 'event', 'call.started call_b', { eventType: 'call.started', callId: 'call_b', subject: 'call_b' }),
  entry(1_000, 'event', 'call.completed call_b completed disposition=busy duration=0s', { eventType: 'call.completed', callId: 'call_b' }),
  entry(5_000, 'event', 'call.answered call_a answered by=human', { eventType: 'call.answered', callId: 'call_a' }),
  entry(65_000, 'event', 'call.completed call_a completed disposition=answered duration=60s', {
    eventType: 'call.completed',
    callId: 'call_a',
  }),
  entry(75_000, 'event', 'recording.ready rec_a ready call=call_a', { eventType: 'recording.ready', callId: 'call_a' }),
  entry(80_000, 'event', 'message.received msg_a received "STOP <now> & \'then\'"', { eventType: 'message.received', subject: 'msg_a' }),
  entry(65_000, 'attempt', 'webhook call.completed -> https://x.test 200', { eventType: 'call.completed', ok: true }),
  entry(66_000, 'attempt', 'webhook call.completed -> https://x.test 503', { eventType: 'call.completed', ok: false }),
];

function parse(svg: string): Document {
  const window = new Window();
  const doc = new window.DOMParser().parseFromString(svg, 'image/svg+xml') as unknown as Document;
  return doc;
}

describe('timelineSvg', () => {
  it('draws one bar per call coloured by its disposition, a dot at the answer, messages, attempts and requests', () => {
    const svg = timelineSvg(result(TIMELINE));
    const doc = parse(svg);
    expect(doc.querySelector('svg')?.getAttribute('xmlns')).toBe('http://www.w3.org/2000/svg');
    expect([...doc.querySelectorAll('g.call')].map((g) => g.getAttribute('data-call'))).toEqual(['call_a', 'call_b']);
    expect(doc.querySelectorAll('rect.call-bar')).toHaveLength(2);
    expect(doc.querySelectorAll('circle.answered')).toHaveLength(1);
    expect(doc.querySelectorAll('path.ready')).toHaveLength(1);
    expect(doc.querySelectorAll('circle.message')).toHaveLength(1);
    expect(doc.querySelectorAll('line.attempt.ok')).toHaveLength(1);
    expect(doc.querySelectorAll('line.attempt.failed')).toHaveLength(1);
    expect(doc.querySelectorAll('path.request')).toHaveLength(1);
    expect(doc.querySelector('g.failure')).toBeNull();
    // The busy call is drawn in the busy colour and labelled.
    const busy = doc.querySelector('g.call[data-call="call_b"]')!;
    expect(busy.textContent).toContain('busy');
  });

  it('escapes every text: the name, the lines in titles', () => {
    const svg = timelineSvg(result(TIMELINE));
    expect(svg).toContain('Two calls &amp; a &lt;message&gt;');
    expect(svg).toContain('&quot;STOP &lt;now&gt; &amp; &#39;then&#39;&quot;');
    expect(svg).not.toMatch(/<message>|<now>/);
    expect(parse(svg).querySelector('title')?.textContent).toBe('Two calls & a <message>: passed');
  });

  it('marks a failure with a line and its message, and is the same bytes for the same result', () => {
    const failed = result([...TIMELINE, entry(90_000, 'failure', 'FAILED steps[3].expect.deadLetters: expected 1, saw 0.')], {
      passed: false,
    });
    const svg = timelineSvg(failed);
    expect(parse(svg).querySelector('g.failure')?.textContent).toContain('FAILED steps[3].expect.deadLetters');
    expect(svg).toContain('FAILED (2 held)');
    expect(timelineSvg(failed)).toBe(svg);
  });

  it('uses a logarithmic axis past ten minutes, so seconds and a day both read', () => {
    const day = timelineSvg(result([...TIMELINE, entry(86_400_000, 'attempt', 'webhook late', { ok: true })]));
    expect(day).toContain('(logarithmic axis)');
    const labels = [...parse(day).querySelectorAll('g.axis text')].map((t) => t.textContent);
    expect(labels).toEqual(['0', '1s', '10s', '1m', '10m', '1h', '6h', '1d']);
  });
});

describe('the picture in docs/scenarios.md', () => {
  it('is what examples/scenarios/webhook-down-then-replayed.json draws (regenerate: svc-sandbox run FILE --svg docs/scenario-timeline.svg)', async () => {
    const { readFileSync } = await import('node:fs');
    const { createSandbox } = await import('../../src/index.js');
    const scenario = JSON.parse(readFileSync(new URL('../../examples/scenarios/webhook-down-then-replayed.json', import.meta.url), 'utf8'));
    const sandbox = createSandbox({ seed: scenario.seed });
    try {
      const drawn = timelineSvg(await sandbox.run(scenario));
      expect(drawn).toBe(readFileSync(new URL('../../docs/scenario-timeline.svg', import.meta.url), 'utf8'));
    } finally {
      sandbox.close();
    }
  });
});

describe('the linear axis', () => {
  const labels = (endMs: number) =>
    [
      ...parse(timelineSvg(result([TIMELINE[0]!, entry(endMs, 'attempt', 'webhook last', { ok: true })]))).querySelectorAll('g.axis text'),
    ].map((t) => t.textContent);

  it('has one unit and round ticks (regression: a 2-minute run read 1m, 75s, 90s, 105s, 2m)', () => {
    expect(labels(120_000)).toEqual(['0', '15s', '30s', '45s', '60s', '75s', '90s', '105s', '120s']);
    expect(labels(20_000)).toEqual(['0', '2s', '4s', '6s', '8s', '10s', '12s', '14s', '16s', '18s', '20s']);
    expect(labels(9 * 60_000)).toEqual(['0', '1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']);
  });
});
