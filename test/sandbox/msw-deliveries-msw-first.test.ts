import { setupServer } from 'msw/node';
import { afterEach, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { closeReceivers } from '../webhooks/receivers.js';
import { deliverToBoth, inProcessReceiver, mswOutput } from './msw-deliveries.js';

// "The sandbox's own webhook deliveries to a loopback receiver pass through msw and log [MSW]
// Error: intercepted a request without a matching request handler on every delivery." msw
// listens first here (a setup file's beforeAll); msw-deliveries-sandbox-first.test.ts has the other order.

let sandbox: Sandbox | undefined;
let server: ReturnType<typeof setupServer> | undefined;
afterEach(async () => {
  sandbox?.close();
  server?.close();
  sandbox = server = undefined;
  await closeReceivers();
});

it("with msw's onUnhandledRequest: 'error', a delivery to a loopback receiver arrives and msw says nothing; an msw handler still receives", async () => {
  sandbox = createSandbox({ seed: 1 }); // made before msw listens, listening after
  const inProcess: string[] = [];
  server = setupServer(inProcessReceiver(inProcess));
  server.listen({ onUnhandledRequest: 'error' });
  sandbox.listen();
  const said = await mswOutput(async () => {
    const { receiver, signed } = await deliverToBoth(sandbox!, sandbox!.fetch);
    expect(receiver.received.map((r) => r.body.type)).toEqual(['call.started']);
    expect(signed).toBe(true);
  });
  expect(said).toEqual([]);
  expect(inProcess.map((body) => JSON.parse(body).type)).toEqual(['call.started']);
  expect(sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered']);
});

it("with the documented onUnhandledRequest callback, the test's own fetch reaches the sandbox, and deliveries are quiet", async () => {
  const unhandled: string[] = [];
  const inProcess: string[] = [];
  server = setupServer(inProcessReceiver(inProcess));
  server.listen({
    onUnhandledRequest(request, print) {
      if (new URL(request.url).origin === 'https://api.svc.test') return; // the sandbox answers it
      unhandled.push(request.url);
      print.error();
    },
  });
  sandbox = createSandbox({ seed: 1 }).listen();
  const said = await mswOutput(async () => {
    const { receiver } = await deliverToBoth(sandbox!, fetch);
    expect(receiver.received).toHaveLength(1);
  });
  expect([said, unhandled]).toEqual([[], []]);
  expect(inProcess).toHaveLength(1);
});
