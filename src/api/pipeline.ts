// Longer than most files: the /v1 road's stages (arrive, preflight, count, within, faults, match, key, rate
// limit, scope, body, input), each small, declared in order in one list that the compiler checks.
import type { ClockMode } from '../core/clock.js';
import { READ_HEADERS, type ReadHeaderName } from '../core/read-headers.js';
import type { SeededRandom } from '../core/random.js';
import { queryObject } from '../core/schema.js';
import type { Steps } from '../core/steps.js';
import { TEST_KEY, type Accounts, type Principal } from '../state/accounts.js';
import type { Chaos } from '../state/chaos.js';
import type { ActiveFault, Faults } from '../state/faults.js';
import type { Journal, JournalRecord } from '../state/journal.js';
import { Answer, NETWORK_ERROR, setHeader, toResponse } from './answer.js';
import { authenticate, authorize, bearerToken } from './auth.js';
import { deprecationHeaders, type Deprecation } from './deprecation.js';
import { ApiError, errorEnvelope, refusalOf } from './errors.js';
import { rateLimitedMessage, type RateDecision, type RateLimiter } from './rate-limit.js';
import { bodyOf, type Incoming, parseJson, readBody, type ReadBody } from './request-body.js';
import { road, travel, type Road, type Stage } from './road.js';
import type { AnyRoute, RequestContext, Router } from './router.js';
import type { RouteDeps } from './route-deps.js';

export type { Incoming, ReadBody } from './request-body.js';

/**
 * What the pipeline tells the snapshot's input log of each request (scripting/recorder.ts keeps
 * it; docs/snapshots.md): it arrived, before anything is drawn for it; its body, once read (an
 * empty one when none was read: told once); and that it was answered, and whether it changed
 * nothing but its request id, its rate window and its journal entry (`inert`: a read, or a
 * refusal before any handler ran), which the log may then keep as a count with what its journal
 * record says it was answered with.
 */
export interface RequestLog<T = unknown> {
  arrive(request: Incoming, headers: ReadHeaders): T | undefined;
  read(entry: T, body: ReadBody): void;
  answered(entry: T, answered: AnsweredRequest): void;
}

/** What the pipeline tells the snapshot's input log of an answered request. */
export interface AnsweredRequest {
  /** It changed nothing but its request id, its rate window and its journal entry. */
  inert: boolean;
  /** Its journal entry, closed (absent without one): what coverage counts of it, which the log reads when it elides it. */
  record: JournalRecord | undefined;
  /** It matched an operation: its record names the documented path (else the request's own, which coverage counts under its error alone). */
  matched: boolean;
  /** The rate window it was counted in (null: none kept), which a replay of an elided request counts again while the clock stands in that second. */
  bucket: string | null;
}

interface PipelineDeps {
  router: Router;
  /** The sandbox's parts, handed to every route's handler (the route table is shared by every sandbox). */
  routeDeps: RouteDeps;
  accounts: Accounts;
  limiter: RateLimiter;
  random: SeededRandom;
  now: () => number;
  /** The origin of the base URL (`https://api.svc.test`). */
  origin: string;
  /** Path prefix of the base URL ('' for a bare origin). */
  basePath: string;
  /** Injected faults, taken before anything else looks at the request. */
  faults: Faults;
  steps: Steps;
  /** The sandbox's generation: a request that began before a reset must not touch what came after. */
  generation: () => number;
  /** Receives exceptions that were not API errors (they become 500 responses). */
  onInternalError: (error: unknown, requestId: string) => void;
  /** How the clock moves: the 429's message tells how to get past the window. Default `manual`. */
  clock?: ClockMode;
  /** When set, every answer says `/v1` is deprecated (Deprecation, Sunset, Link). */
  deprecation?: Deprecation | null;
  /** Where every request is written down, in arrival order (`sandbox.requests`). */
  journal?: Journal;
  /** The snapshot's input log (docs/snapshots.md). */
  log?: RequestLog<unknown>;
  /** The chaos profile's faults and latency (state/chaos.ts), drawn where injected faults are taken. */
  chaos?: Chaos;
}

const EMPTY = new Uint8Array(0);

/** The journal's message for an injected network fault, which has no answer to carry one. */
const NETWORK_FAULT = 'No answer: an injected network fault dropped the connection, so the client saw a network error.';
const unexpected = (requestId: string) =>
  `The sandbox failed unexpectedly (request ${requestId}); this is a sandbox bug, retrying is safe.`;

/**
 * The request headers the API reads, each name's value or null: read in one pass over the
 * request's headers when it arrives (seven `get`s cost three times as much on a web `Headers`).
 * The rest it never looks at, and a snapshot keeps exactly these: core/read-headers.ts lists them once for both.
 */
export type ReadHeaders = { [K in ReadHeaderName]: string | null };

const READ = new Set<string>(READ_HEADERS);
const isRead = (name: string): name is ReadHeaderName => READ.has(name);

/** The {@link ReadHeaders} of a request's headers. */
export function readHeaders(headers: Incoming['headers']): ReadHeaders {
  const read: ReadHeaders = {
    accept: null,
    'access-control-request-headers': null,
    authorization: null,
    'content-length': null,
    'content-type': null,
    'last-event-id': null,
    origin: null,
  };
  headers.forEach((value, name) => {
    // Lower case as the platform's Headers gives names; another implementation (happy-dom's) may not.
    const key = name.toLowerCase();
    if (isRead(key)) read[key] = value;
  });
  return read;
}

/**
 * One request on the `/v1` road: what it arrived with, and a slot for what each stage learns
 * (null until the stage that fills it ran; the road's types say which stage that is, so no
 * stage reads a slot before it is filled). A plain object: the journal's note is its `record`,
 * and the handler gets a context of its own ({@link RequestContext}).
 */
interface Trip {
  readonly pipeline: Pipeline;
  readonly request: Incoming;
  /** What the API reads of its headers. */
  readonly read: ReadHeaders;
  readonly generation: number;
  /** The body read before (a snapshot's replay): the answer is then ready at once. */
  readonly preread: ReadBody | undefined;
  readonly record: JournalRecord | undefined;
  /** The snapshot log's entry of this request. */
  tape: unknown;
  requestId: string;
  /** The bearer token of the Authorization header. */
  token: string | null;
  origin: string | null;
  /** Something beyond the request id, the rate window and the journal changed: a fault taken, a chaos draw, a handler that writes. */
  changed: boolean;
  /** The rate window it was counted in (its key's, or the shared one of tokens that are no key); null before, or when it counted in none kept. */
  bucket: string | null;
  /** What chaos did: said in `X-Sandbox-Chaos`, and latency spent before the answer leaves. */
  latencyMs: number;
  said: string;
  /** The JSON body as read (undefined when the route reads none). */
  json: unknown;
  // The slots the stages fill: see the stages' `Add`s below.
  rate: RateDecision | null;
  path: string | null;
  search: string | null;
  route: AnyRoute | null;
  params: Record<string, string> | null;
  principal: Principal | null;
  query: unknown;
  body: unknown;
}

/** What a handler receives (api/router.ts `RequestContext`): its input, parsed, and who asks; nothing of the road. */
class HandlerContext implements RequestContext<unknown, unknown> {
  constructor(
    readonly principal: Principal,
    readonly params: Record<string, string>,
    readonly query: unknown,
    readonly body: unknown,
    private readonly request: Incoming,
  ) {}

  get headers(): Incoming['headers'] {
    return this.request.headers;
  }

  // A web Request makes its AbortSignal on first access: only streaming handlers need it.
  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/** What the stages add, each once (the `Add` of a {@link Stage}). */
interface Counted {
  /** The key's rate window, counted with this request (peeked at for a preflight). */
  rate: RateDecision;
}
interface Within {
  /** The path below the base URL, and the query string. */
  path: string;
  search: string;
}
interface Matched {
  route: AnyRoute;
  params: Record<string, string>;
}
interface Keyed {
  principal: Principal;
}

/**
 * The `/v1` road's stages, in order (docs/architecture.md, "One road"): the request's id and
 * key, a preflight, the key's rate window counted, the URL within the base URL, injected faults
 * and the chaos profile's, the row, the key, the rate limit, the scope, the body, the input.
 * Declared with the route table they serve (`V1_ROAD`), run by api/road.ts `travel`, the runner
 * the control road uses too.
 */
const arrive: Stage<Trip, unknown, Answer> = (x) => {
  const { random } = x.pipeline.deps;
  x.requestId = random.id('req');
  x.token = bearerToken(x.read.authorization);
  x.origin = x.read.origin;
  if (x.record) {
    x.record.requestId = x.requestId;
    x.record.apiKey = x.token;
  }
  return undefined;
};

/** A token that is no key at all shares one window with every other (see rate-limit.ts). */
const bucketOf = (token: string | null) =>
  token === null ? '(no key)' : TEST_KEY.test(token) || token.startsWith('SVC_LIVE_') ? token : '(not a key)';

/**
 * A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`), or a plain `OPTIONS`: 204
 * with what a browser needs to send the real request, before any key is asked for (a preflight
 * carries none). It changes nothing and counts against no rate limit.
 */
const preflight: Stage<Trip, unknown, Answer> = (x) => {
  if (x.request.method !== 'OPTIONS') return undefined;
  const { limiter, accounts, now, router } = x.pipeline.deps;
  x.rate = limiter.peek(bucketOf(x.token), accounts.limitFor(x.token), now());
  const allowed = router.allowed(x.pipeline.split(x.request.url).path);
  const methods = allowed.length > 0 ? allowed.join(', ') : 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
  const headers = x.pipeline.headersOf(x, null);
  setHeader(headers, 'allow', methods);
  setHeader(headers, 'access-control-allow-methods', methods);
  setHeader(
    headers,
    'access-control-allow-headers',
    x.read['access-control-request-headers'] || 'authorization, content-type, last-event-id',
  );
  setHeader(headers, 'access-control-max-age', '600');
  return new Answer(204, headers, null);
};

/** Every request counts against its key's window, so every answer can carry the headers. */
const count: Stage<Trip, Counted, Answer> = (x, out) => {
  const { limiter, accounts, now } = x.pipeline.deps;
  const bucket = bucketOf(x.token);
  out.rate = limiter.take(bucket, accounts.limitFor(x.token), now());
  x.bucket = out.rate.counted ? bucket : null;
  return undefined;
};

/** A URL of another origin or base path is 404. */
const within: Stage<Trip, Within, Answer> = (x, out) => {
  const { path, query } = x.pipeline.split(x.request.url);
  out.path = path;
  out.search = query;
  if (x.record) x.record.target = x.record.path = path;
  return undefined;
};

/**
 * Injected faults (state/faults.ts) and the chaos profile's (state/chaos.ts); chaos draws for every
 * request a rule of its takes, so its sequence never depends on the injected faults.
 */
const faults: Stage<Trip & Within, unknown, Answer> = (x) => {
  const { faults, chaos } = x.pipeline.deps;
  const method = x.request.method;
  const injected = faults.take(method, x.path);
  const drawn = chaos?.request(method, x.path) ?? null;
  if (!injected && !drawn) return undefined;
  x.changed = true;
  let fault: ActiveFault | null | undefined = injected;
  if (drawn) {
    x.latencyMs = drawn.latencyMs;
    if (!injected && drawn.fault?.status) x.said = `status=${drawn.fault.status}`;
    fault ??= drawn.fault;
  }
  if (fault?.network) return NETWORK_ERROR;
  if (fault) throw faultError(fault, fault.status ?? 503);
  return undefined;
};

/** The row (404 naming the nearest endpoint, 405 with `Allow`, HEAD as GET). */
const match: Stage<Trip & Within, Matched, Answer> = (x, out) => {
  const { route, params } = x.pipeline.deps.router.match(x.request.method, x.path);
  out.route = route;
  out.params = params;
  if (x.record) {
    x.record.path = route.path;
    // A path without parameters is its row's: the journal keeps the row's string, not one per request.
    if (x.record.target === route.path) x.record.target = route.path;
  }
  return undefined;
};

/** The key (401). */
const key: Stage<Trip, Keyed, Answer> = (x, out) => {
  const principal = authenticate(x.pipeline.deps.accounts, x.read.authorization, x.token);
  out.principal = principal;
  // The journal keeps the principal's copy of the key: one string per key, not one per request.
  if (x.record) x.record.apiKey = principal.key;
  return undefined;
};

/** The rate limit (429), after the key: an unknown key is told so before it is told to wait. */
const rateLimit: Stage<Trip & Counted & Keyed, unknown, Answer> = (x) => {
  const { rate } = x;
  if (rate.allowed) return undefined;
  const { clock } = x.pipeline.deps;
  throw new ApiError(429, 'rate_limited', rateLimitedMessage(x.principal.limit, rate.retryAfter, clock ?? 'manual'), undefined, {
    'retry-after': String(rate.retryAfter),
  });
};

/** The key's scopes (403). */
const scope: Stage<Trip & Matched & Keyed, unknown, Answer> = (x) => {
  authorize(x.principal, x.route.resource, x.route.method === 'GET' ? 'read' : 'write');
  return undefined;
};

/** The JSON body (400, 413), for a row that reads one; the snapshot's log is told what was read. */
const body: Stage<Trip & Matched, unknown, Answer> = (x) => {
  if (!x.route.body) return undefined;
  const { read } = x;
  if (x.preread !== undefined) {
    x.json = parseJson(read['content-type'], bodyOf(read['content-length'], x.preread));
    return undefined;
  }
  const { log } = x.pipeline.deps;
  const tape = log && x.tape !== undefined ? (bytes: ReadBody) => log.read(x.tape, bytes) : undefined;
  return readBody(x.request, tape, read['content-length']).then((bytes) => {
    x.json = parseJson(read['content-type'], bytes);
    return undefined;
  });
};

/** The row's schemas parse its input (400): a handler receives typed values, or never runs. */
const input: Stage<Trip & Within & Matched, unknown, Answer> = (x) => {
  // A body read across a reset belongs to a sandbox that is gone.
  if (x.pipeline.deps.generation() !== x.generation) throw interrupted();
  const { route } = x;
  if (route.query) x.query = route.query.parse(queryObject(new URLSearchParams(x.search)), '');
  if (route.body) x.body = route.body.parse(x.json, '');
  return undefined;
};

/** The `/v1` road: its stages (above) and its row, run as one step. */
const V1_ROAD: Road<Trip, Answer> = road<Trip, Answer>()
  .stage(arrive)
  .stage(preflight)
  .stage(count)
  .stage(within)
  .stage(faults)
  .stage(match)
  .stage(key)
  .stage(rateLimit)
  .stage(scope)
  .stage(body)
  .stage(input)
  .run((x) => x.pipeline.run(x));

/**
 * The HTTP pipeline every endpoint shares: the `/v1` road's stages ({@link V1_ROAD}), then the
 * row's handler as one step (core/steps.ts). Every answer is JSON (unless a handler replies with
 * a `raw` body: audio, server-sent events; or a fault is a network error) with `X-Request-Id`
 * and the three rate-limit headers; this is the one place where API errors become answers, and
 * where an unexpected exception becomes a 500 instead of escaping into the caller's process.
 * The chaos profile's latency is spent last, after the journal.
 */
export class Pipeline {
  private readonly prefix: string;
  /** The Deprecation, Sunset and Link headers of every answer (none unless deprecated). */
  private readonly deprecated: string[];

  constructor(readonly deps: PipelineDeps) {
    this.prefix = deps.origin + deps.basePath;
    this.deprecated = deprecationHeaders(deps.deprecation ?? null).flat();
  }

  /** Answers a web Request (`sandbox.handle`, interception). */
  handle(request: Request): Promise<Response> {
    try {
      const answer = this.answer(request);
      return answer instanceof Promise ? answer.then(toResponse) : Promise.resolve(toResponse(answer));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Answers a request as an {@link Answer}: the standalone server writes it to its socket as it
   * is. At once when no stage waits (no body to read, no chaos latency to spend).
   */
  answer(request: Incoming): Answer | Promise<Answer> {
    const x = this.exchange(request, undefined);
    let out: Answer | Promise<Answer>;
    try {
      out = travel(V1_ROAD, x);
    } catch (error) {
      out = this.fail(x, error);
    }
    if (out instanceof Promise) {
      return out.then(
        (answer) => this.end(x, answer),
        (error: unknown) => this.end(x, this.fail(x, error)),
      );
    }
    return this.end(x, out);
  }

  /** The journal's entry, the snapshot log's end of the request, and what chaos did to it. */
  private end(x: Trip, answer: Answer): Answer | Promise<Answer> {
    this.noted(x, answer);
    if (x.latencyMs > 0) x.said = x.said ? `${x.said}, latency=${x.latencyMs}ms` : `latency=${x.latencyMs}ms`;
    // A network error's headers cannot be set: the journal's network_error tells it.
    if (x.said && answer !== NETWORK_ERROR) answer.set('x-sandbox-chaos', x.said);
    const { chaos } = this.deps;
    if (x.latencyMs > 0 && chaos) return chaos.delay(x.latencyMs, x.request.signal).then(() => answer);
    return answer;
  }

  /**
   * Answers a request whose body was read before (`body`; the request itself carries none),
   * at once: a snapshot's replay (docs/snapshots.md). The same stages as {@link handle}, chaos's
   * draws included; its latency is not waited (the answer goes nowhere, so it is no `Response`:
   * a replay of thousands of requests would hold a body stream for each until it yields).
   */
  answerNow(request: Request, body: ReadBody | undefined): Answer {
    const x = this.exchange(request, body ?? EMPTY);
    let answer: Answer;
    try {
      const out = travel(V1_ROAD, x);
      if (out instanceof Promise) throw new Error('answerNow: the answer was not ready at once');
      answer = out;
    } catch (error) {
      answer = this.fail(x, error);
    }
    return this.noted(x, answer);
  }

  /**
   * The rate-limit headers of a request no road could read (the server's HTTP parser refused it:
   * an unknown method, headers over the limit) that names a valid key: its window counted as any
   * request's is, so that answer carries them as every other does. Null for no valid key.
   */
  rateHeaders(authorization: string | null): Record<string, string> | null {
    const { accounts, limiter, now } = this.deps;
    let principal: Principal;
    try {
      principal = authenticate(accounts, authorization);
    } catch {
      return null;
    }
    const rate = limiter.take(bucketOf(principal.key), accounts.limitFor(principal.key), now());
    return {
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      'x-ratelimit-reset': String(rate.reset),
    };
  }

  /** Counts again, now, the requests a snapshot kept only as a count in each rate window (an `elided` input's `windows`). */
  countRate(windows: ReadonlyArray<readonly [string, number]>): void {
    const { limiter, now } = this.deps;
    for (const [bucket, n] of windows) limiter.count(bucket, n, now());
  }

  /** Draws the request ids of `count` requests a snapshot kept only as a count (docs/snapshots.md). */
  skipRequestIds(count: number): void {
    for (let i = 0; i < count; i++) this.deps.random.id('req');
  }

  private exchange(request: Incoming, preread: ReadBody | undefined): Trip {
    const read = readHeaders(request.headers);
    return {
      pipeline: this,
      request,
      read,
      generation: this.deps.generation(),
      preread,
      record: this.deps.journal?.open(request.method),
      tape: this.deps.log?.arrive(request, read),
      requestId: '',
      token: null,
      origin: null,
      changed: false,
      bucket: null,
      latencyMs: 0,
      said: '',
      json: undefined,
      rate: null,
      path: null,
      search: null,
      route: null,
      params: null,
      principal: null,
      query: undefined,
      body: undefined,
    };
  }

  /** The journal's entry, then the snapshot log's end of the request (which reads the entry). */
  private noted(x: Trip, answer: Answer): Answer {
    const { log, journal } = this.deps;
    // A request that began before a reset belongs to no journal after it.
    const record = this.deps.generation() === x.generation ? x.record : undefined;
    if (journal && record) {
      // A preflight, or a URL outside the base URL, was answered before the path was split.
      if (!record.target) record.target = record.path = this.target(x.request.url);
      if (answer === NETWORK_ERROR) {
        record.errorCode = 'network_error';
        record.errorMessage = NETWORK_FAULT;
      }
      journal.close(record, answer.status, this.deps.now());
    }
    if (log && x.tape !== undefined) {
      log.read(x.tape, EMPTY); // no body was read (told once: a body read before stays)
      log.answered(x.tape, { inert: !x.changed && answer.status !== 500, record, matched: x.route !== null, bucket: x.bucket });
    }
    return answer;
  }

  /** The path a journal entry names for a URL the road did not split. */
  private target(url: string): string {
    return splitUrl(url, url.startsWith(this.prefix) ? this.deps.basePath : '').path;
  }

  /** The matched row's handler, as one step, and its answer. */
  run(x: Trip & Matched & Keyed): Answer {
    const { route, request } = x;
    if (route.method !== 'GET') x.changed = true;
    const ctx = new HandlerContext(x.principal, x.params, x.query, x.body, request);
    const reply = this.deps.steps.run(() => route.handle(ctx, this.deps.routeDeps));
    if (reply.raw !== undefined) x.changed = true;
    if (x.request.method === 'HEAD') {
      // The GET's status and headers, without its body (a stream it opened is closed at once).
      if (reply.raw instanceof ReadableStream) void reply.raw.cancel().catch(() => undefined);
      const headers = this.headersOf(x, reply.headers);
      if (reply.raw === undefined && reply.status !== 204 && !reply.headers?.['content-type'])
        setHeader(headers, 'content-type', JSON_TYPE);
      return new Answer(reply.status, headers, null);
    }
    if (reply.raw !== undefined) return new Answer(reply.status, this.headersOf(x, reply.headers), reply.raw);
    return this.json(x, reply.status, reply.body, reply.headers);
  }

  /** The answer to what a request threw: an API error's own, or a 500 for anything else. */
  private fail(x: Trip, error: unknown): Answer {
    const refusal = refusalOf(error);
    if (x.record) {
      x.record.errorCode = refusal ? refusal.code : 'internal_error';
      x.record.errorMessage = refusal ? refusal.message : unexpected(x.requestId);
    }
    if (refusal) return this.json(x, refusal.status, refusal.toBody(), refusal.headers);
    return this.internalError(x, error);
  }

  /** The 500 answer. It cannot throw: the report of a failure must not fail itself. */
  private internalError(x: Trip, error: unknown): Answer {
    try {
      this.deps.onInternalError(error, x.requestId);
    } catch {
      // a failing recorder must not turn a 500 into an exception in the caller's process
    }
    return this.json(x, 500, errorEnvelope('internal_error', unexpected(x.requestId)));
  }

  /** A JSON answer (none for a 204). */
  private json(x: Trip, status: number, body: unknown, own?: Record<string, string>): Answer {
    const headers = this.headersOf(x, own);
    if (status === 204) return new Answer(status, headers, null);
    setHeader(headers, 'content-type', JSON_TYPE);
    return new Answer(status, headers, JSON.stringify(body));
  }

  /**
   * The headers of every answer (docs/errors.md, docs/rate-limits.md, docs/interception.md), and
   * its own (those win). A request refused before its rate window was counted carries none of it.
   */
  headersOf(x: Trip, own: Record<string, string> | null | undefined): string[] {
    const headers = ['x-request-id', x.requestId];
    const { rate } = x;
    if (rate) {
      headers.push(
        'x-ratelimit-limit',
        String(rate.limit),
        'x-ratelimit-remaining',
        String(rate.remaining),
        'x-ratelimit-reset',
        String(rate.reset),
      );
    }
    // CORS on every answer (docs/interception.md, "Browsers"): any origin may call the sandbox (it
    // holds test data, and keys travel in a header, not a cookie, so no credentials mode is
    // needed); a request's `Origin` is echoed.
    headers.push('access-control-allow-origin', x.origin ?? '*', 'access-control-expose-headers', EXPOSED, 'vary', 'Origin');
    for (const value of this.deprecated) headers.push(value);
    if (own) {
      for (const name in own) {
        const value = own[name];
        if (value !== undefined) setHeader(headers, name, value);
      }
    }
    return headers;
  }

  /** The path below the base URL and the query; a URL of another origin or base path is 404. */
  split(url: string): { path: string; query: string } {
    const next = url.charAt(this.prefix.length);
    if (!url.startsWith(this.prefix) || (next !== '' && next !== '/' && next !== '?' && next !== '#')) {
      throw new ApiError(
        404,
        'not_found',
        `This sandbox serves ${this.prefix}/v1/…; ${url.slice(0, 200)} is outside it. Send the request to its base URL.`,
      );
    }
    return splitUrl(url, this.deps.basePath);
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Headers a browser script may read on any answer (CORS); the rest it may not. */
const EXPOSED =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Content-Disposition, Deprecation, Sunset, Link, X-Sandbox-Chaos';

/**
 * The path below the base path, and the query string, of a Request's URL. A Request's `url`
 * is already parsed and serialised (absolute, dot segments resolved, percent-encoded), so
 * slicing it gives what `new URL(url)` would, for a fraction of the cost on every request.
 */
export function splitUrl(url: string, basePath: string): { path: string; query: string } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart === -1) return { path: '/', query: '' };
  let end = url.indexOf('#', pathStart);
  if (end === -1) end = url.length;
  const question = url.indexOf('?', pathStart);
  const pathEnd = question === -1 || question > end ? end : question;
  return {
    path: url.slice(pathStart + basePath.length, pathEnd) || '/',
    query: pathEnd === end ? '' : url.slice(pathEnd + 1, end),
  };
}

/** What an injected fault answers (docs/auth-and-accounts.md's Retry-After rule holds for an injected 429 too). */
function faultError(fault: ActiveFault, status: number): ApiError {
  const code = status === 429 ? 'rate_limited' : status === 500 ? 'internal_error' : 'service_unavailable';
  const wait = fault.retryAfter ?? (status === 429 ? 1 : null);
  const message =
    status === 429
      ? `Too many requests (an injected fault); retry after ${wait} second${wait === 1 ? '' : 's'}.`
      : `The service failed to answer (an injected ${status} fault)${wait === null ? '' : `; retry after ${wait} second${wait === 1 ? '' : 's'}`}.`;
  return new ApiError(status, code, message, undefined, wait === null ? {} : { 'retry-after': String(wait) });
}

function interrupted(): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    'The sandbox was reset or closed while this request was in flight, so it changed nothing; send it again.',
    undefined,
    { 'retry-after': '1' },
  );
}
