import type { JsonSchema } from '../core/schema.js';

/** The OpenAPI document's types: what `sandbox.openapi()` returns, typed (docs/openapi.md). */

/** One operation of an {@link OpenAPIDocument}: the fields this package writes; OpenAPI's others may follow. */
export interface OpenAPIOperation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  /** `[]` for the control API and webhooks: no key. */
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema; [more: string]: unknown }> };
  /** By status (`'201'`, `'404'`). */
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
}

/** The operations of one path, by lower-case method. */
export type OpenAPIPathItem = Partial<Record<OpenAPIMethod, OpenAPIOperation>>;
export type OpenAPIMethod = 'get' | 'put' | 'post' | 'delete' | 'head' | 'options' | 'patch';

/** A route's method as a path item names it (`POST` → `post`). */
export function methodKey(method: string): OpenAPIMethod {
  const key = method.toLowerCase();
  if (!(['get', 'put', 'post', 'delete', 'head', 'options', 'patch'] as const).some((m) => m === key))
    throw new Error(`openapi: ${method} is no HTTP method a document can hold.`);
  return key as OpenAPIMethod;
}

/**
 * The OpenAPI 3.1 document `sandbox.openapi()` returns (and the standalone server serves with
 * its control API added, docs/openapi.md): the parts this package writes, typed, so a reader
 * can walk `paths` and `components` without casts. A type of our own, not a dependency's.
 */
export interface OpenAPIDocument {
  openapi: string;
  info: {
    title: string;
    version: string;
    description?: string;
    license?: { name: string; identifier?: string };
    contact?: { name: string; url: string };
  };
  servers: Array<{ url: string; description?: string }>;
  security?: Array<Record<string, string[]>>;
  tags: Array<{ name: string; description?: string }>;
  /** By path (`/v1/calls/{id}`). */
  paths: Record<string, OpenAPIPathItem>;
  /** The events POSTed to subscribed URLs, by event type. */
  webhooks?: Record<string, OpenAPIPathItem>;
  components?: {
    securitySchemes?: Record<string, Record<string, unknown>>;
    headers?: Record<string, unknown>;
    schemas?: Record<string, JsonSchema>;
  };
}
