import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, expect, it } from 'vitest';
import { createSandbox, type Sandbox, startServer, type SandboxServer } from '../../src/index.js';
import { SOAK, soakSize } from '../support/soak.js';

/**
 * Memory bounded by state, not by requests (docs/server.md, "Limits"): reads keep nothing past the
 * request journal's window (their snapshot inputs become a count), and a stored call costs what it
 * holds. `npm test` runs these light, with a small journal so its window fills; `npm run test:soak`
 * at full size with the default journal.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

let sandbox: Sandbox | undefined;
let server: SandboxServer | undefined;
afterEach(async () => {
  sandbox?.close();
  await server?.close();
  sandbox = server = undefined;
});

const READS = soakSize(12_000, 100_000);
/** The journal's window: filled in the light run, the default (10,000) in the soak run. */
const JOURNAL = SOAK ? undefined : 1_000;
/** The light run counts only the reads after the journal's window and the log's first compaction; the soak run all of them. */
const WARM = soakSize(2_000, 0);
const BOUND = soakSize(0.5e6, 5e6);

it(`${READS.toLocaleString('en-US')} GET /v1/calls with one key grow the heap by ${BOUND / 1e6} MB at most (they were 115 B each)`, async () => {
  sandbox = createSandbox({ seed: 1, ...(JOURNAL === undefined ? {} : { maxJournalEntries: JOURNAL }) });
  const headers = { authorization: 'Bearer SVC_TEST_reader' };
  const read = async (i: number) => {
    const res = await sandbox!.fetch('/v1/calls?limit=1', { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /v1/calls: ${res.status}`);
    // A standard key's window is 100 requests a second: the clock moves on as a test would.
    if (i % 100 === 99) await sandbox!.advance('1s');
  };
  for (let i = 0; i < 200 + WARM; i++) await read(i);
  const before = heapAfterGc();
  for (let i = 0; i < READS - WARM; i++) await read(i);
  const grown = heapAfterGc() - before;
  expect(grown, `heap grew by ${(grown / 1e6).toFixed(2)} MB`).toBeLessThan(BOUND);
  // The journal still lists its window, and the snapshot still stands for every read.
  expect(sandbox.requests.list()).toHaveLength(JOURNAL ?? 10_000);
}, 300_000);

const WRITES = soakSize(3_000, 30_000);

it(`a server session's ${WRITES.toLocaleString('en-US')} stored calls cost the server what they hold (about 1.5 KB each, 3 KB before), whatever their keys`, async () => {
  // A small journal, so its window is full (the light run's calls are fewer than the default window).
  server = await startServer({ port: 0, maxJournalEntries: 100 });
  const body = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
  const post = async (i: number) => {
    // A key of 200 characters (the longest a key may be), new every 50 requests (each key is an account of its own): the journal and the
    // snapshot log keep one copy of each, not one per request.
    const key = `SVC_TEST_${String(Math.floor(i / 50)).padStart(190, 'k')}`;
    const res = await fetch(`${server!.url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /v1/calls: ${res.status}`);
  };
  for (let i = 0; i < 500; i++) await post(i);
  const before = heapAfterGc();
  await Promise.all(
    Array.from({ length: 10 }, async (_, lane) => {
      for (let i = lane; i < WRITES; i += 10) await post(500 + i);
    }),
  );
  const perCall = (heapAfterGc() - before) / WRITES;
  expect(perCall, `${perCall.toFixed(0)} B per stored call`).toBeLessThan(2_000);
}, 300_000);
