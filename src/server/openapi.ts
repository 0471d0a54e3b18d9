import { exampleOf, RATE_LIMIT_HEADERS } from '../api/openapi.js';
import { methodKey, type OpenAPIDocument, type OpenAPIOperation, type OpenAPIPathItem } from '../api/openapi-document.js';
import { sseFrame, sseText } from '../core/sse.js';
import { STARTED_EVENT_EXAMPLE } from '../scripting/json-schemas.js';
import type { ControlRoute } from './control/route.js';
import { streamOpening } from './stream.js';

/** The served document's title. */
const TITLE = 'Voice and Messaging API and control API (svc-sandbox server)';

/** The error envelope every answer uses (docs/errors.md): the `/v1` document's `Error` schema. */
const ENVELOPE = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
export const ERROR = { description: 'An error, in the envelope every answer uses (docs/errors.md).', content: ENVELOPE };
/**
 * What the control API answers when the sandbox server fails unexpectedly (control-api.ts
 * `serverFailure`): listed on every control operation, one status, never `5XX`.
 */
export const FAILURE = {
  description: 'The sandbox server failed unexpectedly (a bug): 500 `internal_error`, the failure in its message.',
  content: ENVELOPE,
};

/** The `{s}` of every control path: the control table's own parameter, as its mount's. */
const SESSION_PARAM = { description: 'A session id; `default` always exists.', example: 'default' };

/**
 * The server's OpenAPI 3.1 document (`GET /__sandbox/openapi.json`): the `/v1` API as
 * `sandbox.openapi()` describes it, plus the control API, generated from the control route
 * table and the same schemas its functions validate with.
 */
export function serverOpenApi(api: OpenAPIDocument, routes: readonly ControlRoute[], url: string): OpenAPIDocument {
  const paths: Record<string, OpenAPIPathItem> = servedV1(api);
  for (const route of routes) {
    const full = `/__sandbox${route.path}`;
    if (route.undocumented) continue;
    // A row whose operation is written out (the stream, the console, these documents).
    if (route.operation) {
      const { operationId, summary, description = `${summary}.` } = route;
      (paths[full] ??= {})[methodKey(route.method)] = { operationId, summary, description, ...route.operation(url) };
      continue;
    }
    const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
      const doc = name === 's' ? SESSION_PARAM : route.params?.[name];
      return { name, in: 'path', required: true, schema: { type: 'string' }, ...doc };
    });
    for (const [name, schema] of Object.entries(route.query?.shape ?? {}))
      parameters.push({ name, in: 'query', required: false, schema: schema.openapi() });
    if (route.body && !route.examples) throw new Error(`serverOpenApi: ${route.method} ${full} has a body but no examples.`);
    (paths[full] ??= {})[methodKey(route.method)] = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description ?? `${route.summary}.`,
      tags: ['control'],
      security: [],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: false, content: { 'application/json': { schema: route.body.openapi(), examples: route.examples } } } }
        : {}),
      responses: {
        [String(route.status)]:
          route.status === 204
            ? { description: 'Done.' }
            : { description: 'Done.', content: { [route.contentType ?? 'application/json']: controlMedia(route) } },
        '400': ERROR,
        // A foreign Origin or Host, or a webhook delivery (docs/server.md, "Security model").
        '403': ERROR,
        '404': ERROR,
        '409': ERROR,
        ...(route.body ? { '413': ERROR } : {}),
        '500': FAILURE,
      },
    };
  }
  uniqueOperationIds(paths);
  return {
    ...api,
    info: { ...api.info, title: TITLE },
    servers: [{ url }],
    tags: [
      ...api.tags,
      {
        name: 'control',
        description:
          "The sandbox server's control API (docs/server.md): sessions, virtual time, scripting. No authentication: it listens on loopback.",
      },
    ],
    paths,
    components: { ...api.components, headers: { ...api.components?.headers, ...UNISSUED_HEADERS } },
  };
}

/** What the server adds to an answer to a key no session issued (server.ts `toldUnissued`). */
const UNISSUED_HEADERS = {
  'X-Sandbox-Session': {
    description: 'Only for a key no session issued: `default`, the session that answered it (docs/server.md, "Sessions").',
    schema: { type: 'string', const: 'default' },
  },
  'X-Sandbox-Hint': {
    description: 'Only for a key no session issued: how to get a session of your own (POST /__sandbox/sessions).',
    schema: { type: 'string' },
  },
};

/**
 * Statuses of `/v1` the server answers itself, before any session counts the key: a foreign
 * Origin or Host (403) and an unexpected failure (500) carry no rate-limit headers, so there
 * they are not `required`.
 */
const SERVER_OWN = new Set(['403', '500']);

/** The `/v1` paths of `sandbox.openapi()` as the server answers them (see {@link UNISSUED_HEADERS}, {@link SERVER_OWN}). */
function servedV1(api: OpenAPIDocument): Record<string, OpenAPIPathItem> {
  const components = (api.components?.headers ?? {}) as Record<string, Record<string, unknown>>;
  const maybeRate = Object.fromEntries(
    RATE_LIMIT_HEADERS.map((name) => {
      const { required: _required, description, ...rest } = components[name] ?? {};
      return [
        name,
        {
          description: `${description} Absent when the server refused the request itself (a foreign Origin or Host, or a failure).`,
          ...rest,
        },
      ];
    }),
  );
  const unissued = Object.fromEntries(Object.keys(UNISSUED_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  const paths: Record<string, OpenAPIPathItem> = {};
  for (const [path, item] of Object.entries(api.paths)) {
    const served: OpenAPIPathItem = {};
    for (const [method, operation] of Object.entries(item) as Array<[keyof OpenAPIPathItem, OpenAPIOperation]>) {
      const responses = Object.fromEntries(
        Object.entries(operation.responses).map(([status, response]) => [
          status,
          { ...response, headers: { ...response.headers, ...(SERVER_OWN.has(status) ? maybeRate : {}), ...unissued } },
        ]),
      );
      served[method] = { ...operation, responses };
    }
    paths[path] = served;
  }
  return paths;
}

/**
 * The media type of a control route's success body: its schema, and an example of the whole
 * body built from it (api/openapi.ts `exampleOf`: the resources' examples, and the `examples`
 * the control schemas carry). A binary body (a recording's WAV) has none: no JSON string can hold its bytes.
 */
function controlMedia(route: ControlRoute): Record<string, unknown> {
  const schema = route.response ?? { type: 'object' };
  if (schema.contentMediaType !== undefined) return { schema };
  return { schema, example: exampleOf(schema, route.operationId) };
}

/** The start of a session stream as server/stream.ts writes it: its comment, the first event of the log, the first `change` frame. */
export function sessionStreamExample(): string {
  const event = STARTED_EVENT_EXAMPLE;
  return sseText([streamOpening(), sseFrame('event', event, 1), sseFrame('change', { now: event.created_at, changes: [] })]);
}

/** The served document, shortened to one operation: its example (the whole document is this very one). */
export function documentExample(openapi: string, url: string): Record<string, unknown> {
  return {
    openapi,
    info: { title: TITLE, version: 'v1' },
    servers: [{ url }],
    paths: {
      '/__sandbox/health': { get: { operationId: 'health', summary: 'Is the server up', responses: { '200': { description: 'Done.' } } } },
    },
  };
}

/** Throws when two operations share an operationId: generated clients would drop or refuse one of them. */
function uniqueOperationIds(paths: Record<string, OpenAPIPathItem>): void {
  const seen = new Map<string, string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const id = (operation as { operationId: string }).operationId;
      const where = `${method.toUpperCase()} ${path}`;
      const other = seen.get(id);
      if (other) throw new Error(`serverOpenApi: the operationId ${id} names both ${other} and ${where}: rename one.`);
      seen.set(id, where);
    }
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON Schema keywords OpenAPI 3.0's schema object lacks: dropped (the server checks them all the same). */
const NOT_IN_30 = new Set([
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedProperties',
  'contentMediaType',
  'const',
  'examples',
  '$schema',
  'prefixItems',
]);

/** One schema in 3.0's dialect (see {@link openApi30}). */
function schema30(input: unknown): Json {
  if (input === true) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return input as Json;
  if (typeof input.$ref === 'string') return { $ref: input.$ref };
  const out: Json = {};
  for (const [key, value] of Object.entries(input)) {
    if (NOT_IN_30.has(key)) continue;
    if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, schema30(s)]));
    else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map(schema30);
    else if (key === 'items' || key === 'not' || (key === 'additionalProperties' && typeof value !== 'boolean')) out[key] = schema30(value);
    else out[key] = value;
  }
  // A tuple (`prefixItems`, `items: false`): 3.0 has no positions, so any of the members, the
  // length kept by minItems and maxItems.
  if (Array.isArray(input.prefixItems)) out.items = { anyOf: input.prefixItems.map(schema30) };
  if (Array.isArray(input.type)) {
    const types = input.type.filter((t) => t !== 'null');
    if (types.length !== 1) throw new Error(`openApi30: the type list ${JSON.stringify(input.type)} has no 3.0 form.`);
    out.type = types[0];
    if (types.length < input.type.length) out.nullable = true;
  }
  if ('const' in input) out.enum = [input.const];
  if (Array.isArray(input.examples) && input.examples.length > 0 && !('example' in input)) out.example = input.examples[0];
  if (input.contentMediaType !== undefined) out.format = 'binary';
  for (const bound of ['Minimum', 'Maximum'] as const) {
    const exclusive = input[`exclusive${bound}`];
    if (typeof exclusive === 'number') Object.assign(out, { [bound.toLowerCase()]: exclusive, [`exclusive${bound}`]: true });
  }
  // `anyOf: [X, {type: 'null'}]` (a nullable object): X, nullable.
  const anyOf = out.anyOf as Json[] | undefined;
  const inner = anyOf?.length === 2 && anyOf.some((s) => s.type === 'null') ? anyOf.find((s) => s.type !== 'null') : undefined;
  if (inner) {
    delete out.anyOf;
    Object.assign(out, inner.$ref ? { allOf: [inner] } : inner, { nullable: true });
  }
  return out;
}

/** Every `schema` below `node` (parameters, media types, headers) in 3.0's dialect. */
function schemas30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(schemas30);
  if (!isObject(node)) return node;
  // An `example` or `examples` beside a schema is a value, not a schema: kept as it is.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'schema' ? schema30(value) : key === 'example' || key === 'examples' ? value : schemas30(value),
    ]),
  );
}

/**
 * The document in OpenAPI 3.0.3 (`GET /__sandbox/openapi-3.0.json`), for tools that read no
 * 3.1 yet (kin-openapi, older generators): type lists with `null` become `nullable`, `const` an
 * `enum` of one, `examples` the first `example`, numeric exclusive bounds the boolean form,
 * boolean schemas `{}` and `{not: {}}`; what 3.0 cannot say is dropped (`webhooks`, the license
 * `identifier`, `if`/`then`, `propertyNames`), so the 3.1 document stays the exact one: the
 * server refuses all it did before.
 */
export function openApi30(doc: OpenAPIDocument): Record<string, unknown> {
  const { webhooks: _webhooks, info, components = {}, paths, ...rest } = doc;
  const { identifier: _identifier, ...license } = info.license ?? { name: '' };
  const { schemas = {}, ...otherComponents } = components;
  return {
    ...rest,
    openapi: '3.0.3',
    info: { ...info, ...(info.license ? { license } : {}) },
    paths: schemas30(paths),
    components: {
      ...(schemas30(otherComponents) as Json),
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, schema30(s)])),
    },
  };
}
