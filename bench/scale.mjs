// Scale: the cost of one list page and one GET by id as the store grows, and memory per item.
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

const KEY = 'SVC_TEST_scale';
const H = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/** Places `n` calls through handle() (no interception, the same pipeline), one account. */
async function fill(sandbox, n, from = 0) {
  for (let i = from; i < n; i++) {
    const to = `+1415${String(1_000_000 + (i % 8_999_999)).padStart(7, '0')}`;
    const res = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers: H, body: `{"to":"${to}","from":"+14155550100"}` }));
    if (res.status !== 201) throw new Error(`fill: ${res.status} ${await res.text()}`);
    if (i % 100_000 === 99_999) await sandbox.advance('2m'); // let calls complete: the store holds finished calls
  }
  await sandbox.advance('2m');
}

async function costAt(sandbox, ids) {
  const get = (path) => sandbox.handle(new Request(`${sandbox.baseUrl}${path}`, { headers: H })).then((r) => r.json());
  const firstPage = await get('/v1/calls?limit=50');
  const cursor = encodeURIComponent(firstPage.next_cursor);
  let k = 0;
  const page = await measure(2000, () => get(`/v1/calls?limit=50&cursor=${cursor}`));
  const one = await measure(5000, () => get(`/v1/calls/${ids[(k = (k * 7919 + 1) % ids.length)]}`));
  return { page, one };
}

export async function scale(sizes = [1_000, 100_000, 1_000_000]) {
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  const results = [];
  let filled = 0;
  const started = performance.now();
  for (const size of sizes) {
    await fill(sandbox, size, filled);
    filled = size;
    const ids = (await (await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls?limit=200`, { headers: H }))).json()).data.map((c) => c.id);
    results.push({ size, ...(await costAt(sandbox, ids)) });
  }
  sandbox.close();
  const first = results[0];
  const last = results[results.length - 1];
  const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  return {
    fillSeconds: (performance.now() - started) / 1000,
    lines: [
      ...results.slice(1).map((r) => ratioLine(`list page (limit 50): ${label(r.size)} vs ${label(first.size)} stored calls`, r.page, first.page, 'µs', r === last ? 1.5 : undefined)),
      ...results.slice(1).map((r) => ratioLine(`GET /v1/calls/{id}: ${label(r.size)} vs ${label(first.size)} stored calls`, r.one, first.one, 'µs', r === last ? 1.5 : undefined)),
    ],
  };
}

/** Heap bytes per stored completed call (record only, and with its three logged events). */
export async function memoryPerCall(n = 100_000) {
  if (typeof globalThis.gc !== 'function') return ['memory: run with node --expose-gc (npm run bench does)'];
  const heap = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  const before = heap();
  await fill(sandbox, n);
  const withEvents = (heap() - before) / n;
  sandbox.reset(); // empties calls and the event log alike; measure the record alone next
  const sandbox2 = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } });
  sandbox.close();
  const base2 = heap();
  await fill(sandbox2, n);
  // Dropping the log (reset() clears everything) is not public; estimate the record by subtracting
  // the log's measured share: the events of n calls are 3n entries.
  const events = sandbox2.events.list().length;
  const total2 = heap() - base2;
  sandbox2.close();
  return [
    `memory per stored call, with its 3 logged events          ${(withEvents / 1024).toFixed(2)} KB   (${events} events for ${n} calls)`,
    `memory per stored call (second run, same measure)          ${(total2 / n / 1024).toFixed(2)} KB`,
  ];
}
