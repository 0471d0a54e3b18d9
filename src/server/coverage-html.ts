import { byOperation, coverageGaps, OPERATIONS_NEVER_CALLED, type CoverageGap } from '../scripting/coverage-gaps.js';
import type { CoverageCounts, CoverageReport } from '../scripting/coverage-report.js';
import { coverageTotals } from '../scripting/coverage-summary.js';

/** Text for HTML: every character that could open markup or end an attribute, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function table(title: string, counts: CoverageCounts): string {
  const rows = Object.entries(counts)
    .map(([item, n]) => `<tr class="${n === 0 ? 'never' : 'seen'}"><td>${escapeHtml(item)}</td><td>${n === 0 ? 'never' : n}</td></tr>`)
    .join('');
  const never = Object.values(counts).filter((n) => n === 0).length;
  return (
    `<section><h3>${escapeHtml(title)} <small>${Object.keys(counts).length - never} of ` +
    `${Object.keys(counts).length}</small></h3><table>${rows}</table></section>`
  );
}

/** One gap: its title, what it never did (an endpoint's statuses one operation a line), and how to reach it. */
function gapHtml(gap: CoverageGap): string {
  const chips = (items: string[]) => items.map((item) => `<span class="never">${escapeHtml(item)}</span>`).join(' ');
  const never =
    gap.section === 'endpoints' && gap.title !== OPERATIONS_NEVER_CALLED
      ? `<table>${byOperation(gap.never)
          .map(([operation, statuses]) => `<tr><td>${escapeHtml(operation)}</td><td>${chips(statuses)}</td></tr>`)
          .join('')}</table>`
      : `<p>${chips(gap.never)}</p>`;
  return (
    `<section class="gap"><h3>${escapeHtml(gap.title)} <small>${escapeHtml(gap.section)}</small></h3>${never}` +
    `<p class="how">How: ${escapeHtml(gap.how)}</p></section>`
  );
}

// Two fixed texts of the page, named so its template's lines stay readable.
const FAULTS_HEADING = '<h2 id="faults">Only an injected fault produces these <small>no plain request can</small></h2>';
const NEED_FAULT = 'never exercised need an injected fault';

/**
 * A coverage report as one self-contained HTML page (`svc-sandbox coverage FILE --html OUT`), in
 * the order of the printed summary: what the suite's own behaviour never reached, with how to
 * reach each, then what only an injected fault produces, then the totals and every item, a table
 * per section with the items never exercised marked. Every text from the report is escaped.
 */
export function coverageHtml(report: CoverageReport): string {
  const gaps = coverageGaps(report);
  const behaviour = gaps.filter((gap) => gap.needs === 'behaviour');
  const faults = gaps.filter((gap) => gap.needs === 'fault');
  const { covered, total, never, faultOnly } = coverageTotals(report);
  const endpoints = Object.entries(report.endpoints)
    .map(([op, statuses]) => {
      const cells = Object.entries(statuses)
        .map(
          ([status, n]) =>
            `<span class="${n === 0 ? 'never' : 'seen'}" title="${n === 0 ? 'never answered' : `${n}×`}">${escapeHtml(status)}</span>`,
        )
        .join(' ');
      return `<tr><td>${escapeHtml(op)}</td><td>${cells}</td></tr>`;
    })
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-sandbox coverage</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:70em}table{border-collapse:collapse;margin-bottom:1em}
td{border-bottom:1px solid #ddd;padding:2px 10px}small{color:#666;font-weight:normal}
.never{color:#a00;background:#fee}.seen{color:#060}span{padding:0 4px;border-radius:3px;display:inline-block}
.how{color:#444}.gap{margin-bottom:1.2em}
</style></head><body>
<h1>svc-sandbox coverage</h1>
<p>The union of ${report.sandboxes} sandbox${report.sandboxes === 1 ? '' : 'es'}.</p>
<h2 id="behaviour">What the suite never made happen <small>a test can reach each</small></h2>
${behaviour.length === 0 ? '<p>Nothing: the suite made happen everything a test can reach by itself.</p>' : behaviour.map(gapHtml).join('\n')}
${faults.length === 0 ? '' : `${FAULTS_HEADING}\n${faults.map(gapHtml).join('\n')}`}
<h2 id="all">Every item <small>${covered} of ${total} exercised${never === 0 ? '' : `; ${faultOnly} of the ${never} ${NEED_FAULT}`}</small></h2>
<section><h3>endpoints <small>each documented status, red when never answered</small></h3><table>${endpoints}</table></section>
${table('calls: states', report.calls.states)}
${table('calls: transitions', report.calls.transitions)}
${table('calls: dispositions', report.calls.dispositions)}
${table('calls: answered by', report.calls.answeredBy)}
${table('messages: outcomes', report.messages.outcomes)}
${table('webhooks', report.webhooks)}
${table('events', report.events)}
${table('errors', report.errors)}
</body></html>
`;
}
