import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { SOAK } from '../support/soak.js';
import { client, startSandbox } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from './receivers.js';

/**
 * Regression: a receiver that never answers held advance() for one timeout per virtual instant
 * at which attempts to it fell due: 5 calls with every event subscribed, at the default 10 s
 * timeout, made advance('25h') take about 10 minutes (58 instants). Now the first timeout makes
 * the receiver hanging: its later attempts get a tenth of the timeout, and advance() waits for
 * each only when its result counts (its delivery's next attempt, or the advance's end), so the
 * attempts of many instants wait side by side.
 *
 * Full size (`npm run test:soak`): 20 calls at the default 10 s timeout; light (`npm test`): the
 * same 20 calls at 1 s. Both check what happens (every event dead-lettered after its 13 attempts,
 * in instant order) and print the time; the 60 s target is judged by `npm run bench`'s "Hanging
 * receiver" section (bench/hanging-receiver.mjs): beside other work on a shared machine a time
 * bound in a test would measure the machine.
 */
const TIMEOUT = SOAK ? '10s' : '1s';
const EVERY_EVENT = ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'];

const open: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) sandbox.close();
  await closeReceivers();
});

describe('a receiver that never answers, 20 calls with every event subscribed', () => {
  it(
    `advance('25h') at a ${TIMEOUT} timeout, and every event is dead-lettered after its 13 attempts`,
    async () => {
      const receiver = await startReceiver(() => 'hang');
      const sandbox = startSandbox({ seed: 20, webhookTimeout: TIMEOUT });
      open.push(sandbox);
      await subscribe(sandbox, receiver.url, EVERY_EVENT);
      for (let i = 0; i < 20; i++) await client(sandbox).placeCall({ to: `+141555507${String(i).padStart(2, '0')}` });
      const started = performance.now();
      await sandbox.advance('25h');
      const seconds = (performance.now() - started) / 1000;
      console.log(`hanging receiver: 20 calls, every event, advance('25h') at ${TIMEOUT}: ${seconds.toFixed(1)} s of real time`);

      const deliveries = sandbox.webhooks.deliveries();
      expect(deliveries).toHaveLength(100);
      expect(deliveries.filter((d) => d.state === 'dead' && d.attempts.length === 13)).toHaveLength(100);
      const attempts = sandbox.webhooks.attempts();
      expect(attempts).toHaveLength(1300);
      expect(attempts.every((a) => a.status === null && !a.ok && /^no response within \d+ ms \(timed out/.test(a.error!))).toBe(true);
      // The log is in the order the attempts left: instant by instant.
      const instants = attempts.map((a) => Date.parse(a.at));
      expect(instants).toEqual([...instants].sort((a, b) => a - b));
    },
    SOAK ? 120_000 : 60_000,
  );
});
