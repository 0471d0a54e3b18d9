import { parseArgs } from 'node:util';
import { mergeCoverage, parseCoverage, type CoverageReport } from '../scripting/coverage-report.js';
import { coverageSummary } from '../scripting/coverage-summary.js';
import { Invalid } from '../core/schema.js';
import { coverageHtml } from './coverage-html.js';
import { checkWritable, FileRefused, readJsonFile, writeRegularFile } from './files.js';

export const COVERAGE_USAGE = 'svc-sandbox coverage FILE... [--html OUT]  (svc-sandbox coverage --help)';

export const COVERAGE_HELP = `Usage: svc-sandbox coverage FILE... [--html OUT]

Prints what the coverage report FILE (written by svc-sandbox exec --coverage FILE)
never exercised, leading with what the suite never made happen that a test can
reach (how calls and messages ended, who answered, transfers, events, retries,
operations and 4xx answers), each with how to reach it; then the statuses only an
injected fault produces (5xx: faults.inject, chaos); then the totals. With several
files, their union (an item is uncovered only when no file exercised it).

Options:
      --html <out>   Also write the report as one HTML page to <out>
  -h, --help         Show this help
Details: docs/coverage.md in the package.`;

/**
 * Writes `report` to `file` as JSON (making its folder), and prints the short summary of what was
 * never exercised on stderr (stdout is the command's). Returns false, having said why, when the
 * file cannot be written.
 */
export function writeCoverage(report: CoverageReport, file: string): boolean {
  try {
    writeRegularFile(file, `${JSON.stringify(report, null, 2)}\n`, { makeFolders: true });
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    console.error(`svc-sandbox: cannot write the coverage report to ${file}: it ${error.message}.`);
    return false;
  }
  console.error(
    `svc-sandbox: ${coverageSummary(report)}\nsvc-sandbox: coverage report written to ${file} (svc-sandbox coverage ${file} lists every item never exercised)`,
  );
  return true;
}

/** `svc-sandbox coverage FILE... [--html OUT]`: 0, 1 when a file cannot be read or is no report, 2 for bad arguments. */
export function coverageCommand(args: string[]): number {
  let values: { html?: string | undefined; help?: boolean | undefined };
  let files: string[];
  try {
    ({ values, positionals: files } = parseArgs({
      args,
      allowPositionals: true,
      options: { html: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    console.error(`svc-sandbox: ${(error as Error).message}\nUsage: ${COVERAGE_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(COVERAGE_HELP);
    return 0;
  }
  if (files.length === 0) {
    console.error(`svc-sandbox: coverage needs the report to read, e.g. svc-sandbox coverage coverage.json.\nUsage: ${COVERAGE_USAGE}`);
    return 2;
  }
  if (values.html !== undefined) {
    try {
      checkWritable(values.html, { makeFolders: true });
    } catch (error) {
      if (!(error instanceof FileRefused)) throw error;
      console.error(`svc-sandbox: --html ${values.html}: it ${error.message}.\nUsage: ${COVERAGE_USAGE}`);
      return 2;
    }
  }
  const reports: CoverageReport[] = [];
  for (const file of files) {
    try {
      reports.push(parseCoverage(readJsonFile(file)));
    } catch (error) {
      if (!(error instanceof Invalid || error instanceof FileRefused)) throw error;
      console.error(
        `svc-sandbox: ${file} is not a coverage report it can read: ${error instanceof FileRefused ? `it ${error.message}.` : error.message}`,
      );
      return 1;
    }
  }
  const [only] = reports;
  const report = reports.length === 1 && only ? only : mergeCoverage(...reports);
  console.log(coverageSummary(report, { endpoints: 'full' }));
  if (values.html !== undefined) {
    try {
      writeRegularFile(values.html, coverageHtml(report), { makeFolders: true });
    } catch (error) {
      if (!(error instanceof FileRefused)) throw error;
      console.error(`svc-sandbox: cannot write ${values.html}: it ${error.message}.`);
      return 1;
    }
    console.log(`HTML written to ${values.html}`);
  }
  return 0;
}
