// Proves the packed package works when installed: `npm pack`, install the tarball into an
// empty project, then place a call through it with plain fetch and the virtual clock.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'svc-sandbox-pack-'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

try {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const required of ['dist/index.js', 'dist/index.d.ts', 'package.json', 'README.md']) {
    if (!files.includes(required)) throw new Error(`the tarball lacks ${required}`);
  }
  if (files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.includes('.test.'))) {
    throw new Error('the tarball ships sources or tests');
  }

  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }));
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);

  writeFileSync(
    join(app, 'smoke.mjs'),
    `
import { createSandbox, SandboxError, verifyWebhook } from 'svc-sandbox';
const sandbox = createSandbox({ seed: 1 });
sandbox.listen();
const headers = { authorization: 'Bearer SVC_TEST_smoke', 'content-type': 'application/json' };
const res = await fetch(sandbox.baseUrl + '/v1/calls', { method: 'POST', headers, body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }) });
const call = await res.json();
if (res.status !== 201 || call.status !== 'ringing') throw new Error('create failed: ' + res.status + ' ' + JSON.stringify(call));
await sandbox.advance('65s');
const done = await (await fetch(sandbox.baseUrl + '/v1/calls/' + call.id, { headers })).json();
if (done.status !== 'completed' || done.duration !== 60) throw new Error('lifecycle failed: ' + JSON.stringify(done));
await sandbox.advance('30s'); // recording, then transcript and summary (fixtures/conversations)
const types = sandbox.events.list().map((e) => e.type).join(',');
if (types !== 'call.started,call.answered,call.completed,recording.ready,transcript.ready') throw new Error('events: ' + types);
const transcript = await (await fetch(sandbox.baseUrl + '/v1/transcripts/' + done.transcript_id, { headers })).json();
if (transcript.status !== 'ready' || !transcript.segments.length || !transcript.summary) throw new Error('transcript: ' + JSON.stringify(transcript));
// The number pool comes from fixtures/number-inventory.json in the installed package.
const found = await (await fetch(sandbox.baseUrl + '/v1/numbers?kind=local&limit=1', { headers })).json();
const provisioned = await fetch(sandbox.baseUrl + '/v1/numbers', { method: 'POST', headers, body: JSON.stringify({ number: found.data[0].number }) });
if (provisioned.status !== 201) throw new Error('provision: ' + provisioned.status);
// Scenario control: an injected fault, then the same request served.
sandbox.faults.inject({ method: 'GET', path: '/v1/calls/{id}', status: 503 });
const faulted = await fetch(sandbox.baseUrl + '/v1/calls/' + call.id, { headers });
if (faulted.status !== 503 || (await faulted.json()).error.code !== 'service_unavailable') throw new Error('fault: ' + faulted.status);
if ((await fetch(sandbox.baseUrl + '/v1/calls/' + call.id, { headers })).status !== 200) throw new Error('fault not used up');
sandbox.close();
if (typeof SandboxError !== 'function') throw new Error('SandboxError missing');
const secret = 'whsec_test';
const body = '{"id":"evt_1"}';
const { createHmac } = await import('node:crypto');
if (!verifyWebhook(body, createHmac('sha256', secret).update(body).digest('hex'), secret) || verifyWebhook(body, 'nope', secret)) throw new Error('verifyWebhook');
console.log('pack smoke: installed svc-sandbox placed ' + call.id + ' -> ' + done.status + ' (' + done.duration + 's), transcript ready, number provisioned, fault injected, verifyWebhook ok');
`,
  );
  process.stdout.write(execFileSync('node', ['smoke.mjs'], { cwd: app, encoding: 'utf8' }));
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules/svc-sandbox/package.json'), 'utf8'));
  const typesPath = join(app, 'node_modules/svc-sandbox', pkg.exports['.'].types);
  if (!existsSync(typesPath)) throw new Error(`exports types ${typesPath} missing`);
  console.log(`pack smoke: ${packed[0].filename}, ${files.length} files, ${(packed[0].size / 1024).toFixed(1)} kB packed; types resolve`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
