import { decodeSegment, fitsPattern, segmentsOf, type Method } from '../core/path-pattern.js';
import { pathDistance } from '../core/suggest.js';
import type { JsonSchema, Schema } from '../core/schema.js';
import type { Principal, Resource } from '../state/accounts.js';
import { ApiError } from './errors.js';

export type { Method };

export interface RequestContext<B = undefined, Q = undefined> {
  principal: Principal;
  /** Path parameters, e.g. `{ id: 'call_…' }`. */
  params: Record<string, string>;
  /** The query string, parsed by the route's `query` schema (undefined when it has none). */
  query: Q;
  /** The JSON body, parsed by the route's `body` schema (undefined when it has none). */
  body: B;
  /** The request's headers (e.g. `Accept`, `Last-Event-ID`). */
  headers: { get(name: string): string | null };
  /** Aborts when the client goes away: a streaming handler stops its work on it. */
  signal: AbortSignal;
}

export interface Reply {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is instead of `body` (audio, server-sent events); set `content-type` in `headers`. */
  raw?: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

/**
 * Synchronous: a handler runs as one step of the sandbox (core/steps.ts). `deps` are the
 * answering sandbox's parts: a route table is made once per process and shared by every
 * sandbox, so a handler reads the sandbox it serves from its arguments, never from a closure.
 */
export type Handler<B = undefined, Q = undefined, D = unknown> = (ctx: RequestContext<B, Q>, deps: D) => Reply;

/** A success answer of a route, for the OpenAPI document and the conformance check. */
export interface RouteResponse {
  status: number;
  description: string;
  /** The body by media type: a JSON Schema producer, or a JSON Schema for non-JSON bodies. Absent: no body (204). */
  content?: Record<string, { schema: () => JsonSchema }>;
  /** Headers beyond the ones every answer carries (request id, rate limit, CORS). */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** One endpoint of the spec's table. */
export interface Route<B = unknown, Q = unknown, D = unknown> {
  method: Method;
  /** Path relative to the base URL, with `{param}` placeholders: `/v1/calls/{id}`. */
  path: string;
  resource: Resource;
  summary: string;
  /** What the operation does and its main rules, in a sentence or two (the document's `description`). */
  description: string;
  /** A stable name for generated clients (`placeCall`). */
  operationId: string;
  /** Each `{param}` of `path`: what it names, and a realistic value (the document's `example`). */
  params?: Record<string, { description: string; example: string }>;
  /** Request bodies the server accepts, by name (the document's `examples`); every route with a `body` has one. */
  examples?: Record<string, { summary: string; value: unknown }>;
  /** Parses the JSON body before the handler runs (POST, PUT); its refusal is the 400. */
  body?: Schema<B>;
  /** Parses the query string before the handler runs. */
  query?: Schema<Q>;
  handle: Handler<B, Q, D>;
  response: RouteResponse;
  /** Error statuses this route answers beyond those every route can (see api/openapi.ts). */
  errors?: number[];
}

/** A route of any input types, for the table. */
export type AnyRoute = Route<unknown, unknown, unknown>;

/**
 * Writes one route with its handler typed by its schemas (and `D`, the parts its handler reads).
 * The table forgets those types: the pipeline gives a handler only what the route's own schemas
 * parsed, and the sandbox's parts (a `RouteDeps`, which every `D` is a part of).
 */
export function route<B = undefined, Q = undefined, D = unknown>(definition: Route<B, Q, D>): AnyRoute {
  return definition as unknown as AnyRoute;
}

/** What a route table needs of a row: its method and its path pattern. */
export interface Routable {
  method: Method;
  /** With `{param}` placeholders: `/v1/calls/{id}`, `/sessions/{s}/advance`. */
  path: string;
}

interface Compiled<R extends Routable> {
  route: R;
  segments: string[];
}

export interface Match<R extends Routable = AnyRoute> {
  route: R;
  params: Record<string, string>;
}

/** How a table words its 404: what the path was, and the endpoint nearest to it (if any is near). */
export type NotFound = (method: string, path: string, nearest: (method: string, segments: string[]) => string | undefined) => ApiError;

/**
 * Matches a method and path against a route table: an unknown path (or version) is 404, a
 * known path with another method is 405 with an `Allow` header. The one table matcher of the
 * sandbox: `/v1` ({@link Router}) and the standalone server's control API
 * (server/control/api.ts) are both served by it.
 */
export class RouteTable<R extends Routable> {
  private readonly compiled: Compiled<R>[];
  /**
   * The rows of paths without parameters, by method and path as written (`/v1/calls`): most
   * requests name one exactly, and find their row without splitting their path or walking the
   * table. A row is here only when the table's walk would pick it for that path, so any other
   * path (a trailing slash, a parameter) walks the table as before, to the same answer.
   */
  private readonly exact = new Map<string, Map<string, R>>();

  /**
   * @param notFound words the 404 (default: `/v1`'s, which names the version and the nearest endpoint).
   * @param options.options whether `OPTIONS` is answered on every path (a CORS preflight): then `Allow` lists it.
   */
  constructor(
    readonly routes: readonly R[],
    private readonly notFound: NotFound = apiNotFound(routes),
    private readonly options: { preflight: boolean } = { preflight: true },
  ) {
    this.compiled = routes.map((route) => ({ route, segments: patternOf(route.path) }));
    for (const { route, segments } of this.compiled) {
      if (segments.some((segment) => segment.startsWith('{'))) continue;
      const first = this.compiled.find((row) => row.route.method === route.method && fitsPattern(row.segments, segments));
      if (first?.route !== route) continue;
      let paths = this.exact.get(route.method);
      if (!paths) this.exact.set(route.method, (paths = new Map()));
      paths.set(route.path, route);
    }
  }

  /** The methods `path` answers (its routes', HEAD beside GET, OPTIONS when preflights are answered); empty when no route has the path. */
  allowed(path: string): string[] {
    const segments = segmentsOf(path);
    const methods = this.compiled
      .filter(({ segments: pattern }) => fitsPattern(pattern, segments))
      .map(({ route }) => route.method as string);
    if (methods.length === 0) return [];
    if (methods.includes('GET')) methods.push('HEAD');
    return this.options.preflight ? [...methods, 'OPTIONS'] : methods;
  }

  /** HEAD matches the GET route of a path (answered without its body). */
  match(method: string, path: string): Match<R> {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const exact = this.exact.get(wanted)?.get(path);
    if (exact) return { route: exact, params: {} };
    const segments = segmentsOf(path);
    for (const { route, segments: pattern } of this.compiled) {
      if (route.method !== wanted) continue;
      const params = matchSegments(pattern, segments);
      if (params) return { route, params };
    }
    const allowed = this.allowed(path);
    if (allowed.length > 0) {
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}.`, undefined, {
        allow: allowed.join(', '),
      });
    }
    throw this.notFound(method, path, (m, s) => this.nearestEndpoint(m, s));
  }

  /**
   * The endpoint nearest to a path no route has (`GET /v1/calls` for `GET /v1/call`), when one
   * is near enough to be what was meant: a 404 names it instead of pointing to documentation a
   * client in another language may not have.
   */
  private nearestEndpoint(method: string, segments: string[]): string | undefined {
    // A path far longer than any route is no typo of one, and measuring it would cost a client with
    // no key milliseconds of the sandbox's CPU per request.
    if (segments.length > 8 || segments.some((segment) => segment.length > 64)) return undefined;
    let best: { route: R; cost: number } | undefined;
    for (const { route, segments: pattern } of this.compiled) {
      const cost = pathDistance(segments, pattern) + (route.method === method ? 0 : 1);
      if (!best || cost < best.cost) best = { route, cost };
    }
    const near = best && best.cost <= Math.max(2, Math.floor(segments.join('/').length / 4));
    return near ? `${best!.route.method} ${best!.route.path}` : undefined;
  }
}

/** The `/v1` route table. */
export class Router extends RouteTable<AnyRoute> {}

/** `/v1`'s 404: another version than v1, a near endpoint, or where the endpoints are. */
function apiNotFound(routes: readonly Routable[]): NotFound {
  return (method, path, nearest) => {
    const segments = segmentsOf(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    const version = /^\/(v\d+)\//.exec(`${path}/`)?.[1];
    let hint: string;
    if (version && version !== 'v1') {
      hint = `This API version does not exist: the current version is v1 (${path.replace(/^\/v\d+/, '/v1')}).`;
    } else if (version === 'v1') {
      const near = nearest(wanted, segments);
      hint = near
        ? `Did you mean ${near}?`
        : `The endpoints are under ${[...new Set(routes.map((route) => `/${patternOf(route.path).slice(0, 2).join('/')}`))].join(', ')}.`;
    } else {
      const near = segments.length > 0 ? nearest(wanted, ['v1', ...segments]) : undefined;
      hint = near ? `Every endpoint is under /v1/: did you mean ${near}?` : 'Every endpoint is under /v1/, e.g. /v1/calls.';
    }
    return new ApiError(404, 'not_found', `No endpoint ${method} ${path}. ${hint}`);
  };
}

/** Route patterns split once per process: every sandbox has the same table. */
const patterns = new Map<string, string[]>();
function patternOf(path: string): string[] {
  let segments = patterns.get(path);
  if (!segments) patterns.set(path, (segments = segmentsOf(path)));
  return segments;
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (!fitsPattern(pattern, actual)) return undefined;
  // Only a route that matches pays for its parameters.
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i]!.startsWith('{')) params[pattern[i]!.slice(1, -1)] = decodeSegment(actual[i]!);
  }
  return params;
}
