import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/**
 * A page's own `fetch` and `XMLHttpRequest` (happy-dom's window, served from
 * another origin) reach the sandbox: their CORS preflights are answered, and the answers carry
 * what a browser needs to hand them to the page.
 */
const KEY = 'SVC_TEST_browser';
let sandbox: Sandbox;
let window: Window;
afterEach(async () => {
  await window?.happyDOM.close();
  sandbox?.close();
});

function xhr(
  win: Window,
  method: string,
  url: string,
  body?: string,
): Promise<{ status: number; text: string; requestId: string | null; exposed: string }> {
  return new Promise((resolve, reject) => {
    const request = new win.XMLHttpRequest();
    request.open(method, url);
    request.setRequestHeader('authorization', `Bearer ${KEY}`);
    if (body) request.setRequestHeader('content-type', 'application/json');
    request.onload = () =>
      resolve({
        status: request.status,
        text: request.responseText,
        requestId: request.getResponseHeader('x-request-id'),
        exposed: request.getAllResponseHeaders(),
      });
    request.onerror = () => reject(new Error(`XHR failed: ${request.status}`));
    request.send(body ?? null);
  });
}

describe('a browser window on another origin', () => {
  it("runs the same flow through the window's fetch and XMLHttpRequest: preflights answered, CORS headers on every answer", async () => {
    sandbox = createSandbox({ seed: 12 }).listen();
    window = new Window({ url: 'http://localhost:3000/app' });
    const base = sandbox.baseUrl;

    const placed = await window.fetch(`${base}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+15005550002', from: '+14155550100' }),
    });
    expect(placed.status).toBe(201);
    expect(placed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(placed.headers.get('x-request-id')).toMatch(/^req_/);
    const call = (await placed.json()) as unknown as { id: string; status: string };
    expect(call.status).toBe('ringing');

    await sandbox.advance('2s');
    const fetched = await xhr(window, 'GET', `${base}/v1/calls/${call.id}`);
    expect(fetched.status).toBe(200);
    expect(JSON.parse(fetched.text)).toMatchObject({ id: call.id, status: 'completed', disposition: 'busy' });
    expect(fetched.requestId).toMatch(/^req_/);

    const listed = await xhr(window, 'GET', `${base}/v1/calls?limit=1`);
    expect(JSON.parse(listed.text).data[0].id).toBe(call.id);

    const head = await window.fetch(`${base}/v1/calls/${call.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${KEY}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it("answers a preflight with the route's methods and the asked-for headers, before any key is asked for, and changes nothing", async () => {
    sandbox = createSandbox();
    const preflight = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST, HEAD, OPTIONS',
      'access-control-allow-headers': 'authorization,content-type',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    const noOrigin = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } }));
    expect(noOrigin.headers.get('access-control-allow-origin')).toBe('*');
    expect(noOrigin.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Content-Disposition, Deprecation, Sunset, Link, X-Sandbox-Chaos',
    );
    // A preflight counts against no rate limit: the first real request still has 99 left.
    expect(noOrigin.headers.get('x-ratelimit-remaining')).toBe('99');
  });
});
