import { fitsPattern, segmentsOf, type Method } from '../core/path-pattern.js';
import type { Schema } from '../core/schema.js';
import type { Principal, Resource } from '../state/accounts.js';
import { ApiError } from './errors.js';

export type { Method };

export interface RequestContext {
  principal: Principal;
  /** Path parameters, e.g. `{ id: 'call_…' }`. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body of a POST or PUT; undefined for other methods. */
  body: unknown;
  /** The request's headers (e.g. `Accept`, `Last-Event-ID`). */
  headers: Headers;
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

/** Synchronous: a handler runs as one step of the sandbox (core/steps.ts). */
export type Handler = (ctx: RequestContext) => Reply;

/** One endpoint of the spec's table. */
export interface Route {
  method: Method;
  /** Path relative to the base URL, with `{param}` placeholders: `/v1/calls/{id}`. */
  path: string;
  resource: Resource;
  summary: string;
  handle: Handler;
  /** The request body's schema (POST, PUT), for the OpenAPI description. */
  body?: Schema<unknown>;
  /** The query string's schema (lists), for the OpenAPI description. */
  query?: Schema<unknown>;
  /** The success status when not the method's usual one (GET 200, POST 201, PUT 200, DELETE 204). */
  status?: number;
}

interface Compiled {
  route: Route;
  segments: string[];
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/**
 * Matches a method and path against the route table: an unknown path (or version) is
 * 404, a known path with another method is 405 with an `Allow` header.
 */
export class Router {
  private readonly compiled: Compiled[];

  constructor(readonly routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: segmentsOf(route.path) }));
  }

  match(method: string, path: string): Match {
    const segments = segmentsOf(path);
    const allowed: string[] = [];
    let found: Match | undefined;
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) found ??= { route, params };
      else allowed.push(route.method);
    }
    if (found) return found;
    if (allowed.length > 0) {
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}.`, undefined, {
        allow: allowed.join(', '),
      });
    }
    const version = /^\/(v\d+)\//.exec(`${path}/`)?.[1];
    const hint =
      version && version !== 'v1'
        ? `This API version does not exist: the current version is v1 (${path.replace(/^\/v\d+/, '/v1')}).`
        : version === 'v1'
          ? 'See the endpoint table in docs/ for the paths under /v1.'
          : 'Every endpoint is under /v1/, e.g. /v1/calls.';
    throw new ApiError(404, 'not_found', `No endpoint ${method} ${path}. ${hint}`);
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (!fitsPattern(pattern, actual)) return undefined;
  // Only a route that matches pays for its parameters.
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i]!.startsWith('{')) params[pattern[i]!.slice(1, -1)] = safeDecode(actual[i]!);
  }
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape is kept as written; the id lookup then finds nothing (404)
  }
}
