import type { OpenAPIOperation } from '../../api/openapi-document.js';
import type { PathParams, Reply, RouteDoc } from '../../api/router.js';

/** What a control row answers: a row's `{ status, body }`, or a web `Response` it made itself. */
export type ControlAnswer = Reply | Response;
import type { JsonSchema, ObjectSchema, Schema } from '../../core/schema.js';
import type { Session, Sessions } from '../sessions.js';

export type { ParamNames, PathParams } from '../../api/router.js';

/**
 * What a control route's `run` receives: its input already parsed by the route's schemas (the
 * control road of docs/architecture.md), so `body` and `query` are typed values, never raw JSON,
 * and `params` has exactly the names of the row's path.
 */
export interface ControlRequest<B = unknown, Q = unknown, P extends string = string> {
  sessions: Sessions;
  /** The session named in the path (404 when unknown); the default session for a `global` route. */
  session: Session;
  params: PathParams<P>;
  /** The JSON body parsed by `body` (an absent body stands for `{}`); undefined when the route has none. */
  body: B;
  /** The query string parsed by `query` (a paginated list's `limit` and `cursor`); undefined when the route has none. */
  query: Q;
  headers: Headers;
  /** Aborts when the client goes away: a streaming route stops its work on it. */
  signal: AbortSignal;
  /** The method asked (HEAD is answered by the GET row). */
  method: string;
  /** The server's own URL (`http://127.0.0.1:12111`), as its documents give it. */
  url: string;
}

/** One row of the control API's table (src/server/control/api.ts, control-scripting.ts). */
export interface ControlRoute<B = unknown, Q = unknown, P extends string = string> extends RouteDoc<P> {
  /** Below `/__sandbox`, with `{s}` for the session and `{name}` for other segments. */
  path: P;
  /** Parses the JSON body before `run` (the schema the library function the route calls checks with); its refusal is the 400. */
  body?: Schema<B>;
  /** The success status and its body's schema (with `examples` where api/openapi.ts `exampleOf` cannot build one). */
  status: number;
  response?: JsonSchema;
  /** The success body's media type, when it is not JSON (a recording's `audio/wav`). */
  contentType?: string;
  /** Parses the query string before `run` (a paginated list's `limit` and `cursor`). */
  query?: ObjectSchema<Record<string, Schema<unknown>>> & Schema<Q>;
  /**
   * Answers the request: `{ status, body }` as a `/v1` row does (the body sent as JSON), or a web
   * `Response` for what is no JSON (a stream, a file).
   */
  handle(ctx: ControlRequest<B, Q, P>): ControlAnswer | Promise<ControlAnswer>;
  /** Runs without a session in the path. */
  global?: true;
  /**
   * The library's argument names → the body's or the path's (`callId` → `id`, `behavior` → ``,
   * the body itself): the row's words for what the library function it calls refuses
   * (control/api.ts `reworded`).
   */
  fields?: Readonly<Record<string, string>>;
  /**
   * The rest of the row's operation in the server's document (its parameters and answers), written
   * out, for a row that answers no JSON (a stream, a page); its name, summary and description are the row's.
   */
  operation?: (url: string) => Omit<OpenAPIOperation, 'operationId' | 'summary' | 'description'>;
  /** Served, but not an operation of the document (the console's script and style files). */
  undocumented?: true;
}

/**
 * Writes one control row with `run` typed by its schemas and its path: `body` and `query` are
 * what the schemas parse, `params` has the path's `{name}`s, so a row reads `params.key` as a
 * `string` and never asserts that a segment it matched is there.
 */
export function controlRoute<B = undefined, Q = undefined, const P extends string = string>(
  definition: ControlRoute<B, Q, P>,
): ControlRoute {
  return definition;
}
