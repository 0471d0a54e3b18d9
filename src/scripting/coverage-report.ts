import { array, custom, integer, invalid, object, record, string, type Infer, type Schema } from '../core/schema.js';

/** The `format` of every coverage report, for a reader that finds the file without its name. */
export const COVERAGE_FORMAT = 'svc-sandbox-coverage';
/** The report version this svc-sandbox writes and reads (docs/coverage.md, "The report"). */
export const COVERAGE_VERSION = 1;

const count = integer({ description: 'How many times it was seen; 0: never exercised.', min: 0, max: Number.MAX_SAFE_INTEGER });
const counts = (description: string) => record(count, { description, key: /^\S.{0,199}$/, keyHint: 'a name' });

const format = custom<typeof COVERAGE_FORMAT>({
  hint: JSON.stringify(COVERAGE_FORMAT),
  parse(value, path) {
    if (value !== COVERAGE_FORMAT)
      throw invalid(
        `\`${path}\` must be ${JSON.stringify(COVERAGE_FORMAT)}: this is not a coverage report of svc-sandbox (svc-sandbox exec --coverage FILE writes one).`,
        path,
      );
    return COVERAGE_FORMAT;
  },
  openapi: () => ({ type: 'string', const: COVERAGE_FORMAT }),
});

const version = custom<typeof COVERAGE_VERSION>({
  hint: String(COVERAGE_VERSION),
  parse(value, path) {
    if (value !== COVERAGE_VERSION) {
      throw invalid(
        `\`${path}\` is ${JSON.stringify(value)}, and this svc-sandbox reads version ${COVERAGE_VERSION} reports: read it with the ` +
          `svc-sandbox that wrote it, or write it again with this one.`,
        path,
      );
    }
    return COVERAGE_VERSION;
  },
  openapi: () => ({ type: 'integer', const: COVERAGE_VERSION }),
});

/**
 * A coverage report: what a suite exercised, each item with how often (0: never). One schema gives
 * its type, its JSON Schema and the check `svc-sandbox coverage FILE` reads a file with.
 */
export const coverageReportSchema = object(
  {
    format,
    version,
    sandboxes: integer({
      description: 'How many sandboxes (server sessions) this report is the union of.',
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    endpoints: record(counts('Each documented status of the operation (and any other status it answered), by status.'), {
      description: 'Each operation of the API (`POST /v1/calls`), by method and documented path.',
      key: /^[A-Z]+ \/\S*$/,
      keyHint: 'a method and a path, like "POST /v1/calls"',
    }),
    calls: object(
      {
        states: counts('The states of the call machine, read from the machine: how often each was entered.'),
        transitions: counts('The transitions of the call machine, read from the machine: how often each was taken.'),
        dispositions: counts('How calls ended (`disposition` of call.completed).'),
        answeredBy: counts('Who answered (`answered_by` of call.answered).'),
      },
      { description: 'The call lifecycle.' },
    ),
    messages: object(
      { outcomes: counts('How messages ended: delivered, failed (outbound) or received (inbound).') },
      { description: 'Messaging.' },
    ),
    webhooks: counts('Deliveries delivered at their first attempt, retried, dead-lettered, replayed.'),
    events: counts('Events emitted, by type.'),
    errors: counts('Error answers, by `error.code` (`network_error`: an injected network fault).'),
    uncovered: array(string({ description: 'One item never exercised, as `section: item`.', max: 300 }), {
      description: 'Every item above whose count is 0, as `section: item` (`calls.dispositions: busy`).',
    }),
  },
  { description: 'A coverage report of svc-sandbox (docs/coverage.md).' },
);

/** A coverage report (docs/coverage.md): `sandbox.coverage()`, and the file `svc-sandbox exec --coverage` writes. */
export type CoverageReport = Infer<typeof coverageReportSchema>;
export type CoverageCounts = Record<string, number>;

/** The report without `uncovered`, which is derived from the rest. */
export type CoverageCountsOnly = Omit<CoverageReport, 'uncovered'>;

/** Each list of counts of a report, with the name its items are listed under. */
function sections(r: CoverageCountsOnly): Array<[string, CoverageCounts]> {
  const out: Array<[string, CoverageCounts]> = [];
  for (const operation in r.endpoints) out.push([`endpoints: ${operation}`, r.endpoints[operation]!]);
  out.push(
    ['calls.states', r.calls.states],
    ['calls.transitions', r.calls.transitions],
    ['calls.dispositions', r.calls.dispositions],
    ['calls.answeredBy', r.calls.answeredBy],
    ['messages.outcomes', r.messages.outcomes],
    ['webhooks', r.webhooks],
    ['events', r.events],
    ['errors', r.errors],
  );
  return out;
}

/** Every item never exercised, as `section: item` (an endpoint's: `endpoints: POST /v1/calls 429`). */
export function uncoveredItems(r: CoverageCountsOnly): string[] {
  const out: string[] = [];
  for (const [section, items] of sections(r)) {
    const join = section.startsWith('endpoints: ') ? ' ' : ': ';
    for (const item in items) if (items[item] === 0) out.push(`${section}${join}${item}`);
  }
  return out;
}

/** A report with its `uncovered` list made from its counts. */
export function withUncovered(r: CoverageCountsOnly): CoverageReport {
  const { format, version, sandboxes, endpoints, calls, messages, webhooks, events, errors } = r;
  return { format, version, sandboxes, endpoints, calls, messages, webhooks, events, errors, uncovered: uncoveredItems(r) };
}

/** Adds `b`'s counts into `into` (an item `into` lacks is added). */
function addInto(into: CoverageCounts, b: CoverageCounts): void {
  for (const key in b) into[key] = (into[key] ?? 0) + b[key]!;
}

const emptyCounts = (): CoverageCountsOnly => ({
  format: COVERAGE_FORMAT,
  version: COVERAGE_VERSION,
  sandboxes: 0,
  endpoints: {},
  calls: { states: {}, transitions: {}, dispositions: {}, answeredBy: {} },
  messages: { outcomes: {} },
  webhooks: {},
  events: {},
  errors: {},
});

/** A report of nothing: the unit of {@link mergeCoverage}. */
export function emptyCoverage(): CoverageReport {
  return withUncovered(emptyCounts());
}

/**
 * The union of coverage reports: every item of any of them, with its counts added, so an item
 * is uncovered only when no report exercised it. Pure (the reports are not changed), associative
 * and commutative in its counts; `mergeCoverage()` is the empty report. For suites that run in
 * several processes (vitest's workers, shards): each writes its own, and one merge adds them up.
 *
 * @example
 * const all = mergeCoverage(...files.map((f) => JSON.parse(readFileSync(f, 'utf8'))));
 * all.uncovered; // ['calls.dispositions: busy', ...]
 */
export function mergeCoverage(...reports: CoverageReport[]): CoverageReport {
  const out = emptyCounts();
  for (const r of reports) {
    out.sandboxes += r.sandboxes;
    for (const operation in r.endpoints) addInto((out.endpoints[operation] ??= {}), r.endpoints[operation]!);
    addInto(out.calls.states, r.calls.states);
    addInto(out.calls.transitions, r.calls.transitions);
    addInto(out.calls.dispositions, r.calls.dispositions);
    addInto(out.calls.answeredBy, r.calls.answeredBy);
    addInto(out.messages.outcomes, r.messages.outcomes);
    addInto(out.webhooks, r.webhooks);
    addInto(out.events, r.events);
    addInto(out.errors, r.errors);
  }
  return withUncovered(out);
}

/**
 * Reads a report from parsed JSON, checked against {@link coverageReportSchema}; throws the
 * schema kit's `Invalid` (a message naming the field) when it is not one.
 */
export function parseCoverage(value: unknown): CoverageReport {
  // What the file is, and which version, before any field: a stranger's JSON is "not a report".
  const head = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  format.parse(head.format, 'format');
  version.parse(head.version, 'version');
  return (coverageReportSchema as Schema<CoverageReport>).parse(value, '');
}

/**
 * What was never exercised, in a few lines: per section, how much was covered and what was not.
 * `endpoints: 'short'` names the operations never called and only counts the statuses never seen
 * (what `exec --coverage` prints); `'full'` lists those statuses, one operation a line.
 *
 * @example
 * afterAll(() => console.log(coverageSummary(sandbox.coverage())));
 * // coverage of 1 sandbox: 41 of 219 items exercised (18%)
 * //   calls.dispositions: never busy, no_answer, failed, canceled ...
 */
export function coverageSummary(r: CoverageReport, { endpoints = 'short' }: { endpoints?: 'short' | 'full' } = {}): string {
  const lines: string[] = [];
  const all = sections(r);
  const total = all.reduce((n, [, items]) => n + Object.keys(items).length, 0);
  const covered = total - r.uncovered.length;
  lines.push(
    `coverage of ${r.sandboxes} sandbox${r.sandboxes === 1 ? '' : 'es'}: ${covered} of ${total} items exercised ` +
      `(${total === 0 ? 100 : Math.floor((covered / total) * 100)}%)`,
  );
  const operations = Object.entries(r.endpoints);
  const called = operations.filter(([, s]) => Object.values(s).some((n) => n > 0));
  const never = operations.filter(([, s]) => !Object.values(s).some((n) => n > 0)).map(([op]) => op);
  const statuses = operations.flatMap(([op, s]) =>
    Object.entries(s)
      .filter(([, n]) => n === 0)
      .map(([status]) => [op, status] as const),
  );
  lines.push(`  endpoints: ${called.length} of ${operations.length} called, ${statuses.length} documented statuses never answered`);
  if (endpoints === 'full') {
    for (const [op, s] of called) {
      const missing = Object.entries(s)
        .filter(([, n]) => n === 0)
        .map(([status]) => status);
      if (missing.length > 0) lines.push(`    ${op}: never ${missing.join(', ')}`);
    }
  }
  if (never.length > 0) lines.push(`    never called: ${never.join(', ')}`);
  for (const [section, items] of all.filter(([s]) => !s.startsWith('endpoints: '))) {
    const names = Object.keys(items);
    if (names.length === 0) continue;
    const missing = names.filter((name) => items[name] === 0);
    lines.push(`  ${section}: ${missing.length === 0 ? `all ${names.length} exercised` : `never ${missing.join(', ')}`}`);
  }
  return lines.join('\n');
}
