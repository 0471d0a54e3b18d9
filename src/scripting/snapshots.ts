import { MAX_BODY_BYTES } from '../core/body.js';
import { SandboxError } from '../core/errors.js';
import { isLinkLocalOrMetadata } from '../core/hosts.js';
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
  missing,
  name,
  nullable,
  number,
  object,
  optional,
  show,
} from '../core/schema.js';
import { anyString, json, tagged, tuple } from '../core/schema-values.js';
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
      throw invalid(`${name(path)} must be an instant (epoch milliseconds or ISO 8601), got ${show(value)}.`, path);
    return ms;
  },
  openapi: () => ({ type: 'integer', description: 'Virtual instant, epoch milliseconds.' }),
});
const at = instant;
const text = (description: string) => anyString(description);
const count = (description: string) => number({ description, min: 0 });

/**
 * The request headers the API reads (src/api): the only ones a snapshot keeps, so it stays
 * small, and the only ones a snapshot may name. A header the API comes to read must be added
 * here (test/sandbox/snapshots.test.ts checks); kept sorted, the order a Headers iterates in.
 */
export const REPLAYED_HEADERS = [
  'accept',
  'access-control-request-headers',
  'authorization',
  'content-length',
  'content-type',
  'last-event-id',
  'origin',
];

/** What every refusal of a recorded input ends with: the snapshot was changed after it was taken. */
const UNCHANGED = 'give the snapshot as sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot) wrote it';

/** An HTTP method as a `Request` takes one (RFC 9110 token). */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Methods a `Request` refuses (fetch's forbidden methods): no sandbox ever received one. */
const FORBIDDEN_METHOD = /^(connect|trace|track)$/i;
/** `/v1`, then its end, a path, a query or a fragment: the only paths a snapshot keeps (others go whole, under `url`). */
export const API_PATH = /^\/v1($|[/?#])/;

/** A path as a request's URL writes it (already parsed and serialised: no dot segments, blanks encoded). */
function asSerialised(path: string): boolean {
  try {
    return new URL(path, 'http://h').href === `http://h${path}`;
  } catch {
    return false;
  }
}

/** A request input's fields (its type, {@link RequestInput}, is inferred from the schema that these checks are part of). */
interface RecordedRequest {
  method: string;
  path?: string | undefined;
  url?: string | undefined;
  headers: Array<[string, string]>;
  body?: string | undefined;
  bodyBase64?: string | undefined;
  bodyOver?: true | undefined;
}

/** The rules of a request input beyond the shape of its fields; `path` is the input's own (`snapshot.inputs[3]`). */
function checkRequest(input: RecordedRequest, path: string): void {
  if (!METHOD.test(input.method) || FORBIDDEN_METHOD.test(input.method)) {
    throw invalid(
      `${name(`${path}.method`)} must be a method a request to the API can have (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS or ` +
        `another HTTP token; never CONNECT, TRACE or TRACK), got ${show(input.method)}: no request with it reaches a sandbox; ${UNCHANGED}.`,
      `${path}.method`,
    );
  }
  if (input.path !== undefined && input.url !== undefined)
    throw invalid(
      `${name(`${path}.url`)} cannot be given with \`path\`: a request is kept by one or the other; ${UNCHANGED}.`,
      `${path}.url`,
    );
  if (input.path === undefined && input.url === undefined)
    throw missing(`${name(`${path}.path`)} is required (or \`url\`): the path below the base URL, such as "/v1/calls".`, `${path}.path`);
  if (input.path !== undefined && !(API_PATH.test(input.path) && asSerialised(input.path))) {
    throw invalid(
      `${name(`${path}.path`)} must be a path under /v1 as a request's URL writes it ("/v1/calls?limit=5"), got ${show(input.path)}: ` +
        `a snapshot keeps a request to any other path whole, under \`url\`; ${UNCHANGED}.`,
      `${path}.path`,
    );
  }
  if (input.url !== undefined && !isRequestUrl(input.url)) {
    throw invalid(
      `${name(`${path}.url`)} must be an absolute http(s) URL as a request's URL writes it, without credentials, got ` +
        `${show(input.url)}; ${UNCHANGED}.`,
      `${path}.url`,
    );
  }
  let last = -1;
  input.headers.forEach(([header, value], i) => {
    const index = REPLAYED_HEADERS.indexOf(header);
    if (index <= last) {
      throw invalid(
        `${name(`${path}.headers[${i}][0]`)} must be one of the headers a snapshot keeps (${REPLAYED_HEADERS.join(', ')}), each once ` +
          `and in that order, got ${show(header)}; ${UNCHANGED}.`,
        `${path}.headers[${i}][0]`,
      );
    }
    last = index;
    if (/[\0\r\n]|^[\t ]|[\t ]$/.test(value)) {
      throw invalid(
        `${name(`${path}.headers[${i}][1]`)} must be a header value as a request carries one (no line breaks or NUL, no blanks ` +
          `around it), got ${show(value)}; ${UNCHANGED}.`,
        `${path}.headers[${i}][1]`,
      );
    }
  });
  checkBody(input, path);
  const hooked = subscribedUrl(input);
  if (hooked !== null) {
    throw invalid(
      `${name(`${path}.body`)} subscribes a webhook to ${hooked}, a link-local or cloud-metadata address no sandbox sends to (a ` +
        `subscription to it is refused with 400): remove this input, or take the snapshot again.`,
      `${path}.body`,
    );
  }
}

function isRequestUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.href === url && !parsed.username && !parsed.password;
  } catch {
    return false;
  }
}

/** One of `body`, `bodyBase64`, `bodyOver` at most, and no more bytes than the API reads of a body. */
function checkBody(input: RecordedRequest, path: string): void {
  const given = (['body', 'bodyBase64', 'bodyOver'] as const).filter((field) => input[field] !== undefined);
  if (given.length > 1) {
    throw invalid(
      `${name(`${path}.${given[1]}`)} cannot be given with \`${given[0]}\`: a request's body is kept one way; ${UNCHANGED}.`,
      `${path}.${given[1]}`,
    );
  }
  const base64 = input.bodyBase64;
  if (base64 !== undefined && !(base64.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(base64))) {
    throw invalid(`${name(`${path}.bodyBase64`)} must be base64, got ${show(base64)}; ${UNCHANGED}.`, `${path}.bodyBase64`);
  }
  const padding = base64?.endsWith('==') ? 2 : base64?.endsWith('=') ? 1 : 0;
  const bytes = input.body !== undefined ? Buffer.byteLength(input.body) : base64 !== undefined ? (base64.length / 4) * 3 - padding : 0;
  if (bytes > MAX_BODY_BYTES) {
    const field = input.body !== undefined ? 'body' : 'bodyBase64';
    throw invalid(
      `${name(`${path}.${field}`)} is ${bytes} bytes, more than the ${MAX_BODY_BYTES} the API reads of a body: a request whose ` +
        `body passed that is kept as \`bodyOver: true\`; ${UNCHANGED}.`,
      `${path}.${field}`,
    );
  }
}

/** The URL a `POST /v1/webhooks` input subscribes, when its host is link-local or a metadata address; else null. */
function subscribedUrl(input: RecordedRequest): string | null {
  if (input.method !== 'POST' || input.path === undefined || input.body === undefined) return null;
  if (input.path.replace(/[?#].*$/, '') !== '/v1/webhooks') return null;
  try {
    const url: unknown = (JSON.parse(input.body) as { url?: unknown } | null)?.url;
    return typeof url === 'string' && isLinkLocalOrMetadata(new URL(url).hostname) ? url : null;
  } catch {
    return null; // no JSON, or no URL: the replay answers 400 as the request was answered
  }
}

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
          if (value !== true) throw invalid(`${name(path)} must be true when present, got ${show(value)}.`, path);
          return true;
        },
        openapi: () => ({ const: true, description: 'The body passed the 1 MiB limit while being read (its bytes are not kept).' }),
      }),
    ),
  },
  { description: 'A request as the API received it.', check: checkRequest },
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
    check({ at, ms, stop }, path) {
      if (at + ms > MAX_TIME_MS) {
        throw invalid(
          `${name(`${path}.ms`)} is ${ms}: an advance begun at ${iso(at)} goes at most ${MAX_TIME_MS - at} ms, to the last instant a ` +
            `Date holds (+275760-09-13T00:00:00Z), and a sandbox refuses a longer one before it records it; ${UNCHANGED}.`,
          `${path}.ms`,
        );
      }
      if (stop !== undefined && stop < at) {
        throw invalid(
          `${name(`${path}.stop`)} is ${iso(stop)}, before the advance began (${iso(at)}): an advanceUntil stops where it got to; ${UNCHANGED}.`,
          `${path}.stop`,
        );
      }
    },
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
        `${name(path)} must name an attempt as \`dlv_…/run/attempt\` ("dlv_0123456789abcdef/0/1", attempts 1 to ${MAX_ATTEMPTS}), ` +
          `got ${show(value)}; ${UNCHANGED}.`,
        path,
      );
    }
    return value as string;
  },
  openapi: () => ({ type: 'string', description: '`deliveryId/run/attempt`.' }),
});

/** The key a server's session was made with: a test key, as every key a session makes is. */
const sessionKey = custom<string>({
  hint: 'a test key (SVC_TEST_…)',
  parse(value, path) {
    if (typeof value !== 'string' || !TEST_KEY.test(value))
      throw invalid(`${name(path)} must be a test key (SVC_TEST_…), got ${show(value)}; ${UNCHANGED}.`, path);
    return value;
  },
  openapi: () => ({
    type: 'string',
    description: 'The server only: the session key its requests came with (a session made from it answers for the same account).',
  }),
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
          throw invalid(`${name(path)} must be the createSandbox options the snapshot was made with, got ${show(value)}.`, path);
        return json('The options.').parse(value, path) as Record<string, unknown>;
      },
      openapi: () => ({ type: 'object', description: 'The createSandbox options it was made with (JSON form).' }),
    }),
    now: custom<string>({
      hint: instant.hint,
      parse: (value, path) => iso(instant.parse(value, path)),
      openapi: () => ({ type: 'string', description: 'Virtual now when it was taken (ISO 8601).' }),
    }),
    inputs: array(tagged('kind', { request: requestInput, call: callInput, advance: advanceInput, reset: resetInput }, 'An input.'), {
      description: 'Every input that changed the sandbox, in order.',
    }),
    attempts: array(tuple([attemptKey, postResult], 'An attempt and its result.'), {
      description: 'The result of every webhook attempt as it was observed, by delivery, run and attempt number.',
    }),
    apiKey: optional(sessionKey),
  },
  { description: 'A snapshot of a sandbox: plain JSON.', check: (snapshot, path) => checkInstants(snapshot, path) },
);

/**
 * The instants a session that ran can have: inputs in the order they came, none before the
 * session's start, none after the instant the snapshot was taken. A reset sets the clock back
 * to the start, so the order holds between resets, and only inputs after the last reset must
 * come before `now`.
 */
function checkInstants(
  snapshot: { options: Record<string, unknown>; now: string; inputs: Array<{ kind: string; at: number }> },
  path: string,
): void {
  const now = Date.parse(snapshot.now);
  const given = snapshot.options.startTime;
  const startMs = typeof given === 'string' || typeof given === 'number' ? new Date(given).getTime() : Number.NaN;
  const start = Number.isFinite(startMs) ? startMs : null;
  if (start !== null && now < start) {
    throw invalid(
      `${name(`${path}.now`)} is ${snapshot.now}, before the session's start (${iso(start)}): a snapshot is taken at or after its ` +
        `start; ${UNCHANGED}.`,
      `${path}.now`,
    );
  }
  const lastReset = snapshot.inputs.findLastIndex((input) => input.kind === 'reset');
  let previous: number | null = null;
  snapshot.inputs.forEach((input, i) => {
    const where = `${path}.inputs[${i}].at`;
    if (previous === null && start !== null && input.at < start)
      throw invalid(`${name(where)} is ${iso(input.at)}, before the session's start (${iso(start)}); ${UNCHANGED}.`, where);
    if (previous !== null && input.at < previous) {
      throw invalid(
        `${name(where)} is ${iso(input.at)}, before the input before it (${iso(previous)}): inputs are in the order they came, and ` +
          `the clock goes back only at a reset; ${UNCHANGED}.`,
        where,
      );
    }
    if (i > lastReset && input.at > now) {
      throw invalid(`${name(where)} is ${iso(input.at)}, after the instant the snapshot was taken (${snapshot.now}); ${UNCHANGED}.`, where);
    }
    // A reset takes the clock back to the start: the next input is compared with the start again.
    previous = input.kind === 'reset' ? null : input.at;
  });
}

/** A request as the API received it. `path` is below the base URL (a restore may serve another one); `url` when it was outside it. */
export type RequestInput = Infer<typeof requestInput>;
/** A scripting call (`network.setBehavior`...) and its arguments as JSON. */
export type CallInput = Infer<typeof callInput>;
/** An `advance` (or `advanceUntil`, which stopped at `stop`) begun at `at`. */
export type AdvanceInput = Infer<typeof advanceInput>;
export type ResetInput = Infer<typeof resetInput>;
export type SnapshotInput = RequestInput | CallInput | AdvanceInput | ResetInput;
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
        `${name(path)} must be a snapshot taken with sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot), got ${show(value)}.`,
        path,
      );
    }
    const format = (value as { format?: unknown }).format;
    if (format !== SNAPSHOT_FORMAT) {
      throw invalid(
        `${name(`${path}.format`)} must be "${SNAPSHOT_FORMAT}", got ${show(format)}: pass the value sandbox.snapshot() returned ` +
          `(or GET /__sandbox/sessions/{s}/snapshot answered), unchanged.`,
        `${path}.format`,
      );
    }
    const version = (value as { version?: unknown }).version;
    if (typeof version === 'string' && version !== packageVersion()) {
      throw invalid(
        `${name(`${path}.version`)}: this snapshot was taken by svc-sandbox ${version}, and this is ${packageVersion()}. Another version ` +
          `may simulate the same inputs differently, so its answers would not be the same: take the snapshot again with ` +
          `${packageVersion()}, or restore it with svc-sandbox@${version}.`,
        `${path}.version`,
      );
    }
    return snapshotSchema.parse(value, path);
  } catch (error) {
    if (error instanceof Invalid) throw new SandboxError(error.message, { code: error.code, param: error.param });
    throw error;
  }
}
