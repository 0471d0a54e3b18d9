import { MAX_BODY_BYTES } from '../core/body.js';
import { isLinkLocalOrMetadata } from '../core/hosts.js';
import { invalid, missing, name, show, said } from '../core/schema.js';
import { READ_HEADERS } from '../core/read-headers.js';
import { MAX_TIME_MS, iso } from '../core/time.js';

/**
 * What a snapshot may hold beyond the shape of its fields (docs/snapshots.md, "What a snapshot
 * may hold"): what a sandbox records passes, and anything no sandbox could have recorded is
 * refused, naming the input and its field, before anything is replayed. The snapshot's schema
 * (scripting/snapshots.ts) runs these as the checks of its objects.
 */

/**
 * The request headers the API reads (src/api): the only ones a snapshot keeps, so it stays
 * small, and the only ones a snapshot may name. A header the API comes to read must be added
 * here (test/sandbox/snapshots.test.ts checks); kept sorted, the order a Headers iterates in.
 */
export const REPLAYED_HEADERS: readonly string[] = READ_HEADERS;

/** What every refusal of a recorded input ends with: the snapshot was changed after it was taken. */
export const UNCHANGED = 'give the snapshot as sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot) wrote it';

/**
 * An HTTP method as a `Request` takes one (an RFC 9110 token), but those it refuses (fetch's
 * forbidden methods, CONNECT, TRACE and TRACK): no sandbox ever received one.
 */
export const RECEIVED_METHOD = /^(?!(?:connect|trace|track)$)[!#$%&'*+.^_`|~0-9A-Za-z-]+$/i;
/** A path as the request journal names one: a documented path (`/v1/calls/{id}`) or a request's own. */
export const JOURNAL_PATH = /^\/\S*$/;
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
export function checkRequest(input: RecordedRequest, path: string): void {
  if (!RECEIVED_METHOD.test(input.method)) {
    throw invalid(
      [
        ...said`${name(`${path}.method`)} must be a method a request to the API can have (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS or `,
        `another HTTP token; never CONNECT, TRACE or TRACK), got ${show(input.method)}: no request with it reaches a sandbox; ${UNCHANGED}.`,
      ],
      `${path}.method`,
    );
  }
  if (input.path !== undefined && input.url !== undefined)
    throw invalid(
      said`${name(`${path}.url`)} cannot be given with \`path\`: a request is kept by one or the other; ${UNCHANGED}.`,
      `${path}.url`,
    );
  if (input.path === undefined && input.url === undefined)
    throw missing(
      said`${name(`${path}.path`)} is required (or \`url\`): the path below the base URL, such as "/v1/calls".`,
      `${path}.path`,
    );
  if (input.path !== undefined && !(API_PATH.test(input.path) && asSerialised(input.path))) {
    throw invalid(
      [
        ...said`${name(`${path}.path`)} must be a path under /v1 as a request's URL writes it ("/v1/calls?limit=5"), got ${show(input.path)}: `,
        `a snapshot keeps a request to any other path whole, under \`url\`; ${UNCHANGED}.`,
      ],
      `${path}.path`,
    );
  }
  if (input.url !== undefined && !isRequestUrl(input.url)) {
    throw invalid(
      [
        ...said`${name(`${path}.url`)} must be an absolute http(s) URL as a request's URL writes it, without credentials, got `,
        `${show(input.url)}; ${UNCHANGED}.`,
      ],
      `${path}.url`,
    );
  }
  let last = -1;
  input.headers.forEach(([header, value], i) => {
    const index = REPLAYED_HEADERS.indexOf(header);
    if (index <= last) {
      throw invalid(
        [
          ...said`${name(`${path}.headers[${i}][0]`)} must be one of the headers a snapshot keeps (${REPLAYED_HEADERS.join(', ')}), each once `,
          `and in that order, got ${show(header)}; ${UNCHANGED}.`,
        ],
        `${path}.headers[${i}][0]`,
      );
    }
    last = index;
    if (/[\0\r\n]|^[\t ]|[\t ]$/.test(value)) {
      throw invalid(
        [
          ...said`${name(`${path}.headers[${i}][1]`)} must be a header value as a request carries one (no line breaks or NUL, no blanks `,
          `around it), got ${show(value)}; ${UNCHANGED}.`,
        ],
        `${path}.headers[${i}][1]`,
      );
    }
  });
  checkBody(input, path);
  const hooked = subscribedUrl(input);
  if (hooked !== null) {
    throw invalid(
      [
        ...said`${name(`${path}.body`)} subscribes a webhook to ${hooked}, a link-local or cloud-metadata address no sandbox sends to (a `,
        `subscription to it is refused with 400): remove this input, or take the snapshot again.`,
      ],
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
      said`${name(`${path}.${given[1]}`)} cannot be given with \`${given[0] ?? ''}\`: a request's body is kept one way; ${UNCHANGED}.`,
      `${path}.${given[1]}`,
    );
  }
  const base64 = input.bodyBase64;
  if (base64 !== undefined && !(base64.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(base64))) {
    throw invalid(said`${name(`${path}.bodyBase64`)} must be base64, got ${show(base64)}; ${UNCHANGED}.`, `${path}.bodyBase64`);
  }
  const padding = base64?.endsWith('==') ? 2 : base64?.endsWith('=') ? 1 : 0;
  const bytes = input.body !== undefined ? Buffer.byteLength(input.body) : base64 !== undefined ? (base64.length / 4) * 3 - padding : 0;
  if (bytes > MAX_BODY_BYTES) {
    const field = input.body !== undefined ? 'body' : 'bodyBase64';
    throw invalid(
      [
        ...said`${name(`${path}.${field}`)} is ${bytes} bytes, more than the ${MAX_BODY_BYTES} the API reads of a body: a request whose `,
        `body passed that is kept as \`bodyOver: true\`; ${UNCHANGED}.`,
      ],
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

/** An `error.code` as the API writes one (`not_found`, `rate_limited`). */
export const ERROR_CODE = /^[a-z][a-z0-9_]*$/;
/** A rate window as the rate limiter names it: a key's, or the one shared by requests without a key or with a token that is no key. */
export const RATE_BUCKET = /^(?:\(no key\)|\(not a key\)|SVC_(?:TEST|LIVE)_\S+)$/;
/** The most rate windows an `elided` input names: as many as the rate limiter keeps in one second. */
export const MAX_ELIDED_WINDOWS = 10_000;

/**
 * An `elided` input's rows (`answered`) beyond what their schema says (a method, a path and an
 * error code as a journal writes them): a status an elided request can have, and no more
 * requests than `requests`.
 */
export function checkElided(
  input: {
    requests: number;
    answered?: Array<[string, string, number, string | null, number]> | undefined;
    windows?: Array<[string, number]> | undefined;
  },
  path: string,
): void {
  let windowed = 0;
  input.windows?.forEach(([, count], i) => {
    windowed += count;
    if (windowed > input.requests) {
      throw invalid(
        [
          ...said`${name(`${path}.windows[${i}][1]`)} brings the windows to ${windowed} requests, more than the input's ${input.requests} `,
          `(\`requests\`): each window counts some of those requests; ${UNCHANGED}.`,
        ],
        `${path}.windows[${i}][1]`,
      );
    }
  });
  let counted = 0;
  input.answered?.forEach(([, , status, , count], i) => {
    const row = `${path}.answered[${i}]`;
    // A 500 is kept whole: the replay must record its internal error again.
    if (status !== 0 && (status < 100 || status === 500)) {
      throw invalid(
        [
          ...said`${name(`${row}[2]`)} must be a status an elided request was answered with (0 for a network fault, or 100 to 599 but `,
          `500), got ${status}; ${UNCHANGED}.`,
        ],
        `${row}[2]`,
      );
    }
    counted += count;
    if (counted > input.requests) {
      throw invalid(
        [
          ...said`${name(`${row}[4]`)} brings the rows to ${counted} requests, more than the input's ${input.requests} (\`requests\`): `,
          `each row counts some of those requests; ${UNCHANGED}.`,
        ],
        `${row}[4]`,
      );
    }
  });
}

/** An advance never passes the last instant a Date holds, and an advanceUntil stops after it began. */
export function checkAdvance({ at, ms, stop }: { at: number; ms: number; stop?: number | undefined }, path: string): void {
  if (at + ms > MAX_TIME_MS) {
    throw invalid(
      [
        ...said`${name(`${path}.ms`)} is ${ms}: an advance begun at ${iso(at)} goes at most ${MAX_TIME_MS - at} ms, to the last instant a `,
        `Date holds (+275760-09-13T00:00:00Z), and a sandbox refuses a longer one before it records it; ${UNCHANGED}.`,
      ],
      `${path}.ms`,
    );
  }
  if (stop !== undefined && stop < at) {
    throw invalid(
      said`${name(`${path}.stop`)} is ${iso(stop)}, before the advance began (${iso(at)}): an advanceUntil stops where it got to; ${UNCHANGED}.`,
      `${path}.stop`,
    );
  }
}

/**
 * The requests a snapshot may count in all: each request input once per `times`, and each
 * `elided` input's `requests` (docs/snapshots.md, "What a snapshot may hold"). A replay does
 * work for every one of them (it answers a request again, or draws an elided one's request id),
 * so a count is what a few bytes of a file could otherwise ask for without end. A million is
 * more than any session records between two resets at the pace a sandbox answers (a test
 * suite sends thousands), and replays in about half a second when elided.
 */
export const MAX_SNAPSHOT_REQUESTS = 1_000_000;

/** A snapshot that counts more requests than {@link MAX_SNAPSHOT_REQUESTS} is refused at the field that passes the bound. */
export function checkCounts(
  snapshot: { inputs: Array<{ kind: string; times?: number | undefined; requests?: number | undefined }> },
  path: string,
): void {
  let counted = 0;
  snapshot.inputs.forEach((input, i) => {
    const field = input.kind === 'elided' ? 'requests' : input.kind === 'request' ? 'times' : null;
    if (field === null) return;
    const n = input.kind === 'elided' ? (input.requests ?? 0) : (input.times ?? 1);
    counted += n;
    if (counted <= MAX_SNAPSHOT_REQUESTS) return;
    const where = `${path}.inputs[${i}].${field}`;
    throw invalid(
      [
        ...said`${name(where)} is ${n}, which brings the requests this snapshot counts to ${counted}, more than the ${MAX_SNAPSHOT_REQUESTS} `,
        `a snapshot may count (a replay answers or draws an id for each): no sandbox records that many between two resets; ${UNCHANGED}.`,
      ],
      where,
    );
  });
}

/**
 * The instants a session that ran can have: inputs in the order they came, none before the
 * session's start, none after the instant the snapshot was taken. A reset sets the clock back
 * to the start, so the order holds between resets, and only inputs after the last reset must
 * come before `now`.
 */
export function checkInstants(
  snapshot: { options: Record<string, unknown>; now: string; inputs: Array<{ kind: string; at: number }> },
  path: string,
): void {
  const now = Date.parse(snapshot.now);
  const given = snapshot.options.startTime;
  const startMs = typeof given === 'string' || typeof given === 'number' ? new Date(given).getTime() : Number.NaN;
  const start = Number.isFinite(startMs) ? startMs : null;
  if (start !== null && now < start) {
    throw invalid(
      [
        ...said`${name(`${path}.now`)} is ${snapshot.now}, before the session's start (${iso(start)}): a snapshot is taken at or after its `,
        `start; ${UNCHANGED}.`,
      ],
      `${path}.now`,
    );
  }
  const lastReset = snapshot.inputs.findLastIndex((input) => input.kind === 'reset');
  let previous: number | null = null;
  snapshot.inputs.forEach((input, i) => {
    const where = `${path}.inputs[${i}].at`;
    if (previous === null && start !== null && input.at < start)
      throw invalid(said`${name(where)} is ${iso(input.at)}, before the session's start (${iso(start)}); ${UNCHANGED}.`, where);
    if (previous !== null && input.at < previous) {
      throw invalid(
        [
          ...said`${name(where)} is ${iso(input.at)}, before the input before it (${iso(previous)}): inputs are in the order they came, and `,
          `the clock goes back only at a reset; ${UNCHANGED}.`,
        ],
        where,
      );
    }
    if (i > lastReset && input.at > now) {
      throw invalid(
        said`${name(where)} is ${iso(input.at)}, after the instant the snapshot was taken (${snapshot.now}); ${UNCHANGED}.`,
        where,
      );
    }
    // A reset takes the clock back to the start: the next input is compared with the start again.
    previous = input.kind === 'reset' ? null : input.at;
  });
}
