import { methodKey, type OpenAPIDocument, type OpenAPIPathItem } from './openapi-document.js';
import type { JsonSchema } from '../core/schema.js';
import { sseFrame, sseText } from '../core/sse.js';
import { transcriptSchema } from '../state/resources.js';
import { EVENT_TYPES, EVENTS } from '../state/events.js';
import type { AnyRoute } from './router.js';
import { transcriptOpening } from './transcript-stream.js';

/** Every error's body: the envelope of docs/errors.md. */
const ERROR_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'A stable code: docs/errors.md lists them.', examples: ['invalid_parameter'] },
        message: { type: 'string', description: 'What went wrong, naming the field and the fix.' },
        param: { type: 'string', description: 'The field at fault, when one is.', examples: ['to'] },
      },
    },
  },
};

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });
/** A header every answer of this document carries: `required`, so a generated client types it as always there. */
const always = (description: string, schema: Record<string, unknown>) => ({ description, required: true, schema });

/**
 * Headers on every answer (docs/auth-and-accounts.md, docs/errors.md), and the browsers' CORS headers (docs/interception.md).
 * The rate-limit ones are `required`: every request counts against its key's window (the no-key
 * one for a 401 without a key) before anything can refuse it (api/pipeline.ts `count`).
 */
const HEADERS = {
  'X-Request-Id': header('req_… id of this request.', { type: 'string', pattern: '^req_[0-9A-Za-z]{16}$' }),
  'X-RateLimit-Limit': always('Requests per one-second window for this key (2147483647: no cap, enterprise keys).', { type: 'integer' }),
  'X-RateLimit-Remaining': always('Requests left in the current window.', { type: 'integer' }),
  'X-RateLimit-Reset': always('Unix epoch seconds (virtual clock) of the window’s end.', { type: 'integer' }),
  'Access-Control-Allow-Origin': header('The Origin of a browser request, or *.', { type: 'string' }),
  'Access-Control-Expose-Headers': header('The headers above, readable by browser scripts.', { type: 'string' }),
  Vary: header('Origin: answers differ by the requesting origin.', { type: 'string' }),
  'Retry-After': header('Seconds to wait before retrying (429, and 503 when a fault or a reset asks for it).', {
    type: 'integer',
    minimum: 0,
  }),
  Deprecation: header(
    'Only when this version is deprecated (the `deprecation` option): when it was or will be, as an RFC 9745 Structured Field Date, `@` ' +
      'and Unix epoch seconds.',
    { type: 'string', pattern: '^@-?[0-9]+$', examples: ['@1767225600'] },
  ),
  Sunset: header('Only when this version is deprecated: when it stops answering, an RFC 8594 HTTP-date.', {
    type: 'string',
    examples: ['Wed, 01 Jul 2026 00:00:00 GMT'],
  }),
  Link: header('Only when this version is deprecated with a successor: `<URL>; rel="successor-version"`.', {
    type: 'string',
    examples: ['<https://docs.example.com/v2>; rel="successor-version"'],
  }),
  'X-Sandbox-Chaos': header(
    "Only when the sandbox's chaos profile touched this answer (docs/chaos.md): what it did, comma-separated, `status=503` (an injected " +
      '5xx or 429) and `latency=250ms` (real time added before the answer left).',
    {
      type: 'string',
      pattern: '^(status=[0-9]{3}|latency=[0-9]+ms)(, (status=[0-9]{3}|latency=[0-9]+ms))*$',
      examples: ['status=503', 'latency=250ms'],
    },
  ),
};
/** The rate-limit headers (docs/rate-limits.md). */
export const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;
/**
 * On every answer; Deprecation, Sunset and Link only while `/v1` is deprecated (docs/api.md,
 * "Deprecation"), X-Sandbox-Chaos only under chaos.
 */
const COMMON = [
  'X-Request-Id',
  ...RATE_LIMIT_HEADERS,
  'Access-Control-Allow-Origin',
  'Access-Control-Expose-Headers',
  'Vary',
  'Deprecation',
  'Sunset',
  'Link',
  'X-Sandbox-Chaos',
] as const;
const refHeaders = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * The service failures, each status listed on its own rather than as `5XX` (which some client
 * generators turn into code that does not compile): the sandbox answers them only when a test
 * injects a fault (`sandbox.faults.inject`, whose 500–599 go beyond these four) or, 500, for
 * a sandbox bug; 503 also for a request in flight when the sandbox was reset.
 */
const SERVER_ERRORS: Record<string, string> = {
  '500': 'An internal error (in the sandbox: an injected fault, or a sandbox bug); retrying is safe.',
  '502': 'A bad gateway (in the sandbox: an injected fault); retrying is safe.',
  '503':
    'The service is unavailable (in the sandbox: an injected fault, or a request in flight when the sandbox was reset); retry after ' +
    'Retry-After seconds when it is sent.',
  '504': 'A gateway timeout (in the sandbox: an injected fault); retrying is safe.',
};

const ERRORS: Record<string, string> = {
  '400': 'Malformed JSON or invalid parameters; `error.param` names the field (docs/errors.md).',
  '401': 'No API key, a malformed or revoked one, or a production (SVC_LIVE_) key.',
  '403': 'The key’s scopes do not allow this.',
  '404': 'Not in this account (another account’s resources are 404 too).',
  '409': 'The resource is not ready for this yet.',
  '413': 'The body is larger than 1 MiB.',
  '422': 'Semantically invalid: an unreachable destination, a call not active, a number not available or not provisioned.',
  '429': 'Over the rate limit: retry after Retry-After seconds.',
  ...SERVER_ERRORS,
};

/** The error statuses a route can answer: those of every route, and those of its input and its own. */
function errorStatuses(route: AnyRoute): string[] {
  const statuses = new Set(['401', '403', '429', ...Object.keys(SERVER_ERRORS)]);
  if (route.query || route.body) statuses.add('400');
  if (route.body) statuses.add('413');
  if (route.path.includes('{')) statuses.add('404');
  for (const status of route.errors ?? []) statuses.add(String(status));
  return [...statuses].sort();
}

/**
 * Every operation with the statuses the document lists for it (its success and its errors): what
 * coverage counts each endpoint against (docs/coverage.md), from the same source as the document.
 */
export function documentedStatuses(routes: readonly AnyRoute[]): Array<{ method: string; path: string; statuses: number[] }> {
  return routes.map((route) => {
    // Every sandbox builds its own route objects, but an operation's statuses follow from its
    // static definition: worked out once per process, not on every sandbox's close.
    const key = `${route.method} ${route.path}`;
    let statuses = STATUSES.get(key);
    if (!statuses) STATUSES.set(key, (statuses = [route.response.status, ...errorStatuses(route).map(Number)].sort((a, b) => a - b)));
    return { method: route.method, path: route.path, statuses };
  });
}

/** {@link documentedStatuses} of each operation, by `METHOD path`. */
const STATUSES = new Map<string, number[]>();

function errorResponse(status: string) {
  const extra = status === '429' || status === '503' ? ['Retry-After'] : [];
  return {
    description: ERRORS[status],
    headers: refHeaders([...COMMON, ...extra]),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** OpenAPI's query parameters from a query object schema. */
function queryParameters(route: AnyRoute): Array<Record<string, unknown>> {
  const query = route.query?.openapi() as { properties?: Record<string, Record<string, unknown>>; required?: string[] } | undefined;
  return Object.entries(query?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: query?.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
}

/** Instants the sandbox writes, where a schema gives no example of its own: a fresh sandbox's start. */
const INSTANT_EXAMPLE = '2026-01-01T00:00:00.000Z';

/**
 * A value `schema` describes, for a response's example: the schema's own example (`examples[0]`;
 * every resource has one, src/state/resources.ts) or else one built from its parts: null where
 * null is allowed, the `const`, the first of `enum`, `oneOf` or `anyOf`, an object of its required
 * properties, an array of one item, `false`, the minimum (or 0), an instant for a date-time. So a
 * page of calls is `{data: [<the call example>], next_cursor: null, has_more: false}`. A string
 * with none of these has no realistic value to build, and a schema without a type none at all:
 * both throw, naming where, so a new response cannot go out without its example.
 */
export function exampleOf(schema: JsonSchema, at: string): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.includes('null')) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (branches?.some((branch) => branch.type === 'null')) return null;
  const [first] = branches ?? [];
  if (first) return exampleOf(first, `${at}/${schema.oneOf ? 'oneOf' : 'anyOf'}/0`);
  switch (types[0]) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(
        ((schema.required ?? []) as string[]).map((name) => [name, exampleOf(properties[name] ?? {}, `${at}/properties/${name}`)]),
      );
    }
    case 'array':
      // A tuple: one value per position.
      if (Array.isArray(schema.prefixItems))
        return (schema.prefixItems as JsonSchema[]).map((item, i) => exampleOf(item, `${at}/prefixItems/${i}`));
      return schema.items ? [exampleOf(schema.items as JsonSchema, `${at}/items`)] : [];
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'string':
      if (schema.format === 'date-time') return INSTANT_EXAMPLE;
  }
  throw new Error(`exampleOf: the schema at ${at || '/'} has no example to give: add \`examples\` to it (or to a schema around it).`);
}

/**
 * The live stream of the example transcript (a ready one: every segment at once, then `end`),
 * frame by frame as api/transcript-stream.ts writes it.
 */
function transcriptStreamExample(): string {
  const transcript = exampleOf(transcriptSchema.openapi(), 'transcript') as { id: string; segments: object[] };
  return sseText([
    transcriptOpening(transcript.id),
    ...transcript.segments.map((segment, index) => sseFrame('segment', { index, ...segment }, index)),
    sseFrame('end', transcript),
  ]);
}

/** The examples of success bodies that are text but not JSON, by `operationId media-type`. */
const TEXT_EXAMPLES: Record<string, () => string> = { 'getTranscript text/event-stream': transcriptStreamExample };

/**
 * The media type object of a success answer: its schema and an example of the whole body, as
 * the sandbox would send it. A binary body (a recording's WAV, `contentMediaType`) has none: no
 * JSON string can hold its bytes.
 */
function successMedia(operationId: string, type: string, schema: JsonSchema): Record<string, unknown> {
  if (type === 'application/json') return { schema, example: exampleOf(schema, `${operationId} ${type}`) };
  const text = TEXT_EXAMPLES[`${operationId} ${type}`];
  if (text) return { schema, example: text() };
  if (schema.contentMediaType !== undefined) return { schema };
  throw new Error(`openApiDocument: the ${type} answer of ${operationId} has no example: add one to TEXT_EXAMPLES.`);
}

/** Where the sandbox's users find its maintainers (the package page lists the repository and its issues). */
export const CONTACT = { name: 'svc-sandbox', url: 'https://www.npmjs.com/package/svc-sandbox' };

/**
 * The OpenAPI 3.1 description of the sandbox's API, generated from the route table and the
 * same schemas that validate requests and describe resources (so it cannot drift from what is
 * enforced and answered): every operation with its `operationId`, request schemas exactly as
 * strict as the server where JSON Schema can say it (`required`, `oneOf`, `if`/`then`), every
 * success and error status with its body and headers, and the events as `webhooks`.
 */
export function openApiDocument(routes: readonly AnyRoute[], baseUrl: string): OpenAPIDocument {
  const paths: Record<string, OpenAPIPathItem> = {};
  for (const route of routes) {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
      const param = route.params?.[name];
      if (!param)
        throw new Error(`openApiDocument: ${route.method} ${route.path} gives no description and example of {${name}} in its params.`);
      return { name, in: 'path', required: true, description: param.description, schema: { type: 'string' }, example: param.example };
    });
    if (route.body && !route.examples) throw new Error(`openApiDocument: ${route.method} ${route.path} has a body but no examples.`);
    const examples = route.examples && { examples: route.examples };
    const { response } = route;
    const success = {
      description: response.description,
      headers: { ...refHeaders(COMMON), ...response.headers },
      ...(response.content
        ? {
            content: Object.fromEntries(
              Object.entries(response.content).map(([type, { schema }]) => [type, successMedia(route.operationId, type, schema())]),
            ),
          }
        : {}),
    };
    (paths[route.path] ??= {})[methodKey(route.method)] = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.resource],
      parameters: [...pathParams, ...queryParameters(route)],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: route.body.openapi(), ...examples } } } }
        : {}),
      responses: { [String(response.status)]: success, ...Object.fromEntries(errorStatuses(route).map((s) => [s, errorResponse(s)])) },
    };
  }
  const tags = [...new Set(routes.map((r) => r.resource))].map((name) => ({
    name,
    description: `The ${name} of the account (docs/${name === 'calls' ? 'calls' : name}.md).`,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Voice and Messaging API (svc-sandbox)',
      version: 'v1',
      description:
        'The test-mode sandbox of the Voice and Messaging API: real state, a virtual clock, signed webhooks. Generated from the schemas ' +
        'that validate requests.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: CONTACT,
    },
    servers: [{ url: baseUrl, description: 'The sandbox.' }],
    security: [{ bearer: [] }],
    tags,
    paths,
    webhooks: Object.fromEntries(
      EVENT_TYPES.map((type) => [
        type,
        {
          post: {
            operationId: `on${type.replace(/(^|\.)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
            summary: `The ${type} event, POSTed to a subscribed URL`,
            description: `${EVENTS[type].summary} Signed with the subscription's secret (docs/webhooks.md).`,
            tags: ['webhooks'],
            security: [],
            parameters: [
              {
                name: 'X-Service-Signature',
                in: 'header',
                required: true,
                description: 'Lowercase hex HMAC-SHA256 of the raw body with the subscription’s secret.',
                schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              },
              {
                name: 'X-Service-Event-Id',
                in: 'header',
                required: true,
                description: 'The event id (also the body’s id); the same across retries and replays.',
                schema: { type: 'string' },
              },
              {
                name: 'X-Service-Event-Type',
                in: 'header',
                required: true,
                description: 'The event type.',
                schema: { type: 'string', const: type },
              },
              {
                name: 'X-Service-Delivery-Attempt',
                in: 'header',
                required: true,
                description: 'Counts from 1; starts over at 1 on a replay.',
                schema: { type: 'integer', minimum: 1 },
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['id', 'type', 'created_at', 'data'],
                    properties: {
                      id: { type: 'string', pattern: '^evt_[0-9A-Za-z]{16}$' },
                      type: { type: 'string', const: type },
                      created_at: { type: 'string', format: 'date-time' },
                      data: EVENTS[type].data.openapi(),
                    },
                  },
                },
              },
            },
            responses: { '200': { description: 'Any 2xx within 10 s is a delivery; anything else is retried (docs/webhooks.md).' } },
          },
        },
      ]),
    ),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'SVC_TEST_ keys (docs/auth-and-accounts.md).' } },
      headers: HEADERS,
      schemas: { Error: ERROR_SCHEMA },
    },
  };
}
