import { afterEach, expect } from 'vitest';
import { Sandbox } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';

/**
 * Every answer any behaviour test sees (through interception, `handle()`, `sandbox.fetch` or
 * the standalone server, which all end in `Sandbox.prototype.handle`) is checked against the
 * document `sandbox.openapi()` publishes: a test that received an undocumented status, field
 * or header fails, naming it (issue 13 item 2).
 */
/** One checker per base URL: sandboxes on one base URL publish the same document (the server's sessions, say). */
const checkers = new Map<string, Conformance>();
const problems: string[] = [];
const original = Sandbox.prototype.handle;

Sandbox.prototype.handle = async function handle(this: Sandbox, request: Request): Promise<Response> {
  const response = await original.call(this, request);
  if (response.type === 'error' || !request.url.startsWith(this.baseUrl)) return response;
  let checker = checkers.get(this.baseUrl);
  if (!checker) checkers.set(this.baseUrl, (checker = new Conformance(this.openapi())));
  const rest = request.url.slice(this.baseUrl.length);
  const path = rest.replace(/[?#].*$/, '') || '/';
  const type = response.headers.get('content-type') ?? '';
  const streamed = type.startsWith('text/event-stream') || type.startsWith('audio/');
  const body = streamed || request.method === 'HEAD' ? null : await response.clone().text();
  problems.push(...checker.check(request.method, path, response.status, response.headers, body));
  return response;
};

afterEach(() => {
  const found = problems.splice(0);
  expect(found, 'answers that the OpenAPI document does not describe').toEqual([]);
});
