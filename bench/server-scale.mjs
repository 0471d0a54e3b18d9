// Server scale (issue 16 items 5 and 6): the cost of POST /v1/calls and of POST
// /__sandbox/sessions/default/advance {duration:'1ms'} against a real startServer on loopback,
// with 1k vs 100k events in the session's log, with 0 and 50 session streams open; and the
// server's RSS before, while and after 500 streams read a catch-up, pause, and leave.
//
// Run alone, after `npm run build`: node --expose-gc bench/server-scale.mjs [--quick] [--dist <dir>] [--requests <n>] [--skip-rss]
// (`--dist /work/main/dist` measures another build the same way: the before of a before/after).
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { ratioLine } from './measure.mjs';

const CALL = JSON.stringify({ to: '+15005550002', from: '+14155550100' }); // busy: two events a call, no recording
const STREAMS = 50;
const LEAVERS = 500;

async function load(dist) {
  return import(dist ? pathToFileURL(`${dist.replace(/\/$/, '')}/index.js`).href : new URL('../dist/index.js', import.meta.url).href);
}

/** A server whose default session holds `events` events (busy calls, placed in process, then finished). */
async function serverWith(startServer, events) {
  const server = await startServer({ port: 0 });
  const { sandbox } = server;
  for (let i = 0; i < events / 2; i++) {
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer SVC_TEST_fill${Math.floor(i / 90)}`, 'content-type': 'application/json' },
        body: CALL,
      }),
    );
    if (res.status !== 201) throw new Error(`fill: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    if (i % 20_000 === 19_999) await sandbox.advance('2s');
  }
  await sandbox.advance('2s');
  return server;
}

/** `n` session streams that read everything from now on (Last-Event-ID: the log's length), discarding it. */
async function openStreams(server, n) {
  const aborts = [];
  const length = server.sandbox.events.list().length; // set-up, not measured
  for (let i = 0; i < n; i++) {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/__sandbox/sessions/default/stream`, {
      signal: abort.signal,
      headers: { 'last-event-id': String(length) },
    });
    const reader = res.body.getReader();
    void (async () => {
      try {
        for (;;) if ((await reader.read()).done) break;
      } catch {
        // closed by the bench
      }
    })();
    aborts.push(abort);
  }
  return () => {
    for (const a of aborts) a.abort();
  };
}

/** Mean µs of `n` sequential calls of `fn` after `warm` warm-up calls. */
async function mean(n, fn, warm = 50) {
  for (let i = 0; i < warm; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - start) * 1000) / n;
}

let k = 0; // one key sequence for the whole run: no key is used twice
function requests(server) {
  return {
    // A new key every 50 requests: the virtual clock hardly moves, and a key has 100 a second.
    call: async () => {
      const res = await fetch(`${server.url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer SVC_TEST_bench${Math.floor(k++ / 50)}`, 'content-type': 'application/json' },
        body: CALL,
      });
      if (res.status !== 201) throw new Error(`POST /v1/calls: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    },
    advance: async () => {
      const res = await fetch(`${server.url}/__sandbox/sessions/default/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"duration":"1ms"}',
      });
      if (res.status !== 200) throw new Error(`advance: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    },
  };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

async function settledRss() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(300);
  }
  return process.memoryUsage().rss;
}

/**
 * RSS of this process (the server and its clients' sockets; the clients hold nothing: they
 * pause) before 500 streams open, while each has read its first chunk of a catch-up of
 * `catchUp` events and paused, and after they left.
 */
async function leavers(server, catchUp) {
  const before = await settledRss();
  const { port } = new URL(server.url);
  const length = server.sandbox.events.list().length;
  const sockets = [];
  let firstBytes = 0;
  await Promise.all(
    Array.from({ length: LEAVERS }, () => {
      const socket = connect(Number(port), '127.0.0.1');
      sockets.push(socket);
      return new Promise((resolve, reject) => {
        socket.once('data', (data) => {
          firstBytes += data.length;
          socket.pause(); // a reader that stops reading
          resolve();
        });
        socket.once('error', reject);
        socket.write(
          `GET /__sandbox/sessions/default/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nLast-Event-ID: ${length - catchUp}\r\n\r\n`,
        );
      });
    }),
  );
  await sleep(1000); // the server writes until each socket's buffers are full, then waits
  globalThis.gc?.();
  const open = process.memoryUsage().rss;
  for (const socket of sockets) socket.destroy();
  await sleep(500);
  const after = await settledRss();
  return { before, open, after, firstBytes };
}

export async function serverScale({ quick = false, dist, requests: count, skipRss = false } = {}) {
  const { startServer } = await load(dist);
  const sizes = quick ? [1_000, 20_000] : [1_000, 100_000];
  const n = count ?? (quick ? 200 : 500);
  const small = await serverWith(startServer, sizes[0]);
  const big = await serverWith(startServer, sizes[1]);
  const lines = [
    `${dist ? `dist: ${dist}; ` : ''}${n} sequential requests per figure over loopback HTTP (fetch), best of 3 interleaved rounds; busy calls fill the log`,
  ];
  const label = (k) => `${k >= 1000 ? `${k / 1000}k` : k}`;
  for (const streams of [0, STREAMS]) {
    const closeSmall = await openStreams(small, streams);
    const closeBig = await openStreams(big, streams);
    const best = { call: [Infinity, Infinity], advance: [Infinity, Infinity] };
    for (let round = 0; round < 3; round++) {
      for (const [i, server] of [small, big].entries()) {
        const r = requests(server);
        best.call[i] = Math.min(best.call[i], await mean(n, r.call));
        best.advance[i] = Math.min(best.advance[i], await mean(n, r.advance));
      }
    }
    closeSmall();
    closeBig();
    lines.push(
      ratioLine(
        `POST /v1/calls, ${streams} streams: ${label(sizes[1])} vs ${label(sizes[0])} events`,
        best.call[1],
        best.call[0],
        'µs/req',
        1.5,
      ),
    );
    lines.push(
      ratioLine(
        `POST advance 1ms, ${streams} streams: ${label(sizes[1])} vs ${label(sizes[0])} events`,
        best.advance[1],
        best.advance[0],
        'µs/req',
        1.5,
      ),
    );
  }
  await small.close();
  if (skipRss) {
    await big.close();
    return lines;
  }
  const catchUp = quick ? 2_000 : 5_000;
  const rss = await leavers(big, catchUp);
  const change = rss.after / rss.before - 1;
  lines.push(
    `RSS, ${LEAVERS} streams each ${catchUp} events behind on a ${label(sizes[1])}-event log, paused after their first chunk, then gone: before ${mb(rss.before)}, open ${mb(rss.open)}, after ${mb(rss.after)}: ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %  (target ≤ +10 %: ${change <= 0.1 ? 'met' : 'MISSED'})`,
  );
  await big.close();
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--dist');
  const n = process.argv.indexOf('--requests');
  const lines = await serverScale({
    quick: process.argv.includes('--quick'),
    dist: at === -1 ? undefined : process.argv[at + 1],
    requests: n === -1 ? undefined : Number(process.argv[n + 1]),
    skipRss: process.argv.includes('--skip-rss'),
  });
  console.log(lines.join('\n'));
}
