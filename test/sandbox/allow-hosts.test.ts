import http from 'node:http';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { client } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * `allowHosts`: nock's disableNetConnect() / enableNetConnect(host) for the whole process. A
 * local server stands in for the outside world, so the test can see that nothing reached it.
 */
let sandbox: Sandbox | undefined;
afterEach(async () => {
  sandbox?.close();
  sandbox = undefined;
  vi.restoreAllMocks();
  await closeReceivers();
});

/** A node:http GET: its status, or the error it emitted. */
const httpGet = (url: string) =>
  new Promise<number | Error>((resolve) => {
    const req = http.request(url, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', resolve).end();
  });

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
