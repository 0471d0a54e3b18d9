// Server: POST /v1/calls and GET /v1/calls/{id} over loopback HTTP, measured with autocannon,
// against Stoplight Prism mocking the sandbox's own OpenAPI document (issue 12 item 7).
//
// Both servers run in a child process of their own, so that neither shares a core with
// autocannon, which runs here: on this 2-core machine, autocannon has one core and the server
// under test the other. Prism is not a dependency: it is installed on demand, the first time,
// into a cache folder outside the package (PRISM_DIR).
// Run alone, after `npm run build`: node --expose-gc bench/server.mjs [--quick]
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PRISM_VERSION = '5.14.2'; // the newest that runs on Node 20 (engines >=18.20.1); 5.15 needs Node 24
const PRISM_DIR = process.env.PRISM_DIR ?? fileURLToPath(new URL('../node_modules/.cache/svc-sandbox-bench/prism', import.meta.url));
const CONNECTIONS = 10;
const BODY = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
/**
 * Requests per key. The server allows 100 requests per key per second of VIRTUAL time, and
 * the virtual clock does not move during the bench, so a key is good for 100 requests in all:
 * every request takes the next key after 50 (each distinct SVC_TEST_ key is an account of its own).
 */
const PER_KEY = 50;
/**
 * Prism's --verboseLevel. `silent` is its fastest: at `error` it still logs every violation it
 * finds in its own generated answer (dozens of lines a request), at its default `info` more.
 */
const PRISM_LOG = process.env.PRISM_LOG ?? 'silent';
const TARGET = 2; // the issue's: at least 2× Prism's throughput, keeping full state

/** The sandbox server in a child process: startServer({ port: 0 }) from the built package. */
const SANDBOX_CHILD = `
import { startServer } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
const server = await startServer({ port: 0 });
process.stdout.write(server.url + '\\n');
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
process.stdin.resume();
`;

/** Children still running: killed if this process exits without closing them (an exception, Ctrl-C). */
const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function startSandbox() {
  const child = track(spawn(process.execPath, ['--input-type=module', '-e', SANDBOX_CHILD], { stdio: ['pipe', 'pipe', 'pipe'] }));
  const output = tail(child);
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')).trim());
    });
    child.once('exit', (code) => reject(new Error(`the sandbox server exited (${code}) before listening: ${output()}`)));
  });
  return {
    url,
    close: () => stop(child, () => child.stdin.end()),
  };
}

/** The last few KB a child wrote, for error messages; it also keeps the child's pipes drained. */
function tail(child) {
  let text = '';
  const keep = (chunk) => {
    text = (text + chunk).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const last = () => text.trim().split('\n').slice(-5).join(' | ');
  last.all = () => text;
  return last;
}

/** Ends a child (gently, then SIGKILL after 5 s) and resolves when it is gone. */
function stop(child, gently = () => child.kill('SIGTERM')) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    gently();
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a command; resolves with its exit code and the lines of its output that say why it failed. */
function run(command, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const keep = (chunk) => {
      text = (text + chunk).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const output = () => {
      const lines = text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      const why = lines.filter((line) => /^npm error (code|[A-Za-z]*Error)\b/.test(line) && !/^npm error +at /.test(line));
      return (why.length ? why : lines.slice(-3)).join(' | ');
    };
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: error.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output: signal ? `killed by ${signal} after ${timeoutMs / 1000} s` : output() });
    });
  });
}

/** A path relative to the working folder when inside it. */
const shown = (p) => (path.relative(process.cwd(), p).startsWith('..') ? p : path.relative(process.cwd(), p));

/** Prism's CLI, installed into PRISM_DIR the first time: { cli, note } or { reason }. */
async function ensurePrism() {
  const pkgFile = path.join(PRISM_DIR, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
  const installed = () => {
    try {
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
      return pkg.version === PRISM_VERSION ? path.join(path.dirname(pkgFile), typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.prism) : null;
    } catch {
      return null;
    }
  };
  let cli = installed();
  if (cli) return { cli, note: `Prism ${PRISM_VERSION} from ${shown(PRISM_DIR)}` };
  const started = performance.now();
  // npm's own CLI when run from `npm run bench`, else npm from PATH.
  const [command, ...pre] = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const args = [
    ...pre,
    'install',
    '--prefix',
    PRISM_DIR,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
    '--loglevel=error',
    '--fetch-retries=1',
    `@stoplight/prism-cli@${PRISM_VERSION}`,
  ];
  console.error(`(installing @stoplight/prism-cli@${PRISM_VERSION} into ${PRISM_DIR}: first run only)`);
  const { code, output } = await run(command, args, 300_000);
  cli = installed();
  if (!cli)
    return {
      reason: `npm install @stoplight/prism-cli@${PRISM_VERSION} --prefix ${PRISM_DIR} failed (exit ${code}): ${output || 'no output'}`,
    };
  return {
    cli,
    note: `Prism ${PRISM_VERSION}, installed now into ${shown(PRISM_DIR)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  };
}

/** Prism mocking the document `writeDoc(url)` writes, on a free loopback port; ready when it answers a request. */
async function startPrism(cli, writeDoc) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const docFile = await writeDoc(url);
  const child = track(
    spawn(process.execPath, [cli, 'mock', '-p', String(port), '-h', '127.0.0.1', '--verboseLevel', PRISM_LOG, docFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const lastWords = tail(child);
  // A failed start prints the error object, with its message on a line of its own.
  const output = () => /message: '([^']*)'/.exec(lastWords.all())?.[1] ?? lastWords();
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`Prism exited (${child.exitCode ?? child.signalCode}) before answering: ${output()}`);
    if (performance.now() > deadline) {
      await stop(child);
      throw new Error(`Prism did not answer on ${url} within 60 s: ${output()}`);
    }
    try {
      await fetch(`${url}/v1/calls/call_ready`, { headers: { authorization: 'Bearer SVC_TEST_ready' } });
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, close: () => stop(child) };
}

/** The sandbox's OpenAPI document, /v1 paths only, served at `url`: written to a temp file. */
async function prismDocument(sandboxUrl, prismUrl, dir) {
  const doc = await (await fetch(`${sandboxUrl}/__sandbox/openapi.json`)).json();
  doc.paths = Object.fromEntries(Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/')));
  doc.servers = [{ url: prismUrl }];
  const file = path.join(dir, 'sandbox.openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const auth = (key) => `Bearer ${key}`;

/** One call per key, each created with its own key: [{ key, id }]. */
async function createCalls(url, from, count) {
  const pairs = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const key = `SVC_TEST_bench_get_${from + i}`;
      const res = await fetch(`${url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: auth(key), 'content-type': 'application/json' },
        body: BODY,
      });
      const body = await res.json();
      if (res.status !== 201) throw new Error(`creating the calls to GET: POST /v1/calls answered ${res.status} ${JSON.stringify(body)}`);
      pairs[i] = { key, id: body.id };
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return pairs;
}

/** One request of each kind, to say what a server really answers (status, body size, body). */
async function probe(url, getPath) {
  const answer = async (method, p, key) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: auth(key), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: BODY } : {}),
    });
    const text = await res.text();
    return { status: res.status, bytes: Buffer.byteLength(text), text, violations: res.headers.get('sl-violations') };
  };
  return { post: await answer('POST', '/v1/calls', 'SVC_TEST_bench_probe'), get: await answer('GET', getPath.path, getPath.key) };
}

/** One autocannon run; p99 from every response's exact time (autocannon's histogram keeps whole ms). */
async function cannon(url, requests, duration) {
  const times = [];
  const instance = autocannon({ url, connections: CONNECTIONS, duration, requests });
  instance.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  const result = await instance;
  times.sort((a, b) => a - b);
  return {
    rps: result.requests.total / result.duration,
    p99: times.length ? times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)] : NaN,
    total: result.requests.total,
    bad: result.non2xx + result.errors + result.timeouts + result.mismatches,
    errors: result.errors + result.timeouts,
    codes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, Number(count)])),
  };
}

function postRequests(counter, prefix) {
  return [
    {
      method: 'POST',
      path: '/v1/calls',
      headers: { 'content-type': 'application/json' },
      body: BODY,
      setupRequest(req) {
        req.headers.authorization = auth(`SVC_TEST_${prefix}_${Math.floor(counter.n++ / PER_KEY)}`);
        return req;
      },
    },
  ];
}

function getRequests(counter, pairs) {
  return [
    {
      method: 'GET',
      path: '/v1/calls/x',
      setupRequest(req) {
        const { key, id } = pairs[Math.floor(counter.n++ / PER_KEY) % pairs.length];
        req.path = `/v1/calls/${id}`;
        req.headers.authorization = auth(key);
        return req;
      },
    },
  ];
}

/** A line in ratioLine's format (bench/measure.mjs) for a figure where higher is better. */
function throughputLine(label, a, b, unit, target) {
  const ratio = a / b;
  const verdict = target === undefined ? '' : ratio >= target ? `  (target ≥ ${target}×: met)` : `  (target ≥ ${target}×: MISSED)`;
  return `${label.padEnd(58)} ${ratio.toFixed(2)}×   ${fmt(a)} vs ${fmt(b)} ${unit}${verdict}`;
}

/** ratioLine's format, for latencies (lower is better: under 1× the sandbox is faster). */
function latencyLine(label, a, b, unit) {
  return `${label.padEnd(58)} ${(a / b).toFixed(2)}×   ${fmt(a)} vs ${fmt(b)} ${unit}`;
}

const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

const codesText = (codes) =>
  Object.entries(codes)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');

/** What a contender answered over all its runs: one quiet line when all were 2xx, a loud one if not. */
function answersLine(label, tally) {
  if (tally.bad === 0) return `${label}: all ${tally.total.toLocaleString('en-US')} answers 2xx (${codesText(tally.codes)})`;
  return `!! ${label}: ${tally.bad.toLocaleString('en-US')} of ${tally.total.toLocaleString('en-US')} answers were NOT 2xx or failed (${codesText(tally.codes)}${tally.errors ? `, connection errors/timeouts: ${tally.errors}` : ''}): these figures are not valid`;
}

/** What a probe answer says about the response: its status and what the body is. */
function probeText({ status, bytes, text, violations }) {
  const body = bytes === 0 ? 'an empty body' : `${bytes} bytes: ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`;
  return `${status}, ${body}${violations ? `; Prism's sl-violations header: ${violations.length > 300 ? `${violations.slice(0, 297)}...` : violations}` : ''}`;
}

export async function serverBench({ quick = false } = {}) {
  const duration = quick ? 1 : 3;
  const rounds = quick ? 2 : 3;
  const warmup = quick ? 0.5 : 1;
  const lines = [];
  const sandbox = await startSandbox();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-sandbox-bench-'));
  let prism = null;
  try {
    // Prism: installed on demand; the section still measures the sandbox if it cannot run.
    const found = await ensurePrism();
    let prismNote = found.reason ? `Prism was NOT measured: ${found.reason}` : found.note;
    if (found.cli) {
      try {
        prism = await startPrism(found.cli, (prismUrl) => prismDocument(sandbox.url, prismUrl, tmp));
      } catch (error) {
        prismNote = `Prism was NOT measured: ${error.message}`;
      }
    }

    const contenders = { sandbox, ...(prism ? { prism } : {}) };
    let pairs = await createCalls(sandbox.url, 0, 2000);
    const probes = Object.fromEntries(
      await Promise.all(
        Object.entries(contenders).map(async ([name, c]) => [
          name,
          await probe(c.url, { path: `/v1/calls/${pairs[0].id}`, key: pairs[0].key }),
        ]),
      ),
    );

    const endpoints = {
      post: { label: 'POST /v1/calls', expected: 201 },
      get: { label: 'GET /v1/calls/{id}', expected: 200 },
    };
    const counters = {};
    const best = {};
    const tally = {};
    for (const e of Object.keys(endpoints)) {
      for (const name of Object.keys(contenders)) {
        counters[`${e}.${name}`] = { n: 0 };
        best[`${e}.${name}`] = { rps: 0, p99: Infinity };
        tally[`${e}.${name}`] = { total: 0, bad: 0, errors: 0, codes: {} };
      }
    }
    let fastest = 5000; // req/s, to size the GET calls before each sandbox round
    const once = async (e, name, seconds, record) => {
      const counter = counters[`${e}.${name}`];
      if (e === 'get' && name === 'sandbox') {
        // Enough calls (one per key) that no key passes PER_KEY requests this round.
        const needed = Math.ceil((counter.n + 2 * fastest * seconds) / PER_KEY);
        if (needed > pairs.length) pairs = [...pairs, ...(await createCalls(sandbox.url, pairs.length, needed - pairs.length))];
      }
      const requests = e === 'post' ? postRequests(counter, `bench_${name}_post`) : getRequests(counter, pairs);
      const r = await cannon(contenders[name].url, requests, seconds);
      const t = tally[`${e}.${name}`];
      t.total += r.total;
      t.bad += r.bad;
      t.errors += r.errors;
      for (const [code, count] of Object.entries(r.codes)) t.codes[code] = (t.codes[code] ?? 0) + count;
      if (name === 'sandbox') fastest = Math.max(fastest, r.rps);
      if (record) {
        const b = best[`${e}.${name}`];
        b.rps = Math.max(b.rps, r.rps);
        b.p99 = Math.min(b.p99, r.p99);
      }
    };
    // A warm-up run each, then interleaved rounds; each keeps its best (noise only slows a round down).
    for (const e of Object.keys(endpoints)) for (const name of Object.keys(contenders)) await once(e, name, warmup, false);
    for (let round = 0; round < rounds; round++) {
      for (const e of Object.keys(endpoints)) for (const name of Object.keys(contenders)) await once(e, name, duration, true);
    }

    lines.push(
      `${CONNECTIONS} connections, ${rounds} interleaved rounds of ${duration} s each (best kept), each server in a process of its own`,
    );
    lines.push(prism ? prismNote : `!! ${prismNote}`);
    for (const [e, { label, expected }] of Object.entries(endpoints)) {
      const s = best[`${e}.sandbox`];
      if (prism) {
        const p = best[`${e}.prism`];
        const prismAnswer = probes.prism[e];
        // The target is judged only when both answered as they should, every time.
        const faults = [];
        if (prismAnswer.status !== expected) faults.push(`Prism answered ${prismAnswer.status}, not ${expected}`);
        else if (tally[`${e}.prism`].bad) faults.push('Prism had non-2xx answers or errors');
        if (tally[`${e}.sandbox`].bad) faults.push('the sandbox had non-2xx answers or errors');
        const caveat = faults.length
          ? `  (${faults.join('; ')}: NOT comparable, target not judged)`
          : prismAnswer.bytes === 0
            ? "  (Prism's answers have an empty body: the document gives this response no schema or example)"
            : prismAnswer.violations
              ? "  (Prism's answers break the document's schema: its sl-violations below)"
              : '';
        lines.push(throughputLine(`server ${label}: sandbox vs Prism`, s.rps, p.rps, 'req/s', faults.length ? undefined : TARGET) + caveat);
        lines.push(latencyLine(`server ${label} p99 latency: sandbox vs Prism`, s.p99, p.p99, 'ms'));
      } else {
        lines.push(
          `server ${label}: sandbox ${fmt(s.rps)} req/s, p99 ${fmt(s.p99)} ms  (Prism not measured: target ≥ ${TARGET}× Prism not judged)`,
        );
      }
    }
    for (const e of Object.keys(endpoints)) {
      for (const name of Object.keys(contenders)) lines.push(answersLine(`${name} ${endpoints[e].label}`, tally[`${e}.${name}`]));
    }
    const stored = (tally['post.sandbox'].codes['201'] ?? 0) + pairs.length + 1;
    const accounts = Math.ceil(counters['post.sandbox'].n / PER_KEY) + pairs.length + 1;
    lines.push(
      `the sandbox kept full state: ${stored.toLocaleString('en-US')} calls stored during the section, in about ${accounts.toLocaleString('en-US')} accounts (a key per ${PER_KEY} requests)`,
    );
    for (const [name, answers] of Object.entries(probes)) {
      lines.push(`${name} answers POST /v1/calls ${probeText(answers.post)}`);
      lines.push(`${name} answers GET /v1/calls/{id} ${probeText(answers.get)}`);
    }
  } finally {
    await Promise.all([sandbox.close(), prism?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await serverBench({ quick: process.argv.includes('--quick') })).join('\n'));
}
