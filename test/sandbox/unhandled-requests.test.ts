import http from 'node:http';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { closeReceivers, startReceiver } from '../webhooks/receivers.js';

/**
 * Requests that must never leave a test (issue 21 item 4): to a production host the user lists,
 * or with a production key. A local server stands in for production, so the test can see that
 * nothing reached it.
 */
let sandbox: Sandbox | undefined;
afterEach(async () => {
  sandbox?.close();
  sandbox = undefined;
  vi.restoreAllMocks();
  await closeReceivers();
});

/** A node:http GET: its status, or the error it emitted. */
const httpGet = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number | Error>((resolve) => {
    // `http.request` read at call time: a named import would hold the unpatched function (docs/interception.md).
    const req = http.request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', resolve).end();
  });

describe('onUnhandledRequest', () => {
  it("regression: by default ('error') a request to a listed production host fails at once from fetch, node:http and undici, and nothing is sent", async () => {
    const production = await startReceiver();
    sandbox = createSandbox({ productionHosts: ['LOCALHOST'] }).listen();
    const url = `http://localhost:${production.port}/v1/calls`;
    await expect(fetch(url)).rejects.toMatchObject({
      name: 'SandboxError',
      code: 'unhandled_request',
      message: expect.stringMatching(/localhost is a production host \(productionHosts\).*Nothing was sent/),
    });
    const viaHttp = await httpGet(url);
    expect(viaHttp).toBeInstanceOf(SandboxError);
    await expect(undiciRequest(url)).rejects.toMatchObject({ code: 'unhandled_request' });
    expect(production.received).toEqual([]);
    // Another host of the machine is no production host: it passes untouched.
    expect(await httpGet(`http://127.0.0.1:${production.port}/hooks`)).toBe(200);
    expect(production.received).toHaveLength(1);
  });

  it("regression: a production key (SVC_LIVE_) to any host but the sandbox is stopped; to the sandbox it is the API's 401", async () => {
    const elsewhere = await startReceiver();
    sandbox = createSandbox().listen();
    await expect(
      fetch(elsewhere.url, { method: 'POST', headers: { authorization: 'Bearer SVC_LIVE_real' }, body: '{}' }),
    ).rejects.toMatchObject({
      code: 'unhandled_request',
      message: expect.stringMatching(/production key \(SVC_LIVE_…\)/),
    });
    expect(await httpGet(elsewhere.url, { authorization: 'bearer SVC_LIVE_real' })).toBeInstanceOf(SandboxError);
    expect(elsewhere.received).toEqual([]);
    const res = await fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: 'Bearer SVC_LIVE_real' } });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('live_key_not_allowed');
    expect(await httpGet(elsewhere.url, { authorization: 'Bearer SVC_TEST_fine' })).toBe(200);
  });

  it("'warn' lets it through with a warning naming the request; 'bypass' lets it through silently", async () => {
    const production = await startReceiver();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    sandbox = createSandbox({ productionHosts: ['localhost'], onUnhandledRequest: 'warn' }).listen();
    const url = `http://localhost:${production.port}/hooks`;
    expect((await fetch(url)).status).toBe(200);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(
      /svc-sandbox let through a request to http:\/\/localhost:\d+\/hooks: localhost is a production host/,
    );
    sandbox.close();
    sandbox = createSandbox({ productionHosts: ['localhost'], onUnhandledRequest: 'bypass' }).listen();
    expect((await fetch(url)).status).toBe(200);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(production.received).toHaveLength(2);
  });

  it('the guard ends with close(), and bad options are refused naming the field', async () => {
    const production = await startReceiver();
    sandbox = createSandbox({ productionHosts: ['localhost'] }).listen();
    sandbox.close();
    expect(await httpGet(`http://localhost:${production.port}/hooks`)).toBe(200);
    expect(() => createSandbox({ onUnhandledRequest: 'ignore' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_options', param: 'onUnhandledRequest' }),
    );
    expect(() => createSandbox({ productionHosts: ['https://api.svc.com/'] })).toThrow(
      expect.objectContaining({ param: 'productionHosts[0]' }),
    );
  });
});
