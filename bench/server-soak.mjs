// Server soak: sustained POST /v1/calls to one server session over loopback, as a long test run
// drives a server (issue 22 item 6 of the hardening round). The server runs in a child process of
// its own (its RSS is its own); autocannon drives it from here, 10 connections, in back-to-back
// windows of 10 s (one autocannon run each, the server never restarted), every 50 requests with a
// new key (each distinct SVC_TEST_ key is an account of its own, as bench/server.mjs). Each window
// reports its requests per second, its p50 and p99 latency, and the server's RSS and heap after it;
// the target is the last window's p50 within 1.5× the first's. Then the server's RSS and heap per
// 100,000 stored calls, against the heap a stored call takes in-process (bench/scale.mjs).
//
// Run alone, after `npm run build`: node bench/server-soak.mjs [--seconds 60] [--dist <folder>]
// (or node bench/run.mjs server-soak). Loopback only; it ends the server it started.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WINDOW_S = 10;
const CONNECTIONS = 10;
const PER_KEY = 50;
const TARGET = 1.5;
const BODY = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
const DEFAULT_DIST = fileURLToPath(new URL('../dist', import.meta.url));

/** The server's child: startServer on a free port; on a line `m` on stdin it prints its memory (after a full GC). */
const child = (dist) => `
import { startServer } from ${JSON.stringify(pathToFileURL(path.join(dist, 'index.js')).href)};
const server = await startServer({ port: 0 });
process.stdout.write(JSON.stringify({ url: server.url }) + '\\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line) => {
  if (!line.startsWith('m')) return;
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(JSON.stringify({ rss, heapUsed, calls: server.sandbox.calls.list().length }) + '\\n');
});
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
`;

function startChild(dist) {
  const proc = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', child(dist)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  const waiting = [];
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      waiting.shift()?.(JSON.parse(line));
    }
  });
  const next = () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server child did not answer within 60 s')), 60_000);
      waiting.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  return {
    ready: next(),
    memory: () => {
      const answer = next();
      proc.stdin.write('m\n');
      return answer;
    },
    close: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        proc.stdin.end();
      }),
  };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (value) => `${value.toFixed(2)} ms`;
const line = (label, value) => `${label.padEnd(58)} ${value}`;

export async function serverSoak({ seconds = 60, dist = DEFAULT_DIST } = {}) {
  const server = startChild(path.resolve(dist));
  try {
    const { url } = await server.ready;
    const start = await server.memory();
    let sent = 0;
    const windows = [];
    for (let elapsed = 0; elapsed < seconds; elapsed += WINDOW_S) {
      // Each answer's latency as autocannon measures it (in ms, with a fraction: its own percentiles are whole ms).
      const times = [];
      const result = await autocannon({
        url: `${url}/v1/calls`,
        connections: CONNECTIONS,
        duration: WINDOW_S,
        setupClient: (client) => client.on('response', (_status, _bytes, ms) => times.push(ms)),
        requests: [
          {
            method: 'POST',
            body: BODY,
            setupRequest: (request) => ({
              ...request,
              headers: { 'content-type': 'application/json', authorization: `Bearer SVC_TEST_soak${Math.floor(sent++ / PER_KEY)}` },
            }),
          },
        ],
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`window ${windows.length + 1}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      times.sort((a, b) => a - b);
      windows.push({
        rps: result.requests.average,
        p50: times[Math.floor(times.length * 0.5)],
        p99: times[Math.floor(times.length * 0.99)],
        memory: await server.memory(),
      });
    }
    const first = windows[0];
    const last = windows.at(-1);
    const stored = last.memory.calls - start.calls;
    const ratio = last.p50 / first.p50;
    return [
      `POST /v1/calls to one server session, ${CONNECTIONS} connections, ${seconds} s in windows of ${WINDOW_S} s (a key per ${PER_KEY} requests); server RSS ${mb(start.rss)}, heap ${mb(start.heapUsed)} at the start`,
      ...windows.map(
        (w, i) =>
          `  ${String((i + 1) * WINDOW_S).padStart(3)} s: ${w.rps.toFixed(0).padStart(6)} req/s, p50 ${ms(w.p50)}, p99 ${ms(w.p99)}; ${w.memory.calls} calls stored, RSS ${mb(w.memory.rss)}, heap ${mb(w.memory.heapUsed)}`,
      ),
      line(
        `p50 of the last ${WINDOW_S} s vs the first ${WINDOW_S} s`,
        `${ratio.toFixed(2)}×   ${ms(last.p50)} vs ${ms(first.p50)}  (target ≤ ${TARGET}×: ${ratio <= TARGET ? 'met' : 'MISSED'})`,
      ),
      line('server RSS per 100k stored calls', mb(((last.memory.rss - start.rss) / stored) * 100_000)),
      line('server heap per 100k stored calls', mb(((last.memory.heapUsed - start.heapUsed) / stored) * 100_000)),
    ];
  } finally {
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  console.log((await serverSoak({ seconds: Number(arg('--seconds') ?? 60), dist: arg('--dist') ?? DEFAULT_DIST })).join('\n'));
}
