import type { SeededRandom } from '../core/random.js';
import { queryObject } from '../core/schema.js';
import type { Steps } from '../core/steps.js';
import { TEST_KEY, type Accounts, type Principal } from '../state/accounts.js';
import type { ActiveFault, Faults } from '../state/faults.js';
import { authenticate, authorize, bearerToken } from './auth.js';
import { ApiError, errorEnvelope, refusalOf } from './errors.js';
import type { ClockMode } from '../core/clock.js';
import { deprecationHeaders, type Deprecation } from './deprecation.js';
import { bodyOf, parseJson, readBody, type ReadBody } from './request-body.js';
import { rateLimitedMessage, type RateLimiter } from './rate-limit.js';
import type { AnyRoute, Router } from './router.js';
import type { Journal, JournalNote } from '../state/journal.js';
import type { Chaos } from '../state/chaos.js';

interface PipelineDeps {
  router: Router;
  /** The sandbox's parts, handed to every route's handler (the route table is shared by every sandbox). */
  routeDeps: unknown;
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
  /** Where every answered request is written down (`sandbox.requests`). */
  journal?: Journal;
  /**
   * Told of every request as it starts, before anything is drawn for it (a snapshot's input
   * log, docs/snapshots.md); what it returns is told the body once it has been read (or an
   * empty one once the request is answered without reading any; only the first telling counts).
   */
  onRequest?: (request: Request) => ((body: ReadBody) => void) | undefined;
  /** The chaos profile's faults and latency (state/chaos.ts), drawn where injected faults are taken. */
  chaos?: Chaos;
}

/** What chaos did to one request: said in its `X-Sandbox-Chaos` header, and latency spent before it leaves. */
interface Suffered {
  latencyMs: number;
  said: string[];
}

export type { ReadBody } from './request-body.js';
const EMPTY = new Uint8Array(0);

/** The journal's message for an injected network fault, which has no answer to carry one. */
const NETWORK_FAULT = 'No answer: an injected network fault dropped the connection, so the client saw a network error.';
const unexpected = (requestId: string) =>
  `The sandbox failed unexpectedly (request ${requestId}); this is a sandbox bug, retrying is safe.`;

/**
 * The HTTP pipeline every endpoint shares, in this order: the request's URL is this
 * sandbox's (404 otherwise), injected faults (see state/faults.ts) and the chaos profile's
 * (state/chaos.ts; its latency is spent last, after the journal), route (404/405),
 * authenticate (401), rate limit (429), authorise (403), read the JSON body (400/413),
 * handle. Every response is JSON (unless a handler replies with a `raw` body: audio,
 * server-sent events; or a fault is a network error) with `X-Request-Id` and the three
 * rate-limit headers; this is the one place where API errors become responses, and where
 * an unexpected exception becomes a 500 instead of escaping into the caller's process.
 * The handler runs as one step (core/steps.ts).
 */
export class Pipeline {
  private readonly prefix: string;
  /** The Deprecation, Sunset and Link headers of every answer (none unless deprecated). */
  private readonly deprecated: Array<[string, string]>;

  constructor(private readonly deps: PipelineDeps) {
    this.prefix = deps.origin + deps.basePath;
    this.deprecated = deprecationHeaders(deps.deprecation ?? null);
  }

  async handle(request: Request): Promise<Response> {
    const generation = this.deps.generation();
    const note: JournalNote = { requestId: '', template: null, target: '', code: null, message: null, apiKey: null };
    const tape = this.deps.onRequest?.(request);
    const suffered: Suffered = { latencyMs: 0, said: [] };
    let response: Response;
    try {
      response = await this.answer(request, generation, note, suffered, undefined, tape);
    } finally {
      tape?.(EMPTY); // no body was read (told once: a body read before stays)
    }
    this.noted(request, response, generation, note);
    if (suffered.latencyMs > 0) suffered.said.push(`latency=${suffered.latencyMs}ms`);
    // A network error's headers cannot be set: the journal's network_error tells it.
    if (suffered.said.length > 0 && response.type !== 'error') response.headers.set('x-sandbox-chaos', suffered.said.join(', '));
    if (suffered.latencyMs > 0) await this.deps.chaos!.delay(suffered.latencyMs, request.signal);
    return response;
  }

  /**
   * Answers a request whose body was read before (`body`; the request itself carries none),
   * at once: a snapshot's replay (docs/snapshots.md). The same steps as {@link handle}, chaos's
   * draws included; its latency is not waited (the answer goes nowhere).
   */
  handleNow(request: Request, body: ReadBody | undefined): Response {
    const generation = this.deps.generation();
    const note: JournalNote = { requestId: '', template: null, target: '', code: null, message: null, apiKey: null };
    const response = this.answer(request, generation, note, { latencyMs: 0, said: [] }, body ?? EMPTY, undefined);
    if (response instanceof Promise) throw new Error('handleNow: the answer was not ready at once');
    return this.noted(request, response, generation, note);
  }

  private noted(request: Request, response: Response, generation: number, note: JournalNote): Response {
    // A request that began before a reset belongs to no journal after it.
    if (this.deps.journal && this.deps.generation() === generation) {
      // A preflight, or a URL outside the base URL, was answered before the path was split.
      note.target ||= splitUrl(request.url, request.url.startsWith(this.prefix) ? this.deps.basePath : '').path;
      this.deps.journal.record(
        request.method,
        response.status,
        response.type === 'error' ? { ...note, code: 'network_error', message: NETWORK_FAULT } : note,
        this.deps.now(),
      );
    }
    return response;
  }

  /** `preread`: the body, read before (a replay); the answer is then ready at once. `tape` is told the body read. */
  private answer(
    request: Request,
    generation: number,
    note: JournalNote,
    suffered: Suffered,
    preread: ReadBody | undefined,
    tape: ((body: ReadBody) => void) | undefined,
  ): Response | Promise<Response> {
    const { random, accounts, limiter, now } = this.deps;
    const requestId = random.id('req');
    const header = request.headers.get('authorization');
    const token = bearerToken(header);
    note.requestId = requestId;
    note.apiKey = token;
    // Every request counts against its key's window, so every response can carry the headers.
    const origin = request.headers.get('origin');
    // A token that is no key at all shares one window with every other (see rate-limit.ts).
    const bucket = token === null ? '(no key)' : TEST_KEY.test(token) || token.startsWith('SVC_LIVE_') ? token : '(not a key)';
    if (request.method === 'OPTIONS')
      return this.preflight(request, {
        requestId,
        rate: limiter.peek(bucket, accounts.limitFor(token), now()).headers,
        origin,
        deprecated: this.deprecated,
      });
    const rate = limiter.take(bucket, accounts.limitFor(token), now());
    // What every answer's headers are made of: one Headers is built from it per response.
    const base: Common = { requestId, rate: rate.headers, origin, deprecated: this.deprecated };
    try {
      const { path, query } = this.split(request.url);
      note.target = path;
      const injected = this.deps.faults.take(request.method, path);
      // Chaos draws for every request a rule of its takes, so its sequence never depends on the injected faults.
      const chaos = this.deps.chaos?.request(request.method, path);
      const fault = injected ?? chaos?.fault ?? undefined;
      if (chaos) {
        suffered.latencyMs = chaos.latencyMs;
        if (!injected && chaos.fault?.status) suffered.said.push(`status=${chaos.fault.status}`);
      }
      if (fault?.network) return Response.error();
      if (fault) throw faultError(fault);
      const { route, params } = this.deps.router.match(request.method, path);
      note.template = route.path;
      const principal = authenticate(accounts, header, token);
      if (!rate.allowed) {
        throw new ApiError(
          429,
          'rate_limited',
          rateLimitedMessage(principal.limit, rate.retryAfter, this.deps.clock ?? 'manual'),
          undefined,
          {
            'retry-after': String(rate.retryAfter),
          },
        );
      }
      authorize(principal, route.resource, route.method === 'GET' ? 'read' : 'write');
      const go = (json: unknown) => this.finish(request, route, params, principal, query, json, generation, base, note);
      if (!route.body) return go(undefined);
      if (preread !== undefined) return go(parseJson(request.headers.get('content-type'), bodyOf(request, preread)));
      return readBody(request, tape)
        .then((bytes) => parseJson(request.headers.get('content-type'), bytes))
        .then(go, (error: unknown) => this.fail(error, requestId, base, note));
    } catch (error) {
      return this.fail(error, requestId, base, note);
    }
  }

  /** The rest of a request once its body is read: parse the input, run the handler, make the answer. */
  private finish(
    request: Request,
    route: AnyRoute,
    params: Record<string, string>,
    principal: Principal,
    query: string,
    json: unknown,
    generation: number,
    base: Common,
    note: JournalNote,
  ): Response {
    try {
      if (this.deps.generation() !== generation) throw interrupted();
      // The route's schemas parse its input here: a handler receives typed values, or never runs.
      const parsedQuery = route.query ? route.query.parse(queryObject(new URLSearchParams(query)), '') : undefined;
      const body = route.body ? route.body.parse(json, '') : undefined;
      const context = {
        principal,
        params,
        query: parsedQuery,
        body,
        headers: request.headers,
        // undici makes a Request's AbortSignal on first access: only streaming handlers need it.
        get signal() {
          return request.signal;
        },
      };
      const reply = this.deps.steps.run(() => route.handle(context, this.deps.routeDeps));
      if (request.method === 'HEAD') {
        // The GET's status and headers, without its body (a stream it opened is closed at once).
        if (reply.raw instanceof ReadableStream) void reply.raw.cancel().catch(() => undefined);
        const type: Record<string, string> =
          reply.raw === undefined && reply.status !== 204 ? { 'content-type': 'application/json; charset=utf-8' } : {};
        return new Response(null, { status: reply.status, headers: headersOf(base, { ...type, ...reply.headers }) });
      }
      if (reply.raw !== undefined) return new Response(reply.raw, { status: reply.status, headers: headersOf(base, reply.headers) });
      return respond(reply.status, reply.body, base, reply.headers);
    } catch (error) {
      return this.fail(error, note.requestId, base, note);
    }
  }

  /** The answer to what a request threw: an API error's own, or a 500 for anything else. */
  private fail(error: unknown, requestId: string, base: Common, note: JournalNote): Response {
    const refusal = refusalOf(error);
    note.code = refusal ? refusal.code : 'internal_error';
    note.message = refusal ? refusal.message : unexpected(requestId);
    if (refusal) return respond(refusal.status, refusal.toBody(), base, refusal.headers);
    return this.internalError(error, requestId, base);
  }

  /**
   * A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`), or a plain `OPTIONS`:
   * 204 with what a browser needs to send the real request, before any key is asked for
   * (a preflight carries none). It changes nothing and counts against no rate limit.
   */
  private preflight(request: Request, base: Common): Response {
    let allowed: string[] = [];
    try {
      allowed = this.deps.router.allowed(this.split(request.url).path);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return respond(error.status, error.toBody(), base);
    }
    const methods = allowed.length > 0 ? allowed.join(', ') : 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
    return new Response(null, {
      status: 204,
      headers: headersOf(base, {
        allow: methods,
        'access-control-allow-methods': methods,
        'access-control-allow-headers':
          request.headers.get('access-control-request-headers') || 'authorization, content-type, last-event-id',
        'access-control-max-age': '600',
      }),
    });
  }

  /** The 500 answer. It cannot throw: the report of a failure must not fail itself. */
  private internalError(error: unknown, requestId: string, headers: Common): Response {
    try {
      this.deps.onInternalError(error, requestId);
    } catch {
      // a failing recorder must not turn a 500 into an exception in the caller's process
    }
    return respond(500, errorEnvelope('internal_error', unexpected(requestId)), headers);
  }

  /** The path below the base URL and the query; a URL of another origin or base path is 404. */
  private split(url: string): { path: string; query: string } {
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
function faultError(fault: ActiveFault): ApiError {
  const status = fault.status!;
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

/** What the headers of every answer are made of (docs/errors.md, docs/rate-limits.md, docs/interception.md). */
interface Common {
  requestId: string;
  /** The three rate-limit headers of this request's window. */
  rate: Record<string, string>;
  /** The request's `Origin`, echoed for CORS (`*` without one). */
  origin: string | null;
  /** Deprecation, Sunset and Link, when `/v1` is deprecated. */
  deprecated: ReadonlyArray<[string, string]>;
}

/** One `Headers` of the answer's common headers and its own (those win). */
function headersOf(base: Common, own?: Record<string, string>): Headers {
  // Appended one by one, from the values themselves: `new Headers(pairs)` converts the pairs
  // as a WebIDL sequence of sequences first, which cost about twice the time and memory on
  // every answer (bench/RESULTS.md, "Request overhead").
  const headers = new Headers();
  headers.append('x-request-id', base.requestId);
  for (const name in base.rate) headers.append(name, base.rate[name]!);
  // CORS on every answer (docs/interception.md, "Browsers"): any origin may call the sandbox (it
  // holds test data, and keys travel in a header, not a cookie, so no credentials mode is
  // needed); a request's `Origin` is echoed.
  headers.append('access-control-allow-origin', base.origin ?? '*');
  headers.append('access-control-expose-headers', EXPOSED);
  headers.append('vary', 'Origin');
  for (const [name, value] of base.deprecated) headers.append(name, value);
  if (own) for (const name in own) headers.set(name, own[name]!);
  return headers;
}

/**
 * Headers go in as a `Headers` instance: while interception is applied, the patched
 * `Response` constructor re-reads a plain-object init into a second `Headers` to record raw
 * header names, which made every response markedly dearer.
 */
function respond(status: number, body: unknown, base: Common, own?: Record<string, string>): Response {
  const headers = headersOf(base, own);
  if (status === 204) return new Response(null, { status, headers });
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers });
}
