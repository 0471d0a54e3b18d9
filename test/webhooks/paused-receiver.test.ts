import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions, WEBHOOK_RETRY_SCHEDULE } from '../../src/index.js';
import { hangTimeoutMs, hangWindowMs } from '../../src/webhooks/deliveries.js';
import { client } from '../helpers.js';
import { fakeWall, WALL_CLOCK } from '../support/wall-clock.js';
import { within } from '../support/within.js';
import { subscribe } from './receivers.js';

/**
 * Regression: a receiver that stopped answering for 25 s of real time (a breakpoint, a container
 * pause) and then answered everything lost all 25 deliveries of `advance('25h')` to the
 * dead-letter queue within 24 s: one timeout, then every later attempt at a tenth of it, a day of
 * virtual retries in seconds. Now the last attempt of each delivery stays open until the receiver
 * has hung for four timeouts of wall time (docs/webhooks.md, "A receiver that hangs"), so a pause
 * shorter than that loses nothing, as with the service.
 *
 * The window is measured on the sandbox's wall clock, here a fake one the test moves (`[WALL_CLOCK]`):
 * whether the pause fits the window never depends on how fast the machine is.
 */
const TIMEOUT_MS = 1000;
const LAST = WEBHOOK_RETRY_SCHEDULE.length;
const CALLS = 25;

/** A receiver paused until `resume()`: every request waits, then all are answered 200. */
async function pausedReceiver() {
  const held: ServerResponse[] = [];
  const lastAttempts = new Set<string>();
  let resumed = false;
  let closedLast = 0;
  let onLast: () => void = () => undefined;
  const allLast = new Promise<void>((resolve) => (onLast = resolve));
  let onClosed: () => void = () => undefined;
  const lastClosed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (resumed) return void res.writeHead(200).end('ok');
      held.push(res);
      if (req.headers['x-service-delivery-attempt'] === String(LAST)) {
        lastAttempts.add(String(req.headers['x-service-event-id']));
        if (lastAttempts.size === CALLS) onLast();
        // The sender gave up on a last attempt while the receiver was paused.
        res.on('close', () => {
          if (!res.writableEnded && ++closedLast === 1) onClosed();
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    /** Every delivery's last attempt has arrived, and waits. */
    allLast,
    /** A last attempt was abandoned by the sandbox while the receiver was paused. */
    lastClosed,
    resume() {
      resumed = true;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function pausedStory() {
  const fake = fakeWall();
  const receiver = await pausedReceiver();
  open.push(receiver);
  const sandbox: Sandbox = createSandbox({
    seed: 34,
    webhookTimeout: `${TIMEOUT_MS}ms`,
    [WALL_CLOCK]: fake.wall,
  } as SandboxOptions).listen();
  open.push(sandbox);
  await subscribe(sandbox, receiver.url, ['call.started']);
  for (let i = 0; i < CALLS; i++) await client(sandbox).placeCall({ to: `+141555509${String(i).padStart(2, '0')}` });
  return { fake, receiver, sandbox };
}

describe('a receiver that pauses, then answers', () => {
  it('gets every delivery of advance(25h) when its pause is shorter than the hang window: 0 dead letters', async () => {
    const { fake, receiver, sandbox } = await pausedStory();
    const advancing = sandbox.advance('25h');
    // One timeout, then twelve tenths of it: a few seconds of real time (a hang only reaches the bound).
    await within(receiver.allLast, 60_000, 'the last attempt of every delivery');
    // The pause goes on: at least five hang timeouts of real time (under the old rule each last
    // attempt was abandoned after one), and three quarters of the window of wall time.
    await Promise.race([receiver.lastClosed, new Promise((resolve) => setTimeout(resolve, 5 * hangTimeoutMs(TIMEOUT_MS)))]);
    await fake.tick((hangWindowMs(TIMEOUT_MS) * 3) / 4);
    receiver.resume();
    await within(advancing, 60_000, "advance('25h')");

    expect(sandbox.webhooks.deadLetters()).toEqual([]);
    const deliveries = sandbox.webhooks.deliveries();
    expect(deliveries).toHaveLength(CALLS);
    for (const d of deliveries) {
      expect(d.state).toBe('delivered');
      expect(d.attempts.map((a) => a.ok)).toEqual([...Array(LAST - 1).fill(false), true]);
      expect(d.attempts.at(-1)).toMatchObject({
        attempt: LAST,
        status: 200,
        at: new Date(Date.parse('2026-01-01T00:00:00Z') + 86_400_000).toISOString(),
      });
    }
  });

  it('loses its deliveries to the dead-letter queue once it has hung for the whole window, each last attempt saying why', async () => {
    const { fake, receiver, sandbox } = await pausedStory();
    const advancing = sandbox.advance('25h');
    await within(receiver.allLast, 60_000, 'the last attempt of every delivery');
    await fake.tick(hangWindowMs(TIMEOUT_MS));
    await within(advancing, 60_000, "advance('25h')");
    const dead = sandbox.webhooks.deadLetters();
    expect(dead).toHaveLength(CALLS);
    for (const d of dead) {
      expect(d.attempts).toHaveLength(LAST);
      expect(d.attempts.at(-1)?.error).toBe(
        `no response within ${hangWindowMs(TIMEOUT_MS)} ms (timed out; the last attempt to a receiver that hangs waits until ${hangWindowMs(TIMEOUT_MS)} ms after its first timeout)`,
      );
    }
  });
});
