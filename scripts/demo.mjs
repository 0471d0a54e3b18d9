// The main job of the README: a scripted scenario that prints a readable timeline.
// Run it with `npm run demo`: it uses the built package as a user would, and builds it first
// (`npm run build`) only when dist/ is missing or older than its sources (scripts/ensure-built.mjs).
import { ensureBuilt } from './ensure-built.mjs';

ensureBuilt('demo');

const { createSandbox } = await import('../dist/index.js');

const KEY = 'SVC_TEST_demo';
const sandbox = createSandbox({ seed: 7 });
sandbox.listen();

const started = sandbox.now().getTime();
const at = () => `+${String((sandbox.now().getTime() - started) / 1000).padStart(5)}s`;
sandbox.events.subscribe((event) => {
  const { id, status, disposition, duration, answered_by } = event.data;
  const extra =
    event.type === 'call.completed'
      ? ` disposition=${disposition} duration=${duration}s`
      : event.type === 'call.answered'
        ? ` by=${answered_by}`
        : '';
  console.log(`${at()}  ${event.type.padEnd(16)} ${id} ${status}${extra}`);
});

const api = async (method, path, body) => {
  const res = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

console.log(
  'svc-sandbox demo: two calls (one answered by the AI receptionist and transferred to an agent, one busy), a refused request, and the recording and transcript, on a virtual clock (real fetch, intercepted)\n',
);
const a = await api('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100', ai_receptionist: true });
console.log(`${at()}  POST /v1/calls -> ${a.status} ${a.body.id} status=${a.body.status} ai_handler=${a.body.ai_handler}`);
const b = await api('POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' });
console.log(`${at()}  POST /v1/calls -> ${b.status} ${b.body.id} (a magic busy number)`);
const bad = await api('POST', '/v1/calls', { to: '4155550123', from: '+14155550100' });
console.log(`${at()}  POST /v1/calls -> ${bad.status} ${bad.body.error.code}: ${bad.body.error.message}`);

await sandbox.advance('10s');
const t = await api('POST', `/v1/calls/${a.body.id}/transfer`, { agent: 'maria' });
console.log(`${at()}  POST /v1/calls/${a.body.id}/transfer -> ${t.status} agent=${t.body.agent}`);
await sandbox.advance('2m');

const list = await api('GET', '/v1/calls?limit=10');
console.log(`\nGET /v1/calls -> ${list.status}, ${list.body.data.length} calls:`);
for (const c of list.body.data) console.log(`  ${c.id}  ${c.to}  ${c.status}/${c.disposition}  ${c.duration}s  agent=${c.agent}`);
console.log(`\nvirtual time elapsed: ${(sandbox.now().getTime() - started) / 1000}s`);
sandbox.close();
