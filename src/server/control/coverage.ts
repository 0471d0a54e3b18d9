import {
  COVERAGE_FORMAT,
  COVERAGE_VERSION,
  coverageReportSchema,
  withUncovered,
  type CoverageCounts,
} from '../../scripting/coverage-report.js';
import { EVENT_TYPES } from '../../scripting/json-schemas.js';
import type { ControlRoute } from './route.js';
import { json } from '../http.js';

const counts = (names: string[], done: string[] = []): CoverageCounts =>
  Object.fromEntries(names.map((name) => [name, done.includes(name) ? 1 : 0]));

/**
 * The report of a session that placed one call, answered by a person, whose call.completed
 * reached its webhook at the first try (the resources' example story): shortened to that one
 * endpoint and a few error codes, where a real report lists every endpoint and code.
 */
const reportExample = withUncovered({
  format: COVERAGE_FORMAT,
  version: COVERAGE_VERSION,
  sandboxes: 1,
  endpoints: { 'POST /v1/calls': counts(['201', '400', '401', '403', '413', '422', '429', '500', '502', '503', '504'], ['201']) },
  calls: {
    states: counts(['ringing', 'answered', 'completed'], ['ringing', 'answered', 'completed']),
    transitions: counts(
      [
        'ringing → answered (ANSWERED)',
        'ringing → completed (HUNG_UP)',
        'ringing → answered (after ringTime [networkAnswers])',
        'ringing → completed (after ringTime)',
        'answered → completed (HUNG_UP)',
        'answered → answered (TRANSFERRED)',
        'answered → completed (after talkTime)',
      ],
      ['ringing → answered (after ringTime [networkAnswers])', 'answered → completed (after talkTime)'],
    ),
    dispositions: counts(['answered', 'busy', 'no_answer', 'failed', 'canceled'], ['answered']),
    answeredBy: counts(['human', 'voicemail', 'ai_receptionist'], ['human']),
  },
  messages: { outcomes: counts(['delivered', 'failed', 'received']) },
  webhooks: counts(['delivered_first_time', 'retried', 'dead_lettered', 'replayed'], ['delivered_first_time']),
  events: counts([...EVENT_TYPES], ['call.started', 'call.answered', 'call.completed']),
  errors: counts(['invalid_parameter', 'not_found', 'rate_limited']),
});
const report = { ...coverageReportSchema.openapi(), examples: [reportExample] };

/** The control API's coverage rows (docs/coverage.md). */
export const coverageRoutes: ControlRoute[] = [
  {
    method: 'GET',
    path: '/sessions/{s}/coverage',
    summary: "What the session's life exercised, each item with a count, and the ones never exercised (sandbox.coverage)",
    operationId: 'getCoverage',
    description:
      "What this session's life exercised (`sandbox.coverage()`; docs/coverage.md): each documented status of each endpoint, every state " +
      'and transition of the call machine, every disposition, `answered_by`, message outcome, webhook path, event type and error code, ' +
      'each with a count (0: never), and `uncovered` listing the zeros. A reset keeps it.',
    status: 200,
    response: report,
    handle: ({ session }) => json(200, session.sandbox.coverage()),
  },
  {
    method: 'GET',
    path: '/coverage',
    summary: 'The union of the coverage of every session of this server, deleted ones included (what exec --coverage writes)',
    operationId: 'getServerCoverage',
    description:
      'The union of the coverage of every session this server held, deleted ones included (`mergeCoverage` of them): what `svc-sandbox ' +
      'exec --coverage FILE` writes when its command ends.',
    status: 200,
    global: true,
    response: report,
    handle: ({ sessions }) => json(200, sessions.coverage()),
  },
];
