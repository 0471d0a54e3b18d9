import http from 'node:http';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { client } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * Requests that must never leave a test: to a production host the user lists,
 * or with a production key; and, with `allowHosts`, to any host not listed. A local server stands in for production, so the test can see that
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

// allowHosts: nock's disableNetConnect() / enableNetConnect(host) for the whole process.
const refusedNaming = (host: string) => ({
  name: 'SandboxError',
  code: 'unhandled_request',
  param: 'allowHosts',
  message: expect.stringMatching(
    new RegExp(
      `^svc-sandbox refused a request to .*: ${host.replace(/\./g, '\\.')} is neither the sandbox's host \\(https://api\\.svc\\.test\\) nor in allowHosts .*Add '${host.replace(/\./g, '\\.')}' to allowHosts`,
    ),
  ),
});

describe('allowHosts', () => {
  it('refuses a host it does not list from fetch, node:http and the undici package, and sends nothing; a listed host and the sandbox pass', async () => {
    const outside = await startReceiver();
    sandbox = createSandbox({ allowHosts: ['localhost'] }).listen();
    const refused = `http://127.0.0.1:${outside.port}/anything`;
    await expect(fetch(refused)).rejects.toMatchObject(refusedNaming('127.0.0.1'));
    const viaHttp = await httpGet(refused);
    expect(viaHttp).toBeInstanceOf(SandboxError);
    expect(viaHttp).toMatchObject(refusedNaming('127.0.0.1'));
    await expect(undiciRequest(refused)).rejects.toMatchObject({
      code: 'unhandled_request',
      message: expect.stringContaining("Add '127.0.0.1' to allowHosts"),
    });
    expect(outside.received).toEqual([]);

    expect((await fetch(`http://localhost:${outside.port}/ok`)).status).toBe(200);
    expect(await httpGet(`http://localhost:${outside.port}/ok`)).toBe(200);
    expect((await undiciRequest(`http://localhost:${outside.port}/ok`)).statusCode).toBe(200);
    expect(outside.received).toHaveLength(3);
    expect((await client(sandbox).get('/v1/calls')).status).toBe(200);
  });

  it("[] refuses every other host; 'host:port' allows one port; a RegExp is tried on the host and on host:port", async () => {
    const outside = await startReceiver();
    sandbox = createSandbox({ allowHosts: [] }).listen();
    await expect(fetch(`http://localhost:${outside.port}/`)).rejects.toMatchObject({
      message: expect.stringContaining('nor in allowHosts (empty: every other host is refused)'),
    });
    sandbox.close();
    sandbox = createSandbox({ allowHosts: [`127.0.0.1:${outside.port}`] }).listen();
    expect((await fetch(`http://127.0.0.1:${outside.port}/`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${outside.port + 1}/`)).rejects.toMatchObject({ code: 'unhandled_request' });
    sandbox.close();
    sandbox = createSandbox({ allowHosts: [/^local/, new RegExp(`:${outside.port}$`, 'g')] }).listen();
    expect((await fetch(`http://localhost:${outside.port}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${outside.port}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${outside.port}/`)).status).toBe(200);
    await expect(fetch('http://example.invalid/')).rejects.toMatchObject(refusedNaming('example.invalid'));
  });

  it("with onUnhandledRequest: 'warn' the request goes out with a warning naming the host and the option", async () => {
    const outside = await startReceiver();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    sandbox = createSandbox({ allowHosts: [], onUnhandledRequest: 'warn' }).listen();
    expect((await fetch(`http://127.0.0.1:${outside.port}/`)).status).toBe(200);
    expect(await httpGet(`http://127.0.0.1:${outside.port}/`)).toBe(200);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(String(warn.mock.calls[0]![0])).toMatch(
      /^\[svc-sandbox\] svc-sandbox let through a request to http:\/\/127\.0\.0\.1:\d+\/: 127\.0\.0\.1 is neither.*allowHosts/,
    );
  });

  it("does not refuse the sandbox's own webhook deliveries to a receiver on this machine, and stops refusing when the sandbox closes", async () => {
    const receiver = await startReceiver();
    sandbox = createSandbox({ allowHosts: [] }).listen();
    await subscribe(sandbox, receiver.url, ['call.started']);
    await client(sandbox).placeCall();
    await sandbox.advance(0);
    expect(receiver.received.map((r) => r.body.type)).toEqual(['call.started']);
    sandbox.close();
    sandbox = undefined;
    expect((await fetch(`http://127.0.0.1:${receiver.port}/`)).status).toBe(200);
  });

  it('refuses a mistaken option at createSandbox, naming the entry and the fix', () => {
    expect(() => createSandbox({ allowHosts: ['https://api.example.com'] })).toThrow(
      expect.objectContaining({
        code: 'invalid_options',
        param: 'allowHosts[0]',
        message: expect.stringMatching(/'localhost'.*no scheme or path/),
      }),
    );
    expect(() => createSandbox({ allowHosts: 'localhost' as never })).toThrow(expect.objectContaining({ param: 'allowHosts' }));
    expect(() => createSandbox({ allowHosts: [], onUnhandledRequest: 'bypass' })).toThrow(
      expect.objectContaining({ param: 'allowHosts', message: expect.stringMatching(/leave out one of them/) }),
    );
  });
});
