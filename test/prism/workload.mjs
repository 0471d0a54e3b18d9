/**
 * Stoplight Prism's `proxy` mode validates live traffic against the server's document
 * (docs/server.md, "The OpenAPI document"): the sandbox server runs from dist/, Prism in
 * front of it with GET /__sandbox/openapi.json, and a workload of valid requests goes through
 * Prism to every operation of the document, /v1 and the control API alike (each answer with the
 * status it should have, errors included). Prism marks each request or response that breaks the
 * document with an `sl-violations` header; the run fails on any, on an unexpected status and on
 * an operation the workload did not reach. One deliberately invalid request (a call without `to`)
 * and one answer that breaks a copy of the document must be marked, so a Prism that validated
 * nothing could not pass.
 *
 * Usage: node test/prism/workload.mjs PRISM_BIN (test/prism/run.sh installs Prism and runs this).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../dist/index.js';

const prismBin = process.argv[2];
if (!prismBin) throw new Error('usage: node test/prism/workload.mjs PRISM_BIN');

/** Operations the workload leaves out, with why. */
const NOT_REACHED = {
  streamSession: 'an endless text/event-stream: Prism waits for the whole body before it answers',
};

// A webhook receiver: /ok answers 200, /fail 500 (its deliveries become dead letters).
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 500).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hooks = `http://127.0.0.1:${receiver.address().port}`;

const sandbox = await startServer({ port: 0, seed: 18, webhookTimeout: '2s' });
const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-prism-'));
const docFile = join(dir, 'openapi.json');
const doc = await (await fetch(`${sandbox.url}/__sandbox/openapi.json`)).json();
// The document as served, plus one operation the server does not have (the response canary below).
const CANARY = '/__sandbox/prism-canary';
const canaryOperation = {
  operationId: 'prismCanary',
  security: [],
  responses: {
    404: {
      description: 'Not what the server answers (its 404 has no `canary`).',
      content: { 'application/json': { schema: { type: 'object', required: ['canary'] } } },
    },
  },
};
/**
 * Prism 5.14 validates with JSON Schema before 2020-12: it ignores `prefixItems`, so a tuple's
 * `items: false` (nothing past its positions, as the document says it for generators) would refuse
 * every item. The copy Prism reads gives such a tuple's `items` as the union of its positions,
 * which a 2020-12 validator also accepts within the tuple's `maxItems`: the same values pass.
 */
function forPrism(node) {
  if (Array.isArray(node)) return node.map(forPrism);
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, forPrism(value)]));
  if (Array.isArray(out.prefixItems) && out.items === false) out.items = { anyOf: out.prefixItems };
  return out;
}
writeFileSync(docFile, JSON.stringify(forPrism({ ...doc, paths: { ...doc.paths, [CANARY]: { get: canaryOperation } } })));

const prism = await startPrism();
const started = performance.now();
/** One line per request: `METHOD path status` and the violations Prism marked. */
const log = [];
const reached = new Set();
const problems = [];
let violations = 0;

const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    template,
    operationId: op.operationId,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  })),
);

/**
 * Sends one request through Prism and checks its answer: the status expected, and no violation.
 * `invalid` marks the canary, whose violations are expected.
 */
async function send(method, path, { body, key, status, invalid = false } = {}) {
  const headers = {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const res = await fetch(prism.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const marked = JSON.parse(res.headers.get('sl-violations') ?? '[]');
  const bare = path.split('?')[0];
  const op = operations.find((o) => o.method === method && o.pattern.test(bare));
  if (!invalid) {
    if (!op) problems.push(`${method} ${path}: no operation of the document matches`);
    reached.add(op?.operationId);
    violations += marked.length;
    for (const v of marked) problems.push(`${method} ${path} → ${res.status}: ${v.severity} at ${v.location.join('.')}: ${v.message}`);
  }
  if (status !== undefined && res.status !== status)
    problems.push(`${method} ${path}: answered ${res.status}, expected ${status}: ${text.slice(0, 300)}`);
  log.push(`${method} ${path} → ${res.status}${marked.length ? ` (${marked.length} marked)` : ''}`);
  const json = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
  return { status: res.status, body: json, marked };
}

try {
  await workload();
} finally {
  prism.stop();
  await sandbox.close();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const missed = operations.filter((o) => !reached.has(o.operationId) && !(o.operationId in NOT_REACHED));
for (const o of missed) problems.push(`${o.method} ${o.operationId}: not reached by the workload`);
const v1 = operations.filter((o) => o.template.startsWith('/v1/'));
const control = operations.filter((o) => !v1.includes(o));
const count = (list) => `${list.filter((o) => reached.has(o.operationId)).length}/${list.length}`;
console.log(
  `Prism ${prism.version} proxy: ${log.length} requests in ${seconds} s; operations reached: /v1 ${count(v1)}, control API ${count(control)}${
    Object.keys(NOT_REACHED).length
      ? ` (not ${Object.entries(NOT_REACHED)
          .map(([id, why]) => `${id}: ${why}`)
          .join('; ')})`
      : ''
  }`,
);
console.log(`violations in valid traffic: ${violations}`);
if (process.env.PRISM_VERBOSE) console.log(log.join('\n'));
if (problems.length) {
  console.error(problems.map((p) => `!! ${p}`).join('\n'));
  process.exit(1);
}

async function workload() {
  // The canaries: Prism must mark a request body the document refuses (the server refuses it
  // too) and an answer that breaks the document (CANARY's), or it validates nothing.
  const request = await send('POST', '/v1/calls', { key: 'SVC_TEST_canary', body: { from: '+14155550100' }, invalid: true });
  const response = await send('GET', CANARY, { invalid: true });
  const marked = (answer, where) => answer.marked.filter((v) => v.location[0] === where).length;
  console.log(
    `canaries: a call without \`to\` got ${marked(request, 'request')} request violation(s) marked, an answer without \`canary\` ${marked(response, 'response')} response violation(s)`,
  );
  if (!marked(request, 'request')) problems.push('Prism marked no request violation on a call without `to`: is it validating requests?');
  if (!marked(response, 'response'))
    problems.push('Prism marked no response violation on an answer the document refuses: is it validating answers?');

  // The control API: a session and its keys.
  await send('GET', '/__sandbox/health', { status: 200 });
  const session = (await send('POST', '/__sandbox/sessions', { body: { seed: 7 }, status: 201 })).body;
  const c = `/__sandbox/sessions/${session.id}`;
  const key = session.apiKey;
  await send('GET', '/__sandbox/sessions?limit=10', { status: 200 });
  await send('GET', c, { status: 200 });
  const extra = (await send('POST', `${c}/keys`, { body: { plan: 'enterprise' }, status: 201 })).body;
  await send('GET', `${c}/keys`, { status: 200 });
  await send('DELETE', `${c}/keys/${extra.key}`, { status: 204 });
  await send('PUT', `${c}/recording-timing`, { body: { recordingDelay: '5s', transcriptDelay: '10s' }, status: 204 });

  // /v1: numbers, webhooks, calls, messages, recordings, transcripts.
  await send('GET', '/v1/numbers?kind=local&area_code=415&limit=5', { key, status: 200 });
  const number = (await send('POST', '/v1/numbers', { key, body: { kind: 'local', area_code: '415' }, status: 201 })).body;
  await send('PUT', `/v1/numbers/${number.id}`, {
    key,
    body: { routing: { type: 'agent', target: 'maria' }, sms: { enabled: true } },
    status: 200,
  });
  await send('GET', '/v1/numbers?provisioned=true&created_after=2025-12-31', { key, status: 200 });
  const spare = (await send('POST', '/v1/numbers', { key, body: { kind: 'toll_free' }, status: 201 })).body;
  await send('DELETE', `/v1/numbers/${spare.id}`, { key, status: 204 });
  const hook = (
    await send('POST', '/v1/webhooks', {
      key,
      body: {
        url: `${hooks}/ok`,
        events: ['call.started', 'call.answered', 'call.completed', 'message.delivered', 'recording.ready', 'transcript.ready'],
      },
      status: 201,
    })
  ).body;
  const failing = (await send('POST', '/v1/webhooks', { key, body: { url: `${hooks}/fail`, events: ['call.started'] }, status: 201 })).body;
  await send('GET', '/v1/webhooks', { key, status: 200 });

  const call = (await send('POST', '/v1/calls', { key, body: { to: '+14155550123', from: number.number }, status: 201 })).body;
  await send('POST', '/v1/calls', { key, body: { to: '+14155550124', from: number.number, ai_receptionist: true }, status: 201 });
  const campaign = (
    await send('POST', '/v1/calls', { key, body: { campaign: { to: ['+14155550125', '+14155550126'], from: number.number } }, status: 201 })
  ).body;
  await send('POST', '/v1/calls', { key, body: { to: '+15005550001', from: number.number }, status: 422 });
  // A script is set while the call rings.
  await send('PUT', `${c}/calls/${call.id}/script`, {
    body: {
      lines: [
        { speaker: 'maria', text: 'Hello, how can I help?' },
        { speaker: 'caller', text: 'I would like an appointment.' },
      ],
    },
    status: 204,
  });
  await send('GET', `/v1/calls/${call.id}`, { key, status: 200 });
  await send('GET', `/v1/calls/${campaign.id}`, { key, status: 200 });
  await send('GET', '/v1/calls/call_0000000000000000', { key, status: 404 });
  const page = (await send('GET', '/v1/calls?limit=1', { key, status: 200 })).body;
  await send('GET', `/v1/calls?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`, { key, status: 200 });
  await send('GET', '/v1/calls?status=ringing&direction=outbound&created_after=2026-01-01&created_before=2026-01-02T00:00:00Z', {
    key,
    status: 200,
  });
  await send('GET', `/v1/calls?campaign_id=${campaign.id}`, { key, status: 200 });

  await send('POST', `${c}/advance`, { body: { duration: '6s' }, status: 200 });
  await send('POST', `/v1/calls/${call.id}/transfer`, { key, body: { agent: 'maria' }, status: 200 });
  await send('POST', `/v1/calls/${call.id}/transfer`, { key, body: { extension: '204' }, status: 200 });
  await send('PUT', `${c}/calls/${call.id}/recording-timing`, { body: { recordingDelay: '2s' }, status: 204 });
  await send('GET', `${c}/transcript-streams`, { status: 200 });
  await send('POST', `${c}/calls/${call.id}/hang-up`, { status: 200 });
  await send('POST', `${c}/advance`, { body: { until: 'transcript.ready', max: '1h' }, status: 200 });

  const message = (
    await send('POST', '/v1/messages', {
      key,
      body: { from: number.number, to: '+14155550123', body: 'Your appointment is at 10:00.' },
      status: 201,
    })
  ).body;
  await send('POST', '/v1/messages', {
    key,
    body: { from: number.number, to: '+14155550123', template: { id: 'verification_code', variables: { code: '123456' } } },
    status: 201,
  });
  await send('POST', '/v1/messages', {
    key,
    body: { from: number.number, to: '+14155550123', media_urls: ['https://example.com/a.png'] },
    status: 201,
  });
  await send('GET', '/v1/messages?limit=2&direction=outbound', { key, status: 200 });
  await send('POST', `${c}/advance`, { body: { duration: '1m' }, status: 200 });

  const recordings = (await send('GET', '/v1/recordings?limit=5', { key, status: 200 })).body;
  const recording = recordings.data[0];
  await send('GET', `/v1/recordings/${recording.id}`, { key, status: 200 });
  await send('GET', `/v1/recordings/${recording.id}/audio`, { key, status: 200 });
  await send('GET', `/v1/transcripts/${recording.transcript_id}`, { key, status: 200 });

  // The control API's scripting and inspection.
  const inbound = (await send('POST', `${c}/calls/inbound`, { body: { from: '+14155550199', to: number.number }, status: 201 })).body;
  await send('POST', `${c}/calls/${inbound.id}/answer`, { body: { by: 'human' }, status: 200 });
  await send('GET', `${c}/calls/${inbound.id}`, { status: 200 });
  const received = (
    await send('POST', `${c}/messages/inbound`, { body: { from: '+14155550199', to: number.number, body: 'Thanks!' }, status: 201 })
  ).body;
  await send('GET', `${c}/messages/${received.id}`, { status: 200 });
  await send('GET', `${c}/messages/${message.id}`, { status: 200 });
  await send('GET', `${c}/recordings/${recording.id}`, { status: 200 });
  await send('GET', `${c}/transcripts/${recording.transcript_id}`, { status: 200 });
  await send('GET', `${c}/calls?limit=5`, { status: 200 });

  await send('PUT', `${c}/network/+14155550150`, { body: { outcome: 'busy' }, status: 204 });
  await send('POST', `${c}/network/+14155550150/queue`, {
    body: { behaviors: [{ outcome: 'no_answer' }, { outcome: 'answered', talk: '30s' }] },
    status: 204,
  });
  await send('PUT', `${c}/network/+14155550150/messages`, { body: { outcome: 'failed' }, status: 204 });
  await send('POST', `${c}/network/+14155550150/messages/queue`, { body: { behaviors: [{ outcome: 'delivered' }] }, status: 204 });
  await send('POST', '/v1/calls', { key, body: { to: '+14155550150', from: number.number }, status: 201 });
  await send('DELETE', `${c}/network/+14155550150`, { status: 204 });
  await send('DELETE', `${c}/network`, { status: 204 });

  await send('POST', `${c}/faults`, { body: { method: 'GET', path: '/v1/webhooks', status: 503, retryAfter: 2, times: 1 }, status: 201 });
  await send('GET', `${c}/faults`, { status: 200 });
  await send('GET', '/v1/webhooks', { key, status: 503 });
  await send('DELETE', `${c}/faults`, { status: 204 });

  // Deliveries: the failing subscription's call.started events become dead letters after a day.
  await send('POST', `${c}/advance`, { body: { duration: '25h' }, status: 200 });
  await send('GET', `${c}/events?limit=5`, { status: 200 });
  await send('GET', `${c}/deliveries?limit=5`, { status: 200 });
  await send('GET', `${c}/attempts`, { status: 200 });
  await send('GET', `${c}/requests?limit=5`, { status: 200 });
  await send('GET', `${c}/internal-errors`, { status: 200 });
  const dead = (await send('GET', `${c}/dead-letters`, { status: 200 })).body;
  if (dead.data.length < 2) problems.push(`expected dead letters of the failing subscription, got ${dead.data.length}`);
  await send('POST', `${c}/dead-letters/${dead.data[0]?.id}/replay`, { status: 200 });
  await send('POST', `${c}/dead-letters/replay`, { status: 200 });

  // The console's lists across accounts, and a recording's audio.
  for (const list of ['calls', 'messages', 'numbers', 'recordings', 'transcripts', 'subscriptions', 'deliveries'])
    await send('GET', `${c}/console/${list}?limit=5`, { status: 200 });
  await send('GET', `${c}/console/recordings/${recording.id}/audio`, { status: 200 });
  // Triggers, a scenario, coverage, snapshots and a fork.
  await send('POST', `${c}/trigger`, { body: { type: 'call.completed', data: { disposition: 'busy' } }, status: 201 });
  await send('POST', `${c}/scenario`, {
    body: {
      name: 'One call',
      steps: [
        { at: '0s', request: { method: 'POST', path: '/v1/calls', body: { to: '+14155550123', from: '+14155550100' }, as: 'call' } },
        { at: '2m', expect: { resources: [{ path: '/v1/calls/{{call.id}}', fields: { status: 'completed', duration: 60 } }] } },
      ],
    },
    status: 200,
  });
  await send('GET', `${c}/coverage`, { status: 200 });
  await send('GET', '/__sandbox/coverage', { status: 200 });
  await send('GET', `${c}/snapshot`, { status: 200 });
  const fork = (await send('POST', '/__sandbox/sessions', { body: { from: session.id }, status: 201 })).body;
  await send('DELETE', `/__sandbox/sessions/${fork.id}`, { status: 204 });

  await send('DELETE', `/v1/webhooks/${failing.id}`, { key, status: 204 });
  await send('DELETE', `/v1/webhooks/${hook.id}`, { key, status: 204 });
  await send('DELETE', `/v1/numbers/${number.id}`, { key, status: 204 });

  await send('GET', '/__sandbox/console', { status: 200 });
  await send('GET', '/__sandbox/openapi.json', { status: 200 });
  await send('GET', '/__sandbox/openapi-3.0.json', { status: 200 });
  await send('POST', `${c}/reset`, { status: 204 });
  await send('DELETE', c, { status: 204 });
}

/** Prism 5 `proxy` on a free port, resolved once it says it listens. */
async function startPrism() {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const child = spawn(
    process.execPath,
    [prismBin, 'proxy', docFile, sandbox.url, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const version = execFileSync(process.execPath, [prismBin, '--version'], { encoding: 'utf8' }).trim();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 60 s:\n${output}`)), 60_000);
    const read = (chunk) => {
      output += chunk;
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`Prism exited (${code}) before listening:\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, version, stop: () => child.kill('SIGTERM') };
}
