import { coverageReportSchema } from '../control/coverage-report.js';
import type { ControlRoute } from './control-route.js';
import { json } from './http.js';

/** The control API's coverage rows (docs/coverage.md). */
export const coverageRoutes: ControlRoute[] = [
  {
    method: 'GET',
    path: '/sessions/{s}/coverage',
    summary: "What the session's life exercised, each item with a count, and the ones never exercised (sandbox.coverage)",
    operationId: 'getCoverage',
    status: 200,
    response: coverageReportSchema.openapi(),
    run: ({ session }) => json(200, session.sandbox.coverage()),
  },
  {
    method: 'GET',
    path: '/coverage',
    summary: 'The union of the coverage of every session of this server, deleted ones included (what exec --coverage writes)',
    operationId: 'getServerCoverage',
    status: 200,
    global: true,
    response: coverageReportSchema.openapi(),
    run: ({ sessions }) => json(200, sessions.coverage()),
  },
];
