// Scale: the cost of one list page and one GET by id as the store grows, and memory per item.
import { setTimeout as sleep } from 'node:timers/promises';
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

const KEY = 'SVC_TEST_scale';
const H = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/**
 * Places calls up to `n` through handle() (the same pipeline, without interception), in one
 * account, to the busy magic number so each is a finished call of two events (an answered
 * one would also hold a recording and a transcript). Keeps the ids at the positions `wanted`
 * asks for.
 */
async function fill(sandbox, n, from, wanted, ids) {
  for (let i = from; i < n; i++) {
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers: H, body: '{"to":"+15005550002","from":"+14155550100"}' }),
    );
    if (res.status !== 201) throw new Error(`fill: ${res.status} ${await res.text()}`);
    if (wanted.has(i)) ids.set(i, (await res.json()).id);
    else await res.arrayBuffer();
    if (i % 50_000 === 49_999) await sandbox.advance('2s');
  }
  await sandbox.advance('2s');
}

const SAMPLE = 1000;
/** The store positions of SAMPLE ids spread evenly over the first `size` calls. */
const spread = (size) => Array.from({ length: SAMPLE }, (_, j) => Math.floor((j * size) / SAMPLE));

/**
 * Starts a measure from a collected heap, so that no size pays for garbage of the fill; then
 * waits for the collector's background sweeping to finish. Without the wait, sweeping a heap of
 * a million calls (over a second of work after a forced full collection) runs on the second
 * core during the measure, and the 1 M figure measured the forced collection, not the store.
 */
async function collected() {
  globalThis.gc?.();
  await sleep(2000);
}

async function costAt(sandbox, ids) {
  const get = (path) => sandbox.handle(new Request(`${sandbox.baseUrl}${path}`, { headers: H })).then((r) => r.json());
  const firstPage = await get('/v1/calls?limit=50');
  const cursor = encodeURIComponent(firstPage.next_cursor);
  let k = 0;
  // Best of three rounds each, as elsewhere: a noisy neighbour slows a round, never speeds one.
  let page = Infinity;
  let one = Infinity;
  for (let round = 0; round < 3; round++) {
    await collected();
    page = Math.min(page, await measure(2000, () => get(`/v1/calls?limit=50&cursor=${cursor}`)));
    await collected();
    one = Math.min(one, await measure(5000, () => get(`/v1/calls/${ids[(k = (k + 7919) % ids.length)]}`)));
  }
  return { page, one };
}

export async function scale(sizes = [1_000, 100_000, 1_000_000]) {
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  const results = [];
  // Every size is measured on the same number of distinct ids, spread over the whole store,
  // so that no size gets the cache advantage of repeating a few ids.
  const wanted = new Set(sizes.flatMap(spread));
  const ids = new Map();
  let filled = 0;
  const started = performance.now();
  for (const size of sizes) {
    await fill(sandbox, size, filled, wanted, ids);
    filled = size;
    results.push({
      size,
      ...(await costAt(
        sandbox,
        spread(size).map((i) => ids.get(i)),
      )),
    });
  }
  sandbox.close();
  const first = results[0];
  const last = results[results.length - 1];
  const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  return {
    fillSeconds: (performance.now() - started) / 1000,
    lines: [
      ...results
        .slice(1)
        .map((r) =>
          ratioLine(
            `list page (limit 50): ${label(r.size)} vs ${label(first.size)} stored calls`,
            r.page,
            first.page,
            'µs',
            r === last ? 1.5 : undefined,
          ),
        ),
      ...results
        .slice(1)
        .map((r) =>
          ratioLine(
            `GET /v1/calls/{id}: ${label(r.size)} vs ${label(first.size)} stored calls`,
            r.one,
            first.one,
            'µs',
            r === last ? 1.5 : undefined,
          ),
        ),
    ],
  };
}

const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} KB`;

/**
 * Heap bytes per stored call and per stored message: the record with its indexes and the
 * events it has emitted so far; then the same after the whole lifecycle (events, recording,
 * transcript and summary of an answered call; message.delivered of a message).
 */
export async function memoryPerItem(n = 100_000) {
  if (typeof globalThis.gc !== 'function') return ['memory: run with node --expose-gc (npm run bench does)'];
  return [...(await callMemory(n)), ...(await messageMemory(n)), await readMemory(n)];
}

/**
 * Heap growth over `n` GET /v1/calls with one standard key, the clock moved 1 s every 100 as a
 * test would: reads store nothing, so what grows is the journal (bounded by maxJournalEntries)
 * and the snapshot log (reads a window has passed fold into a count).
 */
async function readMemory(n) {
  const sandbox = createSandbox();
  const read = async (i) => {
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls?limit=1`, { headers: { authorization: 'Bearer SVC_TEST_reader' } }),
    );
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`memory: GET ${res.status}`);
    if (i % 100 === 99) await sandbox.advance('1s');
  };
  for (let i = 0; i < 200; i++) await read(i);
  const base = heap();
  for (let i = 0; i < n; i++) await read(i);
  const grown = heap() - base;
  sandbox.close();
  const limit = 5 * 2 ** 20;
  return `heap growth over ${n.toLocaleString('en-US')} GET /v1/calls with one key  ${(grown / 2 ** 20).toFixed(2)} MB  (target ≤ 5 MB: ${grown <= limit ? 'met' : 'MISSED'})`;
}

async function callMemory(n) {
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  const base = heap();
  for (let i = 0; i < n; i++) {
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers: H, body: '{"to":"+14155550123","from":"+14155550100"}' }),
    );
    if (res.status !== 201) throw new Error(`memory: ${res.status}`);
  }
  const placed = (heap() - base) / n;
  await sandbox.advance('2m');
  const done = (heap() - base) / n;
  sandbox.close();
  return [
    `memory per stored call (record, indexes, its call.started event)  ${kb(placed)}  (target ≤ 2 KB: ${placed <= 2048 ? 'met' : 'MISSED'})`,
    `memory per answered call after its lifecycle (+ 4 events, recording, transcript, summary)  ${kb(done)}`,
  ];
}

async function messageMemory(n) {
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  const send = (path, body) => sandbox.handle(new Request(`${sandbox.baseUrl}${path}`, { method: 'POST', headers: H, body }));
  const number = (await (await send('/v1/numbers', '{"kind":"local","country":"US"}')).json()).number;
  const body = JSON.stringify({ from: number, to: '+14155550123', body: 'Your appointment is confirmed for Tuesday at 10:00.' });
  const base = heap();
  for (let i = 0; i < n; i++) {
    const res = await send('/v1/messages', body);
    if (res.status !== 201) throw new Error(`memory: message ${res.status} ${await res.text()}`);
  }
  const queued = (heap() - base) / n;
  await sandbox.advance('5s');
  const delivered = (heap() - base) / n;
  sandbox.close();
  return [
    `memory per stored message, queued (record, indexes, its two pending timers)  ${kb(queued)}`,
    `memory per stored message, delivered (+ message.delivered event)  ${kb(delivered)}  (target ≤ 2 KB: ${delivered <= 2048 ? 'met' : 'MISSED'})`,
  ];
}
