import {
  byOperation,
  coverageGaps,
  FAULT_ONLY_ERRORS,
  isFaultOnlyStatus,
  OPERATIONS_NEVER_CALLED,
  zeros,
  type CoverageGap,
} from './coverage-gaps.js';
import { sections, type CoverageReport } from './coverage-report.js';

/**
 * What was never exercised, in a few lines, in the order of {@link coverageGaps}: first what the
 * suite's own behaviour never reached, each gap with how a test reaches it, then what only an
 * injected fault produces, then the totals. `endpoints: 'short'` counts the statuses never
 * answered (what `exec --coverage` prints); `'full'` lists them, one operation a line.
 *
 * @example
 * afterAll(() => console.log(coverageSummary(sandbox.coverage())));
 * // coverage of 1 sandbox: what the suite never made happen (a test can reach each)
 * //   How calls ended: never busy, no_answer, failed, canceled
 * //     how: Script the carrier for the number called: ...
 */
export function coverageSummary(r: CoverageReport, { endpoints = 'short' }: { endpoints?: 'short' | 'full' } = {}): string {
  const gaps = coverageGaps(r);
  const lines: string[] = [];
  const head = `coverage of ${r.sandboxes} sandbox${r.sandboxes === 1 ? '' : 'es'}`;
  const render = (gap: CoverageGap) => {
    if (gap.title === OPERATIONS_NEVER_CALLED) lines.push(`  ${gap.title}: ${gap.never.join(', ')}`);
    else if (gap.section !== 'endpoints') lines.push(`  ${gap.title}: never ${gap.never.join(', ')}`);
    else if (endpoints === 'full') {
      lines.push(`  ${gap.title}:`);
      for (const [operation, statuses] of byOperation(gap.never)) lines.push(`    ${operation}: never ${statuses.join(', ')}`);
    } else {
      const operations = byOperation(gap.never).length;
      lines.push(
        `  ${gap.title}: ${gap.never.length} status${gap.never.length === 1 ? '' : 'es'} of ${operations} ` +
          `operation${operations === 1 ? '' : 's'} called (the full summary lists them)`,
      );
    }
    lines.push(`    how: ${gap.how}`);
  };
  const behaviour = gaps.filter((gap) => gap.needs === 'behaviour');
  if (behaviour.length === 0) lines.push(`${head}: the suite made happen everything a test can reach by itself`);
  else {
    lines.push(`${head}: what the suite never made happen (a test can reach each)`);
    behaviour.forEach(render);
  }
  const faults = gaps.filter((gap) => gap.needs === 'fault');
  if (faults.length > 0) {
    lines.push('only an injected fault produces these (no plain request can):');
    faults.forEach(render);
  }
  const { covered, total, never, faultOnly } = coverageTotals(r);
  lines.push(
    `in all: ${covered} of ${total} items exercised (${total === 0 ? 100 : Math.floor((covered / total) * 100)}%)` +
      (never === 0 ? '' : `; ${faultOnly} of the ${never} never exercised need an injected fault`),
  );
  return lines.join('\n');
}

/** How many items a report has, how many were exercised and never, and how many of those only a fault produces. */
export function coverageTotals(r: CoverageReport): { total: number; covered: number; never: number; faultOnly: number } {
  const total = sections(r).reduce((n, [, items]) => n + Object.keys(items).length, 0);
  const faultOnly =
    Object.values(r.endpoints).reduce((n, statuses) => n + zeros(statuses).filter(isFaultOnlyStatus).length, 0) +
    zeros(r.errors).filter((code) => FAULT_ONLY_ERRORS.has(code)).length;
  return { total, covered: total - r.uncovered.length, never: r.uncovered.length, faultOnly };
}
