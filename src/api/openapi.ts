import type { Route } from './router.js';

const ERROR = {
  description: 'An error: see docs/errors.md for the codes.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'string' }, message: { type: 'string' }, param: { type: 'string' } },
          },
        },
      },
    },
  },
};

const RATE_HEADERS = {
  'X-Request-Id': { schema: { type: 'string' }, description: 'req_… id of this request.' },
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests per one-second window for this key.' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window.' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix epoch seconds of the window’s end.' },
};

/** Success statuses by method; a route whose status differs says so (`Route.status`). */
const SUCCESS: Record<string, number> = { GET: 200, POST: 201, PUT: 200, DELETE: 204 };

/**
 * The OpenAPI 3.1 description of the sandbox's API, generated from the route table and the
 * same request schemas that validate requests (so it cannot drift from what is enforced).
 * Response bodies are described in docs/, not here.
 */
export function openApiDocument(routes: readonly Route[], baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const query = route.query?.openapi() as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: query?.required?.includes(name) ?? false,
      schema,
    }));
    const success = String(route.status ?? SUCCESS[route.method]);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      summary: route.summary,
      tags: [route.resource],
      parameters: [...pathParams, ...queryParams],
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body.openapi() } } } } : {}),
      responses: { [success]: { description: 'Success.', headers: RATE_HEADERS }, default: { ...ERROR, headers: RATE_HEADERS } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Voice and Messaging API (svc-sandbox)', version: 'v1' },
    servers: [{ url: baseUrl }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'SVC_TEST_ keys (docs/auth-and-accounts.md).' } } },
    paths,
  };
}
