import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxSnapshot } from '../../src/index.js';
import { closedAfterEach } from '../support/made.js';
import { soakSize } from '../support/soak.js';

/**
 * The snapshot log keeps what a byte-identical continuation needs, not every request (docs/snapshots.md,
 * "Cost"): the same request repeated at one instant is one input with `times`, and requests that
 * changed nothing but their request ids (reads, refusals), once the request journal no longer lists
 * them and their rate window has passed, are one `elided` count. Property: after any mix of reads,
 * writes, refusals and advances, a sandbox restored from the snapshot shows what the original shows,
 * and the same continuation gets the same answers (headers included: request ids, rate windows) from both.
 */

const make = closedAfterEach();

const KEYS = ['SVC_TEST_a', 'SVC_TEST_b'] as const;
type Command =
  | { kind: 'reads'; n: number; path: string; key: string | null }
  | { kind: 'post'; to: string; key: string }
  | { kind: 'advance'; ms: number }
  | { kind: 'get-call'; which: number; key: string }
  | { kind: 'options' };

const key = fc.constantFrom<string>(...KEYS);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('reads' as const),
      n: fc.integer({ min: 1, max: 150 }),
      path: fc.constantFrom('/v1/calls?limit=1', '/v1/calls', '/v1/numbers?limit=2', '/v1/nope'),
      key: fc.option(key, { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('post' as const), to: fc.constantFrom('+14155550123', '+15005550001'), key }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2500 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('get-call' as const), which: fc.nat(), key }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'options' as const }) },
);

/** Runs `commands` on `sandbox`; every answer, headers included, as text. */
async function drive(sandbox: Sandbox, commands: readonly Command[]): Promise<{ answers: string[]; requests: number }> {
  const answers: string[] = [];
  let requests = 0;
  const send = async (path: string, init: RequestInit = {}) => {
    requests++;
    const res = await sandbox.fetch(path, init);
    answers.push(JSON.stringify([res.status, [...res.headers], await res.text()]));
  };
  const auth = (k: string | null): Record<string, string> => (k === null ? {} : { authorization: `Bearer ${k}` });
  for (const c of commands) {
    if (c.kind === 'reads') for (let i = 0; i < c.n; i++) await send(c.path, { headers: auth(c.key) });
    else if (c.kind === 'post') {
      await send('/v1/calls', {
        method: 'POST',
        headers: { ...auth(c.key), 'content-type': 'application/json' },
        body: JSON.stringify({ to: c.to, from: '+14155550100' }),
      });
    } else if (c.kind === 'advance') await sandbox.advance(c.ms);
    else if (c.kind === 'get-call') {
      const calls = sandbox.calls.list();
      await send(`/v1/calls/${calls.length === 0 ? 'call_0000000000000000' : calls[c.which % calls.length]!.id}`, { headers: auth(c.key) });
    } else await send('/v1/calls', { method: 'OPTIONS', headers: { origin: 'http://localhost:3000' } });
  }
  return { answers, requests };
}

/** What a sandbox shows, as JSON text. */
function observed(sandbox: Sandbox): string {
  return JSON.stringify({
    now: sandbox.now(),
    requests: sandbox.requests.list(),
    calls: sandbox.calls.list(),
    events: sandbox.events.list(),
    keys: sandbox.keys.list(),
  });
}

/** Every request a snapshot stands for: kept ones with their repeats, and the counted ones. */
function represented(snapshot: SandboxSnapshot): number {
  let n = 0;
  for (const input of snapshot.inputs) {
    if (input.kind === 'request') n += input.times ?? 1;
    else if (input.kind === 'elided') n += input.requests;
  }
  return n;
}

describe('the snapshot log, compacted', () => {
  it('a snapshot taken after any mix of reads, writes, refusals and advances continues byte for byte as the original', async () => {
    let elided = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.nat(1000),
          limit: fc.constantFrom(0, 5, 50, 2000),
          before: fc.array(command, { minLength: 25, maxLength: 60 }),
          after: fc.array(command, { minLength: 1, maxLength: 8 }),
        }),
        async ({ seed, limit, before, after }) => {
          const original = createSandbox({ seed, maxJournalEntries: limit });
          let copy: Sandbox | undefined;
          try {
            const { requests } = await drive(original, before);
            const snapshot = JSON.parse(JSON.stringify(original.snapshot())) as SandboxSnapshot;
            expect(represented(snapshot)).toBe(requests);
            if (snapshot.inputs.some((input) => input.kind === 'elided')) elided++;
            copy = createSandbox({ snapshot });
            expect(observed(copy)).toBe(observed(original));
            const fromOriginal = await drive(original, after);
            const fromCopy = await drive(copy, after);
            expect(fromCopy.answers).toEqual(fromOriginal.answers);
            expect(observed(copy)).toBe(observed(original));
            expect(copy.internalErrors()).toEqual([]);
          } finally {
            original.close();
            copy?.close();
          }
        },
      ),
      {
        seed: 20261127,
        numRuns: soakSize(8, 60),
        examples: [
          // Reads counted while later requests of their rate window are still listed: those count on them (the 429s).
          [
            {
              seed: 0,
              limit: 5,
              before: [
                ...Array.from({ length: 6 }, (): Command[] => [
                  { kind: 'reads', n: 150, path: '/v1/calls', key: 'SVC_TEST_b' },
                  { kind: 'advance', ms: 1000 },
                ]).flat(),
                { kind: 'reads', n: 80, path: '/v1/calls?limit=1', key: 'SVC_TEST_a' },
                { kind: 'reads', n: 80, path: '/v1/calls', key: 'SVC_TEST_a' },
              ],
              after: [{ kind: 'reads', n: 3, path: '/v1/calls', key: 'SVC_TEST_a' }],
            },
          ],
          // Counted just after reads of a past window that the journal still lists: those stay.
          [
            {
              seed: 1,
              limit: 50,
              before: [
                ...Array.from({ length: 6 }, (): Command[] => [
                  { kind: 'reads', n: 150, path: '/v1/calls', key: 'SVC_TEST_b' },
                  { kind: 'advance', ms: 1000 },
                ]).flat(),
                ...Array.from(
                  { length: 100 },
                  (_, i): Command => ({ kind: 'reads', n: 1, path: i % 2 ? '/v1/calls' : '/v1/numbers?limit=2', key: 'SVC_TEST_a' }),
                ),
                { kind: 'advance', ms: 1000 },
                { kind: 'reads', n: 24, path: '/v1/calls', key: 'SVC_TEST_a' },
              ],
              after: [{ kind: 'options' }],
            },
          ],
        ],
      },
    );
    // The property held where counting mattered, not only where nothing was counted.
    expect(elided).toBeGreaterThan(0);
  });

  it('100,000 reads with one key are a handful of inputs, and the copy lists the same journal', async () => {
    const sandbox = make({ seed: 1 });
    const headers = { authorization: 'Bearer SVC_TEST_reader' };
    const reads = soakSize(3_000, 100_000);
    for (let i = 0; i < reads; i++) {
      await sandbox.fetch('/v1/calls?limit=1', { headers });
      if (i % 100 === 99) await sandbox.advance('1s');
    }
    const snapshot = sandbox.snapshot();
    expect(represented(snapshot)).toBe(reads);
    // The advances (one a second) and, for the reads, a count and the journal's window in runs of 100.
    expect(snapshot.inputs.length).toBeLessThan(reads / 100 + 10_000 / 100 + 10);
    const copy = make({ snapshot: JSON.parse(JSON.stringify(snapshot)) });
    expect(observed(copy)).toBe(observed(sandbox));
  });
});
