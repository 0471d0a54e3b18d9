// Snapshot and restore cost (docs/snapshots.md): a session of 1,000 calls placed through the
// API (with a webhook subscription, advances between them, every call run to its end), then
// snapshot(), its JSON size, and createSandbox({ snapshot }) (the replay), against the time
// the original took to make. Run after a build: `node bench/snapshot-restore.mjs [calls]`.
import { createSandbox } from '../dist/index.js';

const calls = Number(process.argv[2] ?? 1000);
const key = 'SVC_TEST_bench';
const post = (sandbox, path, body) =>
  sandbox.handle(
    new Request(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );

const original = createSandbox({ seed: 1 });
let started = performance.now();
for (let i = 0; i < calls; i++) {
  await post(original, '/v1/calls', { to: '+14155550123', from: '+14155550100' });
  if (i % 10 === 9) await original.advance('1s');
}
await original.advance('10m');
const made = performance.now() - started;

started = performance.now();
const snapshot = original.snapshot();
const took = performance.now() - started;
const json = JSON.stringify(snapshot);

const restores = [];
for (let round = 0; round < 5; round++) {
  started = performance.now();
  const copy = createSandbox({ snapshot: JSON.parse(json) });
  restores.push(performance.now() - started);
  if (round === 0 && JSON.stringify(copy.events.list()) !== JSON.stringify(original.events.list()))
    throw new Error('the restored events differ');
  copy.close();
}
const best = Math.min(...restores);
const ms = (n) => `${n.toFixed(1)} ms`;
console.log(`${calls} calls, ${snapshot.inputs.length} inputs, ${original.events.list().length} events`);
console.log(`original: ${ms(made)} to make; snapshot(): ${ms(took)}; JSON: ${(json.length / 1024).toFixed(0)} KiB`);
console.log(`restore (JSON.parse + createSandbox({ snapshot })): best ${ms(best)}, median ${ms(restores.sort((a, b) => a - b)[2])} of 5`);
original.close();
