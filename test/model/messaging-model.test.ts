import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/index.js';
import { soakSize } from '../support/soak.js';
import { MessagingRun, messagingCommands, type MessagingCommand } from './messaging-commands.js';
import { checkDeliveries, checkEvents, startReceivers } from './messaging-invariants.js';
import { MessagingModel } from './messaging-reference.js';

/**
 * Model-based test of numbers and messages, as fast-check commands (fc.commands,
 * fc.asyncModelRun): random sequences of API requests (three keys: search, provision, update,
 * release, send, list), scripted inbound messages and calls, and clock advances, checked
 * command by command against the reference model in messaging-reference.ts (the commands are
 * in messaging-commands.ts, their inputs and weights in messaging-steps.ts).
 * Invariants: no 5xx; every list walk returns exactly the model's items, each once, newest
 * first; message statuses only move along queued → sent → delivered | failed, at the model's
 * instants; `message.delivered` exactly for delivered outbound messages and `message.received`
 * exactly for inbound ones, each in its own account; a number is held by at most one account
 * and search never offers a held one; no account sees another's numbers, messages or
 * conversations; the same seed and commands give byte-identical responses and event logs; a
 * refused request (4xx) or scripted action (SandboxError) changes nothing, not even the ids
 * later resources get. With `webhooks`, an in-process receiver per account (one of them
 * always failing) must end with every event delivered or dead-lettered after 25 h, never at
 * another account's receiver. The driver (requests, transcript, rate limit) is driver.ts,
 * shared with calls-model.test.ts.
 */

const POOL_KEY = 'SVC_TEST_pool';

/** A run as text (every response, then the event log), and the same text without the lines of its refused commands. */
interface Run {
  text: string;
  withoutRefused: string;
  /** The commands that ran, in order. */
  executed: MessagingCommand[];
  /** Those that were refused (a 4xx, or a scripting call that threw). */
  refused: Set<MessagingCommand>;
  /** Whether any request was rate limited (removing commands would then change later answers). */
  limited: boolean;
}

async function runCommands(
  seed: number,
  commands: Iterable<fc.AsyncCommand<MessagingModel, MessagingRun>>,
  options: { webhooks?: boolean } = {},
): Promise<Run> {
  const d = new MessagingRun({ seed });
  const model = new MessagingModel(d);
  const receivers = options.webhooks ? startReceivers() : null;
  const secrets: string[] = [];
  try {
    // The pool as a fresh search shows it (another key: outside the model's rate windows).
    const pool: any[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const res = await d.send(POOL_KEY, 'GET', `/v1/numbers?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pool.push(...res.body.data);
      cursor = res.body.next_cursor;
    }
    model.setPool(pool);
    expect(pool.length).toBeGreaterThan(500);

    if (receivers) {
      for (const k of [0, 1, 2]) {
        const res = await d.request(k, 'POST', '/v1/webhooks', { url: `https://hooks.test/${k}`, events: [...EVENT_TYPES] });
        expect(res.status).toBe(201);
        secrets.push(res.body.secret);
      }
    }

    await fc.asyncModelRun(() => ({ model, real: d }), commands);

    // The final state, through each account's eyes: exactly its own numbers and messages.
    await d.advance(1_000); // a fresh rate window
    const holders = new Map<string, number>();
    for (const k of [0, 1, 2]) {
      const numbers = (await d.walk(k, '/v1/numbers?provisioned=true&limit=200', 200))!;
      expect(numbers).toEqual(
        model
          .live(k)
          .reverse()
          .map((n) => model.numberJson(n)),
      );
      for (const n of numbers) {
        expect(holders.has(n.number), `${n.number} held by two accounts`).toBe(false);
        holders.set(n.number, k);
      }
      const messages = (await d.walk(k, '/v1/messages?limit=200', 200, (item) => model.observe(item)))!;
      expect(messages.map((m) => m.id)).toEqual(
        model.messages
          .filter((m) => m.account === k)
          .map((m) => m.id)
          .reverse(),
      );
    }
    checkEvents(d, model);

    if (receivers) {
      await d.advance(25 * 3_600_000); // past every retry window (docs/webhooks.md)
      checkDeliveries(d, model, receivers.received, secrets);
    }
    const text = d.finish();
    const withoutRefused = d.finish(d.transcript.filter((_, i) => !d.refusedLines.has(i)));
    return { text, withoutRefused, executed: d.executed, refused: d.refusedCommands, limited: d.limitedCount > 0 };
  } finally {
    receivers?.stop();
    d.sandbox.close();
  }
}

// No seed is pinned: each run draws new cases. On failure fast-check prints the seed, path and
// shrunk commands; `{ seed, path }` in this fc.assert's parameters replays them. A case that found
// a bug becomes a named regression test of its own.
describe('numbers and messages against a reference model', () => {
  it('holds over random command sequences (thousands of commands in all)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), messagingCommands(300), async (seed, commands) => {
        await runCommands(seed, commands);
      }),
      { numRuns: soakSize(10, 40) },
    );
  });

  it('is deterministic: the same seed and commands give byte-identical responses and event logs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), messagingCommands(120), async (seed, commands) => {
        expect((await runCommands(seed, commands)).text).toBe((await runCommands(seed, commands)).text);
      }),
      { numRuns: soakSize(3, 8) },
    );
  });

  it('a refused request or scripted action changes nothing: without those commands the run reads the same, minus their lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), messagingCommands(200), async (seed, commands) => {
        const full = await runCommands(seed, commands);
        fc.pre(!full.limited && full.refused.size > 0);
        const kept = await runCommands(
          seed,
          full.executed.filter((c) => !full.refused.has(c)),
        );
        expect([...kept.refused].map(String)).toEqual([]);
        expect(kept.text).toBe(full.withoutRefused);
      }),
      { numRuns: soakSize(4, 10) },
    );
  });

  it('delivers or dead-letters every event, only to its own account, with in-process receivers that fail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), messagingCommands(300), async (seed, commands) => {
        await runCommands(seed, commands, { webhooks: true });
      }),
      { numRuns: soakSize(2, 4) },
    );
  });
});
