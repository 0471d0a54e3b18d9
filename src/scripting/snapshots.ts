import { SandboxError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import {
  array,
  boolean,
  custom,
  type Infer,
  Invalid,
  integer,
  invalid,
  literal,
  name,
  nullable,
  number,
  object,
  optional,
  show,
  string,
  said,
} from '../core/schema.js';
import { anyString, json, tagged, tuple } from '../core/schema-values.js';
import {
  checkAdvance,
  checkCounts,
  checkElided,
  checkInstants,
  checkRequest,
  ERROR_CODE,
  JOURNAL_PATH,
  MAX_ELIDED_WINDOWS,
  RATE_BUCKET,
  RECEIVED_METHOD,
  UNCHANGED,
} from './snapshot-checks.js';
import { MAX_TIME_MS, iso } from '../core/time.js';
import { TEST_KEY } from '../state/accounts.js';
import { MAX_ATTEMPTS } from '../webhooks/retry-schedule.js';

/**
 * Snapshots and forks (docs/snapshots.md). A snapshot is an input log, not a dump of the
 * stores: the options a sandbox was made with, and every input that changed it, in order and
 * with its virtual instant (API requests, scripting calls, advances, resets), plus the result
 * of every webhook attempt as it was observed. Restoring replays the log on a new sandbox made
 * with the same options: the same seed, the same inputs in the same order give the same
 * state, timers, machines, rate windows and ids, byte for byte, however they are stored, and
 * webhook attempts take their recorded results instead of being sent again. This file is the
 * snapshot's shape, written once with the schema kit: its types are inferred from it, and
 * `parseSnapshot` checks a snapshot with it. The recording is scripting/recorder.ts.
 */

/** What `format` says: this JSON value is a snapshot of svc-sandbox. */
export const SNAPSHOT_FORMAT = 'svc-sandbox-snapshot';

/** An instant as a snapshot keeps it: epoch milliseconds (ISO 8601 is read too). */
const instant = custom<number>({
  hint: 'an instant (epoch milliseconds or ISO 8601)',
  parse(value, path) {
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS)
      throw invalid(said`${name(path)} must be an instant (epoch milliseconds or ISO 8601), got ${show(value)}.`, path);
    return ms;
  },
  openapi: () => ({ type: 'integer', description: 'Virtual instant, epoch milliseconds.' }),
});
const at = instant;
const text = (description: string) => anyString(description);
const count = (description: string) => number({ description, min: 0 });

const requestInput = object(
  {
    kind: literal('request', 'An API request.'),
    at,
    method: text('The HTTP method.'),
    path: optional(text('The path and query below the base URL, under /v1 (a restore may serve another one).')),
    url: optional(text('The whole URL, when it was outside the base URL or its /v1.')),
    headers: array(tuple([text('Header name.'), text('Header value.')], 'A header the API reads.'), {
      description: 'The request headers the API reads (REPLAYED_HEADERS), in that order.',
    }),
    body: optional(text('The body as read (UTF-8 text), absent when the API never read one.')),
    bodyBase64: optional(text('The body, when it was not UTF-8.')),
    bodyOver: optional(
      custom<true>({
        hint: 'true',
        parse(value, path) {
          if (value !== true) throw invalid(said`${name(path)} must be true when present, got ${show(value)}.`, path);
          return true;
        },
        openapi: () => ({ const: true, description: 'The body passed the 1 MiB limit while being read (its bytes are not kept).' }),
      }),
    ),
    times: optional(
      integer({
        description: 'How many times it came in a row at this instant, the same each time (1 when absent).',
        min: 2,
        max: Number.MAX_SAFE_INTEGER,
      }),
    ),
  },
  { description: 'A request as the API received it.', check: checkRequest },
);
const answeredRow = tuple(
  [
    string({ description: 'The HTTP method.', pattern: RECEIVED_METHOD, patternHint: 'an HTTP method (GET, HEAD, OPTIONS...)' }),
    string({
      description:
        'The documented path it matched (`/v1/calls/{id}`), or `/` when it matched none (coverage counts such a request under its error code alone; a snapshot taken before gives its own path).',
      pattern: JOURNAL_PATH,
      patternHint: 'a path as the request journal names one ("/v1/calls/{id}")',
    }),
    integer({ description: 'The status answered (0 for an injected network fault).', min: 0, max: 599 }),
    nullable(
      string({
        description: '`error.code` of an error answer; null for a success.',
        pattern: ERROR_CODE,
        patternHint: 'an error code ("not_found") or null for a success',
      }),
    ),
    integer({ description: 'How many of the requests were answered so.', min: 1, max: Number.MAX_SAFE_INTEGER }),
  ],
  'Requests answered alike, as coverage counts them: [method, path, status, errorCode, count].',
);
const rateWindow = tuple(
  [
    string({
      description:
        'The rate window: a key\'s, or "(no key)" or "(not a key)", shared by the requests without a key or with a token that is none.',
      pattern: RATE_BUCKET,
      patternHint: 'a key (SVC_TEST_…, SVC_LIVE_…), "(no key)" or "(not a key)"',
      max: 8192,
    }),
    integer({ description: 'How many of the requests it counted.', min: 1, max: Number.MAX_SAFE_INTEGER }),
  ],
  'A rate window and how many of the requests it counted: [window, count].',
);
const elidedInput = object(
  {
    kind: literal('elided', 'Requests kept as a count.'),
    at,
    requests: integer({ description: 'How many.', min: 1, max: Number.MAX_SAFE_INTEGER }),
    answered: optional(
      array(answeredRow, {
        description:
          'What coverage counts of them, one row per method, path, status and error code. Absent in a snapshot taken before ' +
          'the sandbox kept it: nothing to count then. Its counts add up to `requests` at most.',
      }),
    ),
    windows: optional(
      array(rateWindow, {
        description:
          'Requests counted in the rate window of the second `at` falls in, which the requests after them share (the clock stood ' +
          'still): how many each window counted, in the order the windows opened. A replay takes the clock to `at` and counts ' +
          'them there again. Absent when their second was over before the next kept request. Its counts add up to `requests` at most.',
        max: MAX_ELIDED_WINDOWS,
      }),
    ),
  },
  {
    description:
      'Requests that changed nothing but the request ids they drew and the rate windows they counted in (reads and refusals), ' +
      'older than the request journal keeps: a replay draws their ids, counts their rows in coverage and their `windows` ' +
      '(docs/snapshots.md, "Cost").',
    check: checkElided,
  },
);
const callInput = object(
  {
    kind: literal('call', 'A scripting call.'),
    at,
    name: text('The call, as `namespace.member` (`network.setBehavior`).'),
    args: array(json('An argument, as JSON (non-finite numbers as `{"$number": "Infinity"}`).'), {
      description: 'Its arguments, without trailing omitted ones.',
    }),
  },
  { description: 'A scripting call that changes the sandbox (`network.setBehavior`...), and its arguments as JSON.' },
);
const advanceInput = object(
  {
    kind: literal('advance', 'An advance of the virtual clock.'),
    at,
    ms: count('How far, in milliseconds (advanceUntil: its `max`).'),
    stop: optional(instant),
  },
  {
    description: 'An `advance` (or an `advanceUntil`, which stopped at `stop`) begun at `at`.',
    check: checkAdvance,
  },
);
const resetInput = object({ kind: literal('reset', 'A reset.'), at }, { description: 'A reset.' });

const postResult = object(
  {
    status: nullable(integer({ description: "The receiver's HTTP status; null when no response arrived.", min: 0, max: 999 })),
    ok: boolean('A 2xx within the timeout.'),
    error: nullable(text('Why it failed; null on success.')),
    durationMs: count('Real (wall-clock) milliseconds the attempt took.'),
  },
  { description: "A webhook attempt's result as it was observed." },
);

/** `dlv_…/run/attempt`: a delivery's id, which run of it (0, or the replay) and the attempt's number. */
const ATTEMPT_KEY = /^dlv_[0-9A-Za-z]{16}\/\d{1,9}\/(\d{1,2})$/;
const attemptKey = custom<string>({
  hint: '`dlv_…/run/attempt`',
  parse(value, path) {
    const n = typeof value === 'string' ? Number(ATTEMPT_KEY.exec(value)?.[1]) : Number.NaN;
    if (!(n >= 1 && n <= MAX_ATTEMPTS)) {
      throw invalid(
        [
          ...said`${name(path)} must name an attempt as \`dlv_…/run/attempt\` ("dlv_0123456789abcdef/0/1", attempts 1 to ${MAX_ATTEMPTS}), `,
          `got ${show(value)}; ${UNCHANGED}.`,
        ],
        path,
      );
    }
    return value as string;
  },
  like: anyString('`deliveryId/run/attempt`.'),
});

/** The key a server's session was made with: a test key, as every key a session makes is. */
const sessionKey = custom<string>({
  hint: 'a test key (SVC_TEST_…)',
  parse(value, path) {
    if (typeof value !== 'string' || !TEST_KEY.test(value))
      throw invalid(said`${name(path)} must be a test key (SVC_TEST_…), got ${show(value)}; ${UNCHANGED}.`, path);
    return value;
  },
  like: anyString('The server only: the session key its requests came with (a session made from it answers for the same account).'),
});

/** The schema of a snapshot: what `parseSnapshot` checks, and where its types come from. */
export const snapshotSchema = object(
  {
    format: literal(SNAPSHOT_FORMAT, 'Says this JSON value is a snapshot of svc-sandbox.'),
    version: text('The svc-sandbox version that took it; another version refuses it.'),
    options: custom<Record<string, unknown>>({
      hint: 'the createSandbox options the snapshot was made with',
      parse(value, path) {
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw invalid(said`${name(path)} must be the createSandbox options the snapshot was made with, got ${show(value)}.`, path);
        return json('The options.').parse(value, path) as Record<string, unknown>;
      },
      openapi: () => ({ type: 'object', description: 'The createSandbox options it was made with (JSON form).' }),
    }),
    now: custom<string>({
      hint: instant.hint,
      parse: (value, path) => iso(instant.parse(value, path)),
      like: anyString('Virtual now when it was taken (ISO 8601).'),
    }),
    inputs: array(
      tagged(
        'kind',
        { request: requestInput, call: callInput, advance: advanceInput, reset: resetInput, elided: elidedInput },
        'An input.',
      ),
      {
        description: 'Every input that changed the sandbox, in order.',
      },
    ),
    attempts: array(tuple([attemptKey, postResult], 'An attempt and its result.'), {
      description: 'The result of every webhook attempt as it was observed, by delivery, run and attempt number.',
    }),
    apiKey: optional(sessionKey),
  },
  {
    description: 'A snapshot of a sandbox: plain JSON.',
    check: (snapshot, path) => {
      checkCounts(snapshot, path);
      checkInstants(snapshot, path);
    },
  },
);

/** A request as the API received it. `path` is below the base URL (a restore may serve another one); `url` when it was outside it. */
export type RequestInput = Infer<typeof requestInput>;
/** A scripting call (`network.setBehavior`...) and its arguments as JSON. */
export type CallInput = Infer<typeof callInput>;
/** An `advance` (or `advanceUntil`, which stopped at `stop`) begun at `at`. */
export type AdvanceInput = Infer<typeof advanceInput>;
export type ResetInput = Infer<typeof resetInput>;
/** Requests kept as a count: a replay draws their request ids and counts their rows in coverage. */
export type ElidedInput = Infer<typeof elidedInput>;
/** One row of an {@link ElidedInput}'s `answered`: `[method, path, status, errorCode, count]`. */
export type AnsweredRow = Infer<typeof answeredRow>;
export type SnapshotInput = RequestInput | CallInput | AdvanceInput | ResetInput | ElidedInput;
/** A webhook attempt's result as observed, by `deliveryId/run/attempt`. */
export type SnapshotAttempt = Infer<typeof snapshotSchema>['attempts'][number];

/**
 * A snapshot: plain JSON (`JSON.stringify` it, keep it in a file). Take it with
 * `sandbox.snapshot()`; start from it with `createSandbox({ snapshot })`. The fields are the
 * sandbox's to read; treat the value as opaque and do not edit it.
 */
export type SandboxSnapshot = Infer<typeof snapshotSchema>;

/**
 * Checks a snapshot (as `createSandbox({ snapshot })` and the server receive it) and returns
 * it typed, or throws a SandboxError naming the field (`snapshot.inputs[3].at`) and the fix.
 * Whether each call names a scripting call the sandbox records is checked when it is
 * restored (root/restore.ts), where the recorded members are known.
 */
export function parseSnapshot(value: unknown, path = 'snapshot'): SandboxSnapshot {
  try {
    if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw invalid(
        said`${name(path)} must be a snapshot taken with sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot), got ${show(value)}.`,
        path,
      );
    }
    const format = (value as { format?: unknown }).format;
    if (format !== SNAPSHOT_FORMAT) {
      throw invalid(
        [
          ...said`${name(`${path}.format`)} must be "${SNAPSHOT_FORMAT}", got ${show(format)}: pass the value sandbox.snapshot() returned `,
          `(or GET /__sandbox/sessions/{s}/snapshot answered), unchanged.`,
        ],
        `${path}.format`,
      );
    }
    const version = (value as { version?: unknown }).version;
    if (typeof version === 'string' && version !== packageVersion()) {
      throw invalid(
        [
          ...said`${name(`${path}.version`)}: this snapshot was taken by svc-sandbox ${version}, and this is ${packageVersion()}. Another version `,
          `may simulate the same inputs differently, so its answers would not be the same: take the snapshot again with `,
          `${packageVersion()}, or restore it with svc-sandbox@${version}.`,
        ],
        `${path}.version`,
      );
    }
    return snapshotSchema.parse(value, path);
  } catch (error) {
    if (error instanceof Invalid) throw new SandboxError(error.parts, { code: error.code, param: error.param });
    throw error;
  }
}
