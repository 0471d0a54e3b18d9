// Reads while the clock stands still (docs/snapshots.md, "Cost"): 50,000 GETs with a manual
// clock never advanced, in four floods (distinct missing calls with one key, distinct keys,
// distinct SVC_LIVE_ keys, distinct made-up paths); for each, the heap the sandbox grew by (after
// a full collection; run with --expose-gc, as npm run bench does) and the size of its snapshot.
// The target: bounded by the sandbox's state (its journal), not by the reads.
// `node --expose-gc bench/still-reads.mjs [--quick]`, after a build.
import { createSandbox } from '../dist/sandbox.js';

const FLOODS = {
  'distinct missing calls, one key': (i) => [`/v1/calls/call_missing${i}`, 'SVC_TEST_reader'],
  'distinct keys': (i) => ['/v1/calls', `SVC_TEST_k${i}`],
  'distinct SVC_LIVE_ keys (401)': (i) => ['/v1/calls', `SVC_LIVE_k${i}`],
  'distinct made-up paths (404)': (i) => [`/v1/nothing${i}`, 'SVC_TEST_reader'],
};

const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};

export async function stillReads({ quick = false } = {}) {
  const reads = quick ? 10_000 : 50_000;
  const lines = [`${reads.toLocaleString('en')} GETs each, the clock never moved (journal: the last 10,000)`];
  for (const [name, request] of Object.entries(FLOODS)) {
    const sandbox = createSandbox({ seed: 1 });
    const get = (path, key) => sandbox.handle(new Request(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }));
    await get('/v1/calls', 'SVC_TEST_reader');
    const before = heap();
    for (let i = 0; i < reads; i++) await get(...request(i));
    const grown = (heap() - before) / 1e6;
    const snapshot = JSON.stringify(sandbox.snapshot()).length / 1e6;
    sandbox.close();
    lines.push(`${name}: heap +${grown.toFixed(1)} MB, snapshot ${snapshot.toFixed(1)} MB`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log((await stillReads({ quick: process.argv.includes('--quick') })).join('\n'));
