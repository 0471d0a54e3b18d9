import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { closeReceivers } from '../webhooks/receivers.js';
import { deliverToBoth, inProcessReceiver, mswOutput } from './msw-deliveries.js';

// The sandbox listens first, msw joins it (msw 2.15 keeps the joined interceptors for the rest
// of the process, so this order has a file of its own); msw-deliveries-msw-first.test.ts has the other.
it("with msw's onUnhandledRequest: 'error' started after the sandbox, deliveries to a loopback receiver arrive without a word from msw", async () => {
  const sandbox = createSandbox({ seed: 1 }).listen();
  const inProcess: string[] = [];
  const server = setupServer(inProcessReceiver(inProcess));
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const said = await mswOutput(async () => {
      const { receiver, signed } = await deliverToBoth(sandbox, sandbox.fetch);
      expect(receiver.received.map((r) => r.body.type)).toEqual(['call.started']);
      expect(signed).toBe(true);
    });
    expect(said).toEqual([]);
    expect(inProcess).toHaveLength(1);
    expect(sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered']);
  } finally {
    sandbox.close();
    server.close();
    await closeReceivers();
  }
});
