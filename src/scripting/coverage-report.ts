import { coverageGaps, GAP_NEEDS } from './coverage-gaps.js';
import { array, custom, integer, invalid, object, oneOf, optional, record, string, type Infer } from '../core/schema.js';

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

/** The fields a report is counted in; `uncovered` and `gaps` are derived from them. */
const countsShape = {
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
};

const uncoveredSchema = array(string({ description: 'One item never exercised, as `section: item`.', max: 300 }), {
  description: 'Every item above whose count is 0, as `section: item` (`calls.dispositions: busy`).',
});

const gapSchema = object(
  {
    needs: oneOf(
      GAP_NEEDS,
      '`behaviour`: a test reaches it by scripting the sandbox or by plain requests; `fault`: only an injected fault ' +
        '(faults.inject, a chaos profile) produces it.',
    ),
    section: string({ description: 'The section of the report its items are counted in (`calls.dispositions`, `endpoints`).', max: 100 }),
    title: string({ description: 'What the items are, in words (`How calls ended`).', max: 100 }),
    never: array(string({ description: "An item never exercised (`failed`; an endpoint's: `POST /v1/calls 422`).", max: 300 }), {
      description: "The items of this gap never exercised, in the report's order.",
    }),
    how: string({ description: 'How a test makes them happen.', max: 1000 }),
  },
  { description: 'One group of items never exercised, with how to reach them.' },
);

/**
 * A coverage report: what a suite exercised, each item with how often (0: never). One schema gives
 * its type, its JSON Schema and the check `svc-sandbox coverage FILE` reads a file with.
 */
export const coverageReportSchema = object(
  {
    ...countsShape,
    uncovered: uncoveredSchema,
    gaps: array(gapSchema, {
      description:
        "What was never exercised, grouped and in the order the summary and the HTML page show it: first what the suite's own " +
        'behaviour never reached (`needs: behaviour`), then what only an injected fault produces (`needs: fault`). An operation ' +
        'never called is one item of the gap `Operations never called`; its statuses are in `uncovered` only.',
    }),
  },
  { description: 'A coverage report of svc-sandbox (docs/coverage.md).' },
);

/** The report as a file may hold it: written before `gaps` was added, or with derived lists to be made again. */
const storedReportSchema = object(
  { ...countsShape, uncovered: optional(uncoveredSchema), gaps: optional(array(gapSchema, { description: 'Derived again on reading.' })) },
  { description: 'A coverage report of svc-sandbox, as stored.' },
);

/** A coverage report (docs/coverage.md): `sandbox.coverage()`, and the file `svc-sandbox exec --coverage` writes. */
export type CoverageReport = Infer<typeof coverageReportSchema>;
export type CoverageCounts = Record<string, number>;

/** The report without `uncovered` and `gaps`, which are derived from the rest. */
export type CoverageCountsOnly = Omit<CoverageReport, 'uncovered' | 'gaps'>;

/** Each list of counts of a report, with the name its items are listed under. */
export function sections(r: CoverageCountsOnly): Array<[string, CoverageCounts]> {
  const out: Array<[string, CoverageCounts]> = [];
  for (const [operation, counts] of Object.entries(r.endpoints)) out.push([`endpoints: ${operation}`, counts]);
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

/** A report with its `uncovered` list and its `gaps` made from its counts. */
export function withUncovered(r: CoverageCountsOnly): CoverageReport {
  const { format, version, sandboxes, endpoints, calls, messages, webhooks, events, errors } = r;
  const counts = { format, version, sandboxes, endpoints, calls, messages, webhooks, events, errors };
  return { ...counts, uncovered: uncoveredItems(counts), gaps: coverageGaps(counts) };
}

/** Adds `b`'s counts into `into` (an item `into` lacks is added). */
function addInto(into: CoverageCounts, b: CoverageCounts): void {
  for (const [key, n] of Object.entries(b)) into[key] = (into[key] ?? 0) + n;
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
    for (const [operation, counts] of Object.entries(r.endpoints)) addInto((out.endpoints[operation] ??= {}), counts);
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
 * schema kit's `Invalid` (a message naming the field) when it is not one. `uncovered` and `gaps`
 * are made again from the counts, so a version 1 report written before `gaps` existed reads too.
 */
export function parseCoverage(value: unknown): CoverageReport {
  // What the file is, and which version, before any field: a stranger's JSON is "not a report".
  const head = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  format.parse(head.format, 'format');
  version.parse(head.version, 'version');
  return withUncovered(storedReportSchema.parse(value, ''));
}
