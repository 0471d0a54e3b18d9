import { consoleAsset } from '../console.js';
import { json } from '../http.js';
import { documentExample, ERROR, FAILURE, openApi30, serverOpenApi, sessionStreamExample } from '../openapi.js';
import { controlRoute, type ControlRoute } from './route.js';

/**
 * The rows of the control table that answer no JSON of a session's sandbox: the session's
 * live stream, the console's page and files, and the server's documents. They are ordinary
 * rows (matched, guarded and refused as every control row is); each writes its operation in
 * the document out, since no schema describes a stream or a page.
 */
export function servedRoutes(table: () => readonly ControlRoute[], notFound: (method: string, path: string) => unknown): ControlRoute[] {
  return [
    {
      method: 'GET',
      path: '/sessions/{s}/stream',
      summary: "The session's live stream, as server-sent events",
      operationId: 'streamSession',
      description:
        "The session's live stream for the console, as server-sent events: `event` (each platform event, with its position in the log as " +
        '`id`), `change` {now, changes} (each changed item with its JSON, docs/console.md), `resync` {now} (read the lists again) and ' +
        '`reset` {now}. Send `Last-Event-ID` to resume after the n-th event.',
      status: 200,
      handle: ({ session, headers, signal }) => {
        const last = Number(headers.get('last-event-id') ?? 0);
        return new Response(session.streams.stream(Number.isSafeInteger(last) && last > 0 ? last : 0, signal), {
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
        });
      },
      operation: () => ({
        tags: ['control'],
        security: [],
        parameters: [
          {
            name: 's',
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: 'A session id; `default` always exists.',
            example: 'default',
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            schema: { type: 'string', pattern: '^[0-9]+$' },
            description: 'Resume after this many events.',
            example: '12',
          },
        ],
        responses: {
          '200': {
            description: 'The stream; it ends when the session is deleted.',
            content: { 'text/event-stream': { schema: { type: 'string' }, example: sessionStreamExample() } },
          },
          '403': ERROR,
          '404': ERROR,
          '500': FAILURE,
        },
      }),
    },
    {
      method: 'GET',
      path: '/console',
      summary: 'The account console, as an HTML page',
      operationId: 'getConsole',
      description:
        'The account console (virtual time, API keys, calls, deliveries, dead-letter replay) as an HTML page; `?session=` picks the session, ' +
        'and its assets are under /__sandbox/console/.',
      status: 200,
      global: true,
      handle: ({ method }) => consoleAsset('/console', method)!,
      operation: () => page('text/html', 'The console page.'),
    },
    controlRoute({
      method: 'GET',
      path: '/console/{file}',
      summary: "The console's scripts, styles and pictures",
      operationId: 'getConsoleFile',
      status: 200,
      global: true,
      undocumented: true,
      handle: ({ method, params }) => {
        const path = `/console/${encodeURIComponent(params.file)}`;
        const asset = consoleAsset(path, method);
        if (!asset) throw notFound(method, path);
        return asset;
      },
    }),
    {
      method: 'GET',
      path: '/openapi.json',
      summary: 'This document',
      operationId: 'getOpenApi',
      description: 'This OpenAPI 3.1 document: the `/v1` API as `sandbox.openapi()` describes it, and the control API.',
      status: 200,
      global: true,
      handle: ({ sessions, url }) => json(200, serverOpenApi(sessions.default.sandbox.openapi(), table(), url)),
      operation: (url) => page('application/json', 'The OpenAPI 3.1 document of the server.', documentExample('3.1.0', url)),
    },
    {
      method: 'GET',
      path: '/openapi-3.0.json',
      summary: 'This document in OpenAPI 3.0',
      operationId: 'getOpenApi30',
      description:
        'This document in OpenAPI 3.0.3, for tools that read no 3.1 yet (kin-openapi, older generators): the same operations, with what 3.0 ' +
        'cannot say (webhooks, if/then rules) left out.',
      status: 200,
      global: true,
      handle: ({ sessions, url }) => json(200, openApi30(serverOpenApi(sessions.default.sandbox.openapi(), table(), url))),
      operation: (url) => page('application/json', 'The OpenAPI 3.0.3 document of the server.', documentExample('3.0.3', url)),
    },
  ];
}

/** A page's operation (its name and words are the row's); `example` its body's example (none for the console's HTML, a whole page). */
function page(type: string, answer: string, example?: unknown) {
  return {
    tags: ['control'],
    security: [],
    responses: {
      '200': {
        description: answer,
        content: {
          [type]: { schema: { type: type === 'text/html' ? 'string' : 'object' }, ...(example === undefined ? {} : { example }) },
        },
      },
      '403': ERROR,
      '500': FAILURE,
    },
  };
}
