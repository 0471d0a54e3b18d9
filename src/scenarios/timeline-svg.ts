import type { ScenarioResult, TimelineEntry } from './result.js';

/**
 * The picture of a scenario run (`svc-sandbox run --svg out.svg`; docs/scenarios.md): calls as
 * bars on virtual time (a dot where each was answered, diamonds where its recording and
 * transcript became ready), messages as dots, webhook attempts as ticks (green taken, red
 * refused or unanswered), the requests the scenario made, and the failed expectation if any.
 * A pure function of the result: the same run draws the same bytes. Every text is escaped;
 * each mark has a `<title>` with its timeline line, which browsers and GitHub show on hover.
 * Runs longer than ten minutes get a logarithmic time axis, so the first seconds and a day of
 * retries are both readable.
 */

const WIDTH = 960;
const LEFT = 260;
const RIGHT = 30;
const TOP = 58;
const ROW = 26;
const COLORS = {
  answered: '#2e7d32',
  busy: '#ef6c00',
  no_answer: '#8d6e63',
  failed: '#c62828',
  canceled: '#757575',
  live: '#1565c0',
} as const;

/** Escapes text for SVG content and attribute values. */
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

interface CallRow {
  id: string;
  start: number;
  answered: number | null;
  end: number | null;
  disposition: string | null;
  marks: TimelineEntry[];
  lines: string[];
}

/** The x of an offset, and the ticks of the axis. */
function scale(endMs: number): { x: (ms: number) => number; ticks: Array<[number, string]>; log: boolean } {
  const span = WIDTH - LEFT - RIGHT;
  const log = endMs > 10 * 60_000;
  const x = log
    ? (ms: number) => LEFT + (span * Math.log1p(ms / 1000)) / Math.log1p(endMs / 1000)
    : (ms: number) => LEFT + (span * ms) / endMs;
  const candidates: Array<[number, string]> = log
    ? [
        [0, '0'],
        [1_000, '1s'],
        [10_000, '10s'],
        [60_000, '1m'],
        [600_000, '10m'],
        [3_600_000, '1h'],
        [6 * 3_600_000, '6h'],
        [86_400_000, '1d'],
        [7 * 86_400_000, '7d'],
      ]
    : niceTicks(endMs);
  return { x, ticks: candidates.filter(([ms]) => ms <= endMs), log };
}

/**
 * Round ticks in one unit for the whole axis: seconds while the step is under a minute (`0`,
 * `15s`, `30s` ... `120s`), else minutes (`0`, `1m`, `2m` ...), never a mix such as `1m`, `75s`.
 */
function niceTicks(endMs: number): Array<[number, string]> {
  const steps = [1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
  const step = steps.find((s) => endMs / s <= 10) ?? 600_000;
  const [unitMs, unit] = step >= 60_000 ? [60_000, 'm'] : [1_000, 's'];
  const ticks: Array<[number, string]> = [];
  for (let ms = 0; ms <= endMs; ms += step) ticks.push([ms, ms === 0 ? '0' : `${ms / unitMs}${unit}`]);
  return ticks;
}

/**
 * The SVG document of `result`.
 *
 * @example
 * writeFileSync('timeline.svg', timelineSvg(await sandbox.run(scenario)));
 */
export function timelineSvg(result: ScenarioResult): string {
  const entries = result.timeline;
  const endMs = Math.max(1_000, ...entries.map((e) => e.offsetMs));
  const { x, ticks, log } = scale(endMs);

  const calls = new Map<string, CallRow>();
  const messages: TimelineEntry[] = [];
  const attempts: TimelineEntry[] = [];
  const requests: TimelineEntry[] = [];
  for (const entry of entries) {
    if (entry.kind === 'attempt') attempts.push(entry);
    else if (entry.kind === 'request' || entry.kind === 'step') requests.push(entry);
    else if (entry.kind === 'event' && entry.eventType?.startsWith('message.')) messages.push(entry);
    else if (entry.kind === 'event' && entry.callId) {
      let row = calls.get(entry.callId);
      if (!row)
        calls.set(
          entry.callId,
          (row = { id: entry.callId, start: entry.offsetMs, answered: null, end: null, disposition: null, marks: [], lines: [] }),
        );
      row.lines.push(entry.text);
      if (entry.eventType === 'call.answered') row.answered = entry.offsetMs;
      else if (entry.eventType === 'call.completed') {
        row.end = entry.offsetMs;
        row.disposition = /disposition=(\w+)/.exec(entry.text)?.[1] ?? null;
      } else if (entry.eventType === 'recording.ready' || entry.eventType === 'transcript.ready') row.marks.push(entry);
    }
  }

  const rows = calls.size + 3;
  const height = TOP + rows * ROW + 48;
  const out: string[] = [];
  const status = result.passed ? 'passed' : 'FAILED';
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ` +
      `font-family="ui-monospace, SFMono-Regular, Menlo, monospace" font-size="12">`,
    `<title>${escapeXml(`${result.name}: ${status}`)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${escapeXml(result.name)}</text>`,
    `<text x="${WIDTH - RIGHT}" y="22" text-anchor="end" fill="${result.passed ? COLORS.answered : COLORS.failed}" ` +
      `font-weight="bold">${status} (${result.held} held)</text>`,
    `<text x="12" y="40" fill="#555">virtual time from ${escapeXml(result.startedAt)}${log ? ' (logarithmic axis)' : ''}</text>`,
  );

  // Axis.
  const axisY = TOP + rows * ROW + 8;
  out.push(`<g class="axis" stroke="#ccc">`);
  for (const [ms, label] of ticks) {
    out.push(
      `<line x1="${r(x(ms))}" y1="${TOP - 6}" x2="${r(x(ms))}" y2="${axisY}"/>`,
      `<text x="${r(x(ms))}" y="${axisY + 16}" text-anchor="middle" stroke="none" fill="#555">${escapeXml(label)}</text>`,
    );
  }
  out.push('</g>');

  let row = 0;
  const label = (text: string) => `<text x="12" y="${TOP + row * ROW + 16}">${escapeXml(text)}</text>`;
  const mid = () => TOP + row * ROW + 12;

  // Requests and steps of the scenario.
  out.push('<g class="requests">', label('requests'));
  for (const entry of requests)
    out.push(
      `<path class="request" d="M${r(x(entry.offsetMs))} ${mid() - 6} l5 6 l-5 6 z" ` +
        `fill="#5c6bc0"><title>${escapeXml(`${at(entry)} ${entry.text}`)}</title></path>`,
    );
  out.push('</g>');
  row += 1;

  // One row per call.
  for (const call of calls.values()) {
    const end = call.end ?? endMs;
    const color = call.end === null ? COLORS.live : (COLORS[call.disposition as keyof typeof COLORS] ?? COLORS.live);
    const y = mid();
    out.push(`<g class="call" data-call="${escapeXml(call.id)}">`, label(call.id));
    if (call.disposition)
      out.push(`<text x="${LEFT - 10}" y="${y + 4}" text-anchor="end" fill="${color}">${escapeXml(call.disposition)}</text>`);
    out.push(
      `<rect class="call-bar" x="${r(x(call.start))}" y="${y - 6}" width="${r(Math.max(2, x(end) - x(call.start)))}" height="12" rx="3" ` +
        `fill="${color}" fill-opacity="0.75"><title>${escapeXml(call.lines.join('\n'))}</title></rect>`,
    );
    if (call.answered !== null)
      out.push(
        `<circle class="answered" cx="${r(x(call.answered))}" cy="${y}" r="4" fill="#fff" stroke="${color}" ` +
          `stroke-width="2"><title>answered at ${escapeXml(seconds(call.answered))}</title></circle>`,
      );
    for (const mark of call.marks)
      out.push(
        `<path class="ready" d="M${r(x(mark.offsetMs))} ${y - 6} l5 6 l-5 6 l-5 -6 z" ` +
          `fill="#6a1b9a"><title>${escapeXml(`${at(mark)} ${mark.text}`)}</title></path>`,
      );
    out.push('</g>');
    row += 1;
  }

  // Messages.
  out.push('<g class="messages">', label('messages'));
  for (const m of messages)
    out.push(
      `<circle class="message" cx="${r(x(m.offsetMs))}" cy="${mid()}" r="5" ` +
        `fill="${m.eventType === 'message.received' ? '#0277bd' : COLORS.answered}"><title>${escapeXml(`${at(m)} ${m.text}`)}</title></circle>`,
    );
  out.push('</g>');
  row += 1;

  // Webhook attempts.
  out.push('<g class="webhooks">', label('webhook attempts'));
  for (const a of attempts)
    out.push(
      `<line class="attempt ${a.ok ? 'ok' : 'failed'}" x1="${r(x(a.offsetMs))}" y1="${mid() - 8}" x2="${r(x(a.offsetMs))}" ` +
        `y2="${mid() + 8}" stroke="${a.ok ? COLORS.answered : COLORS.failed}" ` +
        `stroke-width="2"><title>${escapeXml(`${at(a)} ${a.text}`)}</title></line>`,
    );
  out.push('</g>');
  row += 1;

  const failure = entries.find((e) => e.kind === 'failure');
  if (failure) {
    out.push(
      `<g class="failure"><line x1="${r(x(failure.offsetMs))}" y1="${TOP - 10}" x2="${r(x(failure.offsetMs))}" y2="${axisY}" ` +
        `stroke="${COLORS.failed}" stroke-width="2" stroke-dasharray="4 3"/>`,
      `<text x="12" y="${height - 8}" ` +
        `fill="${COLORS.failed}">${escapeXml(failure.text.length > 130 ? `${failure.text.slice(0, 130)}…` : failure.text)}</text></g>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function seconds(ms: number): string {
  return `+${ms / 1000}s`;
}

function at(entry: TimelineEntry): string {
  return seconds(entry.offsetMs);
}
