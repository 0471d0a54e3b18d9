import type { Method } from '../core/path-pattern.js';
import type { JsonSchema, ObjectSchema, Schema } from '../core/schema.js';
import type { Session, Sessions } from './sessions.js';

/** What a control route's `run` receives. */
export interface ControlRequest {
  sessions: Sessions;
  /** The session named in the path (404 when unknown). */
  session: Session;
  params: Record<string, string>;
  body: unknown;
  /** The query string (a paginated list reads `limit` and `cursor` from it). */
  query?: URLSearchParams;
}

/** One row of the control API's table (src/server/control-api.ts, control-scripting.ts). */
export interface ControlRoute {
  method: Method;
  /** Below `/__sandbox`, with `{s}` for the session and `{name}` for other segments. */
  path: string;
  summary: string;
  operationId: string;
  /** The JSON body's schema, for the OpenAPI document (the library function the route calls checks the body with it). */
  body?: Schema<unknown>;
  /** The success status and its body's schema. */
  status: number;
  response?: JsonSchema;
  /** The query parameters, for the OpenAPI document (a paginated list's `limit` and `cursor`). */
  query?: ObjectSchema<Record<string, Schema<unknown>>>;
  run(ctx: ControlRequest): Promise<Response> | Response;
  /** Runs without a session in the path. */
  global?: true;
  /** The library's argument names → the body's or the path's, for the wording of errors (control-scripting.ts `spoken`). */
  fields?: Readonly<Record<string, string>>;
}
