import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { client, startSandbox } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from './receivers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  vi.useRealTimers();
  sandbox?.close();
  await closeReceivers();
});

describe("webhooks under the user's vi.useFakeTimers()", () => {
  it('AbortSignal.timeout() still fires: its timer is internal to Node, not the faked global one', async () => {
    vi.useFakeTimers();
    const server = createServer(() => {}); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const error = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x', signal: AbortSignal.timeout(100) }).catch(
        (e: Error) => e,
      );
      expect((error as Error).name).toBe('TimeoutError');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a hanging receiver times out and a failing one is retried on the virtual clock', async () => {
    vi.useFakeTimers();
    // Not much shorter: on a loaded machine the first request may not even arrive in 100 ms.
    sandbox = startSandbox({ webhookTimeout: '500ms' });
    const hanging = await startReceiver((_, n) => (n === 1 ? 'hang' : 200), sandbox);
    const failing = await startReceiver((_, n) => (n <= 2 ? 500 : 200), sandbox);
    const slow = await subscribe(sandbox, hanging.url, ['call.started']);
    await subscribe(sandbox, failing.url, ['call.started']);
    await client(sandbox).placeCall();
    await sandbox.advance('2m');
    expect(hanging.received.map((r) => r.virtualAt)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:30.000Z']);
    expect(failing.received.map((r) => r.virtualAt)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:01:30.000Z',
    ]);
    expect(sandbox.webhooks.attempts({ subscriptionId: slow.id })[0]!.error).toMatch(/timed out/);
    expect(sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered']);
  });
});
