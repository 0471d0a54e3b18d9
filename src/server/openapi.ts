import type { ControlRoute } from './control-api.js';

const ERROR = {
  description: 'An error, in the envelope of CONTRACT §4.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, param: { type: 'string' } } } },
      },
    },
  },
};

/**
 * The server's OpenAPI 3.1 document (`GET /__sandbox/openapi.json`): the `/v1` API as
 * `sandbox.openapi()` describes it, plus the control API, generated from the control route
 * table and the same schemas its functions validate with.
 */
export function serverOpenApi(api: Record<string, unknown>, routes: readonly ControlRoute[], url: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = { ...(api.paths as Record<string, Record<string, unknown>>) };
  for (const route of routes) {
    const full = `/__sandbox${route.path}`;
    const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(name === 's' ? { description: 'A session id; `default` always exists.' } : {}),
    }));
    for (const [name, schema] of Object.entries(route.query?.shape ?? {})) parameters.push({ name, in: 'query', required: false, schema: schema.openapi() });
    (paths[full] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: ['control'],
      security: [],
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: route.body.openapi() } } } } : {}),
      responses: {
        [String(route.status)]: route.status === 204 ? { description: 'Done.' } : { description: 'Done.', content: { 'application/json': { schema: route.response ?? { type: 'object' } } } },
        '400': ERROR,
        '404': ERROR,
        '409': ERROR,
        ...(route.body ? { '413': ERROR } : {}),
      },
    };
  }
  // The routes served beside the table: the session's live stream, the console, this document.
  paths['/__sandbox/sessions/{s}/stream'] = {
    get: {
      operationId: 'streamSession',
      summary: "The session's live stream for the console, as server-sent events: `event` (each platform event, with its position in the log as `id`), `change` {now} (read the lists again) and `reset` {now}. Send `Last-Event-ID` to resume after the n-th event.",
      tags: ['control'],
      security: [],
      parameters: [
        { name: 's', in: 'path', required: true, schema: { type: 'string' }, description: 'A session id; `default` always exists.' },
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'Resume after this many events.' },
      ],
      responses: { '200': { description: 'The stream; it ends when the session is deleted.', content: { 'text/event-stream': { schema: { type: 'string' } } } }, '404': ERROR },
    },
  };
  paths['/__sandbox/console'] = {
    get: {
      operationId: 'getConsole',
      summary: 'The account console (API keys, deliveries, dead-letter replay) as an HTML page; its assets are under /__sandbox/console/.',
      tags: ['control'],
      security: [],
      responses: { '200': { description: 'The console page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  };
  paths['/__sandbox/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document.',
      tags: ['control'],
      security: [],
      responses: { '200': { description: 'The OpenAPI 3.1 document of the server.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  return {
    ...api,
    info: { title: 'Voice and Messaging API and control API (svc-sandbox server)', version: 'v1' },
    servers: [{ url }],
    tags: [{ name: 'control', description: 'The sandbox server\'s control API (CONTRACT §8): sessions, virtual time, scripting. No authentication: it listens on loopback.' }],
    paths,
  };
}
