import { decodeSegment, fitsPattern, segmentsOf, type Method } from '../core/path-pattern.js';
import { pathDistance } from '../core/suggest.js';
import type { JsonSchema, Schema } from '../core/schema.js';
import type { Principal, Resource } from '../state/accounts.js';
import { ApiError } from './errors.js';
import type { RouteDeps } from './route-deps.js';

export type { Method };

/**
 * The names of a path template's `{name}` segments, as a union:
 * `'/sessions/{s}/keys/{key}'` → `'s' | 'key'`.
 */
export type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/**
 * The path parameters a row's path template promises: `'/v1/calls/{id}'` → `{ id: string }`.
 * The table matched every segment before the row runs, so each named one is there. A path that
 * is only known as `string` (the table's own view of a row) gives a record.
 */
export type PathParams<P extends string> = string extends P ? Record<string, string> : { [K in ParamNames<P>]: string };

/** What a `/v1` handler receives: its input already parsed by the row's schemas, and who asks. */
export interface RequestContext<B = undefined, Q = undefined, P extends string = string> {
  principal: Principal;
  /** Path parameters, exactly the `{name}`s of the row's path: `{ id: 'call_…' }`. */
  params: PathParams<P>;
  /** The query string, parsed by the route's `query` schema (undefined when it has none). */
  query: Q;
  /** The JSON body, parsed by the route's `body` schema (undefined when it has none). */
  body: B;
  /** The request's headers (e.g. `Accept`, `Last-Event-ID`). */
  headers: { get(name: string): string | null };
  /** Aborts when the client goes away: a streaming handler stops its work on it. */
  readonly signal: AbortSignal;
}

/** The context of any row whose path names an `{id}`: what a shared "find the thing" helper reads. */
export type IdContext = RequestContext<unknown, unknown, '{id}'>;

/** What a row's handler answers: a status and a JSON body, or bytes / a stream sent as they are. */
export interface Reply {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is instead of `body` (audio, server-sent events); set `content-type` in `headers`. */
  raw?: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

/** A success answer of a route, for the OpenAPI document and the conformance check. */
export interface RouteResponse {
  status: number;
  description: string;
  /** The body by media type: a JSON Schema producer, or a JSON Schema for non-JSON bodies. Absent: no body (204). */
  content?: Record<string, { schema: () => JsonSchema }>;
  /** Headers beyond the ones every answer carries (request id, rate limit, CORS). */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** Request bodies a row accepts, by name (the document's `examples`); every row with a `body` has one. */
export type RouteExamples = Record<string, { summary: string; value: unknown }>;

/** A path parameter in the document: what it names (a table may say it for every row), and a realistic value. */
export interface ParamDoc {
  description?: string;
  example: string;
}

/** What a row says of itself in the document, whichever table it is in. */
export interface RouteDoc<P extends string = string> {
  method: Method;
  /** Relative to the table's mount, with `{param}` placeholders: `/v1/calls/{id}`, `/sessions/{s}/advance`. */
  path: P;
  summary: string;
  /** What the operation does and its main rules, in a sentence or two (the document's `description`; absent: the summary). */
  description?: string;
  /** A stable name for generated clients (`placeCall`). */
  operationId: string;
  /** Each `{param}` of `path`: what it names, and a realistic value (the document's `example`). */
  params?: string extends P ? Partial<Record<string, ParamDoc>> : { [K in ParamNames<P>]?: ParamDoc };
  /** Request bodies the server accepts, by name (the document's `examples`); every route with a `body` has one. */
  examples?: RouteExamples;
}

/**
 * One endpoint of the spec's table, as the table holds it. `handle` is a method here: the table
 * forgets each row's input types (its own schemas parse exactly what its handler reads), which
 * {@link defineRoute} checked when the row was written.
 */
export interface Route<B = unknown, Q = unknown, P extends string = string> extends RouteDoc<P> {
  resource: Resource;
  /** Parses the JSON body before the handler runs (POST, PUT); its refusal is the 400. */
  body?: Schema<B>;
  /** Parses the query string before the handler runs. */
  query?: Schema<Q>;
  /**
   * Synchronous: a handler runs as one step of the sandbox (core/steps.ts). `deps` are the
   * answering sandbox's parts: a route table is made once per process and shared by every
   * sandbox, so a handler reads the sandbox it serves from its arguments, never from a closure.
   */
  handle(ctx: RequestContext<B, Q, P>, deps: RouteDeps): Reply;
  response: RouteResponse;
  /** Error statuses this route answers beyond those every route can (see api/openapi.ts). */
  errors?: number[];
}

/** A route of any input types, for the table. */
export type AnyRoute = Route;

/**
 * A row as it is written: `handle` is a property, so the compiler checks it strictly: its
 * `ctx` has what the row's schemas and path give, and its `deps` only what a sandbox provides
 * (`RouteDeps`): a handler that asks for a part no sandbox has does not compile.
 */
export interface RouteDefinition<B, Q, P extends string> extends Omit<Route<B, Q, P>, 'handle'> {
  handle: (ctx: RequestContext<B, Q, P>, deps: RouteDeps) => Reply;
}

/**
 * Writes one `/v1` row, its handler typed by its schemas and its path: `ctx.body` and
 * `ctx.query` are what the schemas parse, `ctx.params` has the path's `{name}`s.
 */
export function defineRoute<B = undefined, Q = undefined, const P extends string = string>(definition: RouteDefinition<B, Q, P>): AnyRoute {
  return definition;
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
    if (!best || best.cost > Math.max(2, Math.floor(segments.join('/').length / 4))) return undefined;
    return `${best.route.method} ${best.route.path}`;
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
  pattern.forEach((segment, i) => {
    if (segment.startsWith('{')) params[segment.slice(1, -1)] = decodeSegment(actual[i] ?? '');
  });
  return params;
}
