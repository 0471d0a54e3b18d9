import { request as namedRequest, createServer, type Server } from 'node:http';
import { Agent, request as undiciRequest } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/**
 * The rows of docs/interception.md where interception stops, proven: a real server stands
 * at the base URL, so a request that is not intercepted is answered by it ("real ...").
 */
let real: Server;
let base: string;
let sandbox: Sandbox;
beforeEach(async () => {
  real = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`real ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(real.address() as { port: number }).port}`;
  sandbox = createSandbox({ baseUrl: base }).listen();
});
afterEach(async () => {
  sandbox.close();
  await new Promise((resolve) => real.close(resolve));
});

function text(res: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    res
      .setEncoding('utf8')
      .on('data', (c: string) => (body += c))
      .on('end', () => resolve(body));
  });
}

describe('where interception stops', () => {
  it('`import { request } from "node:http"` binds the unpatched function: not intercepted (use http.request)', async () => {
    const http = (await import('node:http')).default; // `import http from 'node:http'`: the module object, which is patched
    const patched = await new Promise<string>((resolve) => http.request(`${base}/v1/calls`, (res) => void text(res).then(resolve)).end());
    expect(patched).toMatch(/"error":\{"code":"invalid_api_key"/); // the sandbox answered
    const named = await new Promise<string>((resolve) => namedRequest(`${base}/v1/calls`, (res) => void text(res).then(resolve)).end());
    expect(named).toBe('real GET /v1/calls');
  });

  it('an undici request with its own dispatcher (new Agent()) bypasses the global one: not intercepted', async () => {
    expect((await undiciRequest(`${base}/v1/calls`)).statusCode).toBe(401); // the global dispatcher: the sandbox
    const own = await undiciRequest(`${base}/v1/calls`, { dispatcher: new Agent() });
    expect(await own.body.text()).toBe('real GET /v1/calls');
  });
});
