import { METHODS } from '../core/path-pattern.js';
import { integer, nullable, object, oneOf, optional, type Schema, string, timestamp } from '../core/schema.js';
import { anyString } from '../core/schema-values.js';
import type { Journal, JournalEntry } from '../state/journal.js';
import { check, read } from './context.js';

/** Narrows the journal: every field given must match. */
export interface RequestFilter {
  method?: string;
  /** A documented path (`/v1/calls/{id}`) or a request's own path (`/v1/calls/call_…`). */
  path?: string;
  status?: number;
  /** An `error.code` (`rate_limited`, `unreachable_destination`, ...). */
  errorCode?: string;
  apiKey?: string;
}

const filterSchema = object(
  {
    method: optional(oneOf(METHODS, 'Only requests with this method (upper case).')),
    path: optional(
      string({
        description: "A documented path such as /v1/calls/{id}, or a request's own path",
        pattern: /^\/[^?#\s]*$/,
        patternHint: 'a path that starts with / and holds no query, like "/v1/calls/{id}"',
        max: 500,
      }),
    ),
    status: optional(integer({ description: 'Only answers with this status (0: a network fault)', min: 0, max: 599 })),
    errorCode: optional(string({ description: 'Only answers with this error.code', max: 64 })),
    apiKey: optional(string({ description: 'Only requests with this bearer key', max: 200 })),
  },
  { description: 'Narrows the request journal.', label: 'option' },
);

/** `sandbox.requests`: the request journal (docs/scripting.md, "The request journal"). */
export interface RequestJournal {
  /**
   * The requests the API answered, in the order they arrived (the latest 10,000, or
   * `createSandbox({ maxJournalEntries })`), each with its method, documented path, status,
   * error code and message, request id, API key and virtual time; `filter` narrows them. A request still in
   * flight (its body arriving) is listed once answered, in its place. `reset()` empties the journal.
   */
  list(filter?: RequestFilter): JournalEntry[];
}

/**
 * Builds `sandbox.requests`: what a suite sent, as the sandbox answered it, so a test can
 * assert that its client retried a 429, or never called an endpoint.
 *
 * @example
 * const retried = sandbox.requests.list({ method: 'POST', path: '/v1/calls' }).map((r) => r.status); // [429, 201]
 */
export function requestJournal(journal: Journal): RequestJournal {
  return {
    list: read((filter = {}) => {
      const f = check(filterSchema, filter, 'requests.list', 'filter');
      return journal
        .list()
        .filter(
          (r) =>
            (f.method === undefined || r.method === f.method) &&
            (f.path === undefined || r.path === f.path || r.target === f.path) &&
            (f.status === undefined || r.status === f.status) &&
            (f.errorCode === undefined || r.errorCode === f.errorCode) &&
            (f.apiKey === undefined || r.apiKey === f.apiKey),
        )
        .map((r) => r.entry());
    }),
  };
}

const nullableText = (description: string) => nullable(anyString(description));

/** A {@link JournalEntry}, written once: the interface is checked against it, the control API's document reads it. */
export const journalEntrySchema = object(
  {
    requestId: anyString('The `X-Request-Id` of the answer.'),
    method: anyString('The HTTP method.'),
    path: anyString("The documented path matched (/v1/calls/{id}), or the request's own."),
    target: anyString("The request's own path below the base URL, without the query."),
    status: integer({ description: 'The status answered; 0 for an injected network fault.', min: 0, max: 599 }),
    errorCode: nullableText('`error.code` of an error answer (`network_error` for a network fault); null for a success.'),
    errorMessage: nullableText('`error.message` of an error answer (what was wrong and how to fix it); null for a success.'),
    apiKey: nullableText('The bearer token the request carried, or null.'),
    at: timestamp('Virtual time of the answer.'),
  },
  {
    description: 'One request as the sandbox answered it.',
    example: {
      requestId: 'req_8Tq2Wm5Kx1Rb7Nc4',
      method: 'GET',
      path: '/v1/calls/{id}',
      target: '/v1/calls/call_7mQ2xK9pR4tLw8Zb',
      status: 200,
      errorCode: null,
      errorMessage: null,
      apiKey: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA',
      at: '2026-01-01T00:00:30.000Z',
    },
  },
) satisfies Schema<JournalEntry>;
