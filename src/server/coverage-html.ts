import type { CoverageCounts, CoverageReport } from '../scripting/coverage-report.js';

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
    `<section><h2>${escapeHtml(title)} <small>${Object.keys(counts).length - never} of ` +
    `${Object.keys(counts).length}</small></h2><table>${rows}</table></section>`
  );
}

/**
 * A coverage report as one self-contained HTML page (`svc-sandbox coverage FILE --html OUT`): a
 * table per section, the items never exercised marked. Every text from the report is escaped.
 */
export function coverageHtml(report: CoverageReport): string {
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
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:1em}
td{border-bottom:1px solid #ddd;padding:2px 10px}small{color:#666;font-weight:normal}
.never{color:#a00;background:#fee}.seen{color:#060}span{padding:0 4px;border-radius:3px}
</style></head><body>
<h1>svc-sandbox coverage</h1>
<p>The union of ${report.sandboxes} sandbox${report.sandboxes === 1 ? '' : 'es'}: ${report.uncovered.length} items never exercised (red).</p>
<section><h2>endpoints <small>each documented status, red when never answered</small></h2><table>${endpoints}</table></section>
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
