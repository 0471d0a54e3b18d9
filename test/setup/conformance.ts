import { afterEach, expect } from 'vitest';
import type { Answer } from '../../src/api/answer.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { Pipeline } from '../../src/api/pipeline.js';
import type { Incoming } from '../../src/api/request-body.js';
import { ROUTES } from '../../src/api/routes/index.js';
import { Conformance } from '../support/conformance.js';

/**
 * Every answer any behaviour test sees (through interception, `handle()`, `sandbox.fetch` or
 * the standalone server, which all end in the `/v1` pipeline's `answer`) is checked against the
 * document `sandbox.openapi()` publishes: a test that received an undocumented status, field
 * or header fails, naming it.
 *
 * The standalone server's control answers, seen by `fetch` in any test, are checked the same way
 * against the server's own document (`/__sandbox/openapi.json`, fetched once per server): the
 * control API is held to its description as `/v1` is. Streams, the console's
 * files and the document itself are not JSON operations and are left out; so are the transport's
 * headers (date, connection, content-length).
 *
 * This file runs before every test file, and a worker may run several files in one process
 * (`isolate: false` in vitest.config.ts): the two wrappers are installed once per process and
 * their state is kept with them, so a later file neither wraps a wrapper nor checks an answer twice.
 */
interface Installed {
  /** What answers broke the document since the last test ended. */
  problems: string[];
  /** One checker per server origin, forgotten after each test (a port is reused by the next server). */
  serverCheckers: Map<string, Promise<Conformance>>;
}

const INSTALLED = Symbol.for('svc-sandbox.test.conformance');
const slot = globalThis as Record<symbol, Installed | undefined>;
const { problems, serverCheckers } = slot[INSTALLED] ?? install();

function install(): Installed {
  const installed: Installed = { problems: [], serverCheckers: new Map() };
  slot[INSTALLED] = installed;
  checkAnswers(installed);
  checkControlFetch(installed);
  return installed;
}

function checkAnswers({ problems }: Installed): void {
  /** One checker per base URL: sandboxes on one base URL publish the same document (the server's sessions, say). */
  const checkers = new Map<string, Conformance>();
  const original = Pipeline.prototype.answer;
  // The pipeline's answer, before it is a web Response or written to a socket: the body is read
  // as it is (no Response clone, which Node 20's undici keeps alive: about 5 KB a clone).
  Pipeline.prototype.answer = function answer(this: Pipeline, request: Incoming): Answer | Promise<Answer> {
    const { origin, basePath } = this.deps;
    const baseUrl = origin + basePath;
    const check = (answer: Answer): Answer => {
      if (answer.status === 0 || !request.url.startsWith(baseUrl)) return answer;
      let checker = checkers.get(baseUrl);
      if (!checker) checkers.set(baseUrl, (checker = new Conformance(openApiDocument(ROUTES, baseUrl))));
      const path = request.url.slice(baseUrl.length).replace(/[?#].*$/, '') || '/';
      const headers = new Headers();
      for (let i = 0; i < answer.headers.length; i += 2) headers.append(answer.headers[i]!, answer.headers[i + 1]!);
      const type = headers.get('content-type') ?? '';
      const streamed = type.startsWith('text/event-stream') || type.startsWith('audio/');
      const body =
        streamed || request.method === 'HEAD' ? null : answer.body === null ? '' : typeof answer.body === 'string' ? answer.body : null;
      problems.push(...checker.check(request.method, path, answer.status, headers, body));
      return answer;
    };
    const out = original.call(this, request);
    return out instanceof Promise ? out.then(check) : check(out);
  };
}

function checkControlFetch({ problems, serverCheckers }: Installed): void {
  const plainFetch = globalThis.fetch;
  const CONTROL = /^http:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+(\/__sandbox\/[^?#]*)/;
  globalThis.fetch = async function checkedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const response = await plainFetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const path = CONTROL.exec(url)?.[1];
    const type = response.headers.get('content-type') ?? '';
    if (
      !path ||
      path.startsWith('/__sandbox/openapi') ||
      path.startsWith('/__sandbox/console') ||
      !type.startsWith('application/json') ||
      response.status === 0
    )
      return response;
    const origin = new URL(url).origin;
    let checker = serverCheckers.get(origin);
    if (!checker) {
      checker = plainFetch(`${origin}/__sandbox/openapi.json`).then(
        async (res) => new Conformance((await res.json()) as Record<string, unknown>),
      );
      serverCheckers.set(origin, checker);
    }
    const method = (init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')).toUpperCase();
    const body = await response.clone().text();
    problems.push(...(await checker).check(method, path, response.status, new Headers({ 'content-type': type }), body || null));
    return response;
  };
}

afterEach(() => {
  serverCheckers.clear();
  const found = problems.splice(0);
  expect(found, 'answers that the OpenAPI document does not describe').toEqual([]);
});
