// svc-sandbox show: the session at an instant (docs/debugging.md). A session of 1,000 calls
// through the API (a webhook subscription to every call, recording and transcript event, on a
// receiver in this process that answers 200; advances between the calls; every call run to its
// end), snapshotted; then, side by side:
//   - replaying the snapshot cut at the instant (createSandbox({ snapshot }) of the inputs up to
//     it, then reading the console's lists): what restoring to an instant costs without an index;
//   - the history index (src/server/history.ts): recorded once, by one replay; then the session at
//     an instant (the whole state, as the page loads it) and one step (what changed from one event
//     to the next, as the page asks when stepping), read from it; and both over HTTP from the show
//     server, as the console gets them.
// Target: the session at an instant in 300 ms or less. Run after a build:
// `node --expose-gc bench/show.mjs [calls]`, or `node --expose-gc bench/run.mjs show`.
import { createServer } from 'node:http';
import { createSandbox, openSandbox } from '../dist/sandbox.js';
import { HISTORY_KINDS, recordHistory } from '../dist/server/history.js';
import { startShow } from '../dist/server/show.js';

const ms = (n) => `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const time = (fn) => {
  const started = performance.now();
  const value = fn();
  return [performance.now() - started, value];
};

/** The 1,000-call session's snapshot, as a file holds it (JSON text). */
async function session(calls) {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const sandbox = createSandbox({ seed: 1 });
  const post = (path, body) =>
    sandbox.handle(
      new Request(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer SVC_TEST_bench', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  await post('/v1/webhooks', {
    url: `http://127.0.0.1:${receiver.address().port}/hooks`,
    events: ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'],
  });
  for (let i = 0; i < calls; i++) {
    await post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
    if (i % 10 === 9) await sandbox.advance('1s');
  }
  await sandbox.advance('10m');
  const json = JSON.stringify(sandbox.snapshot());
  const events = sandbox.events.list().length;
  const deliveries = sandbox.webhooks.deliveries().length;
  sandbox.close();
  receiver.close();
  return { json, events, deliveries };
}

export async function showBench({ quick = false, calls = 1000 } = {}) {
  const lines = [];
  const { json, events, deliveries } = await session(calls);
  const snapshot = JSON.parse(json);
  lines.push(
    `a session of ${calls} calls: ${snapshot.inputs.length} inputs, ${events} events, ${deliveries} webhook deliveries; its snapshot ${(json.length / 1024).toFixed(0)} KiB`,
  );
  const start = Date.parse(snapshot.options.startTime);
  const end = Date.parse(snapshot.now);
  const instants = [0.25, 0.5, 1].map((f) => Math.round(start + (end - start) * f));

  // Without an index: replay the snapshot cut at the instant, then read what the console shows.
  const rounds = quick ? 2 : 3;
  for (const at of instants) {
    const times = [];
    for (let round = 0; round < rounds; round++) {
      globalThis.gc?.();
      const [took] = time(() => {
        const cut = { ...JSON.parse(json), now: new Date(at).toISOString() };
        cut.inputs = cut.inputs.filter((input) => input.at <= at);
        const { sandbox, internals } = openSandbox({ snapshot: cut });
        for (const kind of HISTORY_KINDS) if (kind !== 'key') JSON.stringify(internals.view().list(kind));
        sandbox.close();
      });
      times.push(took);
    }
    lines.push(
      `replay to ${new Date(at).toISOString().slice(11, 19)} (${Math.round(((at - start) / (end - start)) * 100)} % in): best ${ms(Math.min(...times))}, median ${ms(median(times))} of ${rounds}`,
    );
  }

  // The index: recorded once, then read.
  const records = [];
  let history;
  for (let round = 0; round < rounds; round++) {
    globalThis.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const [took, recorded] = time(() => recordHistory(JSON.parse(json)));
    globalThis.gc?.();
    records.push([took, process.memoryUsage().heapUsed - heap]);
    history = recorded.history;
  }
  const [recordBest, heap] = records.sort((a, b) => a[0] - b[0])[0];
  lines.push(
    `index: JSON.parse + one replay recording every version: best ${ms(recordBest)} of ${rounds}, median ${ms(median(records.map((r) => r[0])))}; it holds ${(heap / 2 ** 20).toFixed(0)} MiB`,
  );
  const samples = quick ? 20 : 60;
  const spread = Array.from({ length: samples }, (_, i) => Math.round(start + ((end - start) * i) / (samples - 1)));
  const whole = [];
  let largest = 0;
  for (const at of spread) {
    const [took, text] = time(() => history.stateAt(at));
    whole.push(took);
    largest = Math.max(largest, text.length);
  }
  const target = p95(whole) <= 300 ? 'met' : 'MISSED';
  lines.push(
    `index: the session at an instant (the whole state), ${samples} instants: median ${ms(median(whole))}, p95 ${ms(p95(whole))}, max ${ms(Math.max(...whole))}; at most ${(largest / 2 ** 20).toFixed(1)} MiB of JSON  (target ≤ 300 ms: ${target})`,
  );
  const eventsAt = [...new Set(history.eventInstants)];
  const steps = [];
  let stepBytes = 0;
  for (let i = 1; i < eventsAt.length; i += Math.max(1, Math.floor(eventsAt.length / samples))) {
    const [took, text] = time(() => history.changesBetween(eventsAt[i - 1], eventsAt[i]));
    steps.push(took);
    stepBytes = Math.max(stepBytes, text.length);
  }
  lines.push(
    `index: one step (what changed from one event's instant to the next), ${steps.length} steps: median ${ms(median(steps))}, p95 ${ms(p95(steps))}; at most ${(stepBytes / 1024).toFixed(0)} KiB of JSON (with the newest 500 events)`,
  );

  // Over HTTP, as the console asks.
  const show = await startShow({ file: 'bench.json', snapshot: JSON.parse(json), port: 0 });
  const get = async (query) => {
    const started = performance.now();
    const res = await fetch(`${show.url}/__sandbox/show/state?${query}`);
    await res.text();
    return performance.now() - started;
  };
  const httpWhole = [];
  const httpStep = [];
  for (let i = 0; i < (quick ? 10 : 20); i++) {
    const at = spread[(i * 7) % spread.length];
    httpWhole.push(await get(`at=${new Date(at).toISOString()}`));
    const j = 1 + ((i * 13) % (eventsAt.length - 1));
    httpStep.push(await get(`at=${new Date(eventsAt[j]).toISOString()}&from=${new Date(eventsAt[j - 1]).toISOString()}`));
  }
  await show.close();
  lines.push(
    `HTTP GET /__sandbox/show/state: the whole state median ${ms(median(httpWhole))}, p95 ${ms(p95(httpWhole))}; one step (&from=) median ${ms(median(httpStep))}, p95 ${ms(p95(httpStep))}`,
  );
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = await showBench({ calls: Number(process.argv[2] ?? 1000) });
  console.log(lines.join('\n'));
}
