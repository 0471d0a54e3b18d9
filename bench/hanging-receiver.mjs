// A receiver that never answers: 20 calls with every event subscribed to a loopback server that
// accepts each delivery and never answers, then advance('25h') at the default 10 s webhook
// timeout, in this process. Reports the real time the advance took against the 60 s target
// (docs/webhooks.md, "A receiver that hangs"; one timeout per attempt would take about
// 10 minutes). test/webhooks/hanging-day.test.ts checks the same shape for what it does (every
// event dead-lettered after its 13 attempts, the attempts in instant order), never for how fast:
// this section is where the speed is judged.
//
// Run alone, after `npm run build`: node bench/hanging-receiver.mjs (or node bench/run.mjs hanging-receiver).
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';

/** Real seconds advance('25h') may take with a receiver that never answers. */
const TARGET_S = 60;
const EVERY_EVENT = ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'];
const KEY = 'SVC_TEST_bench';

/**
 * A loopback receiver that accepts TCP connections and never answers a byte; `mostOpen()` is the
 * most connections it held at once. test/webhooks/hanging-receiver.test.ts uses it too.
 *
 * @returns {Promise<{ url: string, close: () => Promise<void>, mostOpen: () => number }>}
 */
export async function silentReceiver() {
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  let mostOpen = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    mostOpen: () => mostOpen,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * A loopback receiver paused for `pauseMs` of real time from its first request (a breakpoint, a
 * container pause): it holds every request until then, then answers each 200.
 *
 * @param {number} pauseMs
 */
async function pausedReceiver(pauseMs) {
  const { createServer: createHttpServer } = await import('node:http');
  /** @type {import('node:http').ServerResponse[]} */
  const held = [];
  let resumeAt = Number.POSITIVE_INFINITY;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const server = createHttpServer((req, res) => {
    req.resume();
    if (resumeAt === Number.POSITIVE_INFINITY) {
      resumeAt = performance.now() + pauseMs;
      timer = setTimeout(() => {
        for (const r of held.splice(0)) if (!r.destroyed) r.writeHead(200).end('ok');
      }, pauseMs);
    }
    if (performance.now() >= resumeAt) res.writeHead(200).end('ok');
    else held.push(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * 25 calls with call.started subscribed to a receiver paused for three timeouts of real time
 * (30 s at the default), then answering: how many deliveries `advance('25h')` dead-letters
 * (target 0: the service would have lost none).
 *
 * @param {{ timeout?: string }} [options]
 */
export async function pausedReceiver25({ timeout = '10s' } = {}) {
  const { createSandbox } = await import('../dist/index.js');
  const pauseMs = 3 * Number.parseFloat(timeout) * (timeout.endsWith('ms') ? 1 : 1000);
  const receiver = await pausedReceiver(pauseMs);
  const sandbox = createSandbox({ seed: 25, webhookTimeout: timeout });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  try {
    await sandbox.fetch('/v1/webhooks', { method: 'POST', headers, body: JSON.stringify({ url: receiver.url, events: ['call.started'] }) });
    for (let i = 0; i < 25; i++) {
      const body = JSON.stringify({ to: `+141555508${String(i).padStart(2, '0')}`, from: '+14155550100' });
      await sandbox.fetch('/v1/calls', { method: 'POST', headers, body });
    }
    const started = performance.now();
    await sandbox.advance('25h');
    const seconds = (performance.now() - started) / 1000;
    const dead = sandbox.webhooks.deadLetters().length;
    return [
      `25 calls, call.started subscribed to a loopback receiver paused ${pauseMs / 1000} s of real time, then answering, webhookTimeout ${timeout}`,
      `advance('25h'): ${seconds.toFixed(1)} s of real time; ${dead} of 25 deliveries dead-lettered  (target 0: ${dead === 0 ? 'met' : 'MISSED'})`,
    ];
  } finally {
    sandbox.close();
    await receiver.close();
  }
}

/** @param {{ calls?: number, timeout?: string }} [options] */
export async function hangingReceiver20({ calls = 20, timeout = '10s' } = {}) {
  // The built library, loaded here: a test that takes silentReceiver from this file loads no dist/.
  const { createSandbox, WEBHOOK_RETRY_SCHEDULE } = await import('../dist/index.js');
  const attempts = WEBHOOK_RETRY_SCHEDULE.length;
  const receiver = await silentReceiver();
  const sandbox = createSandbox({ seed: 20, webhookTimeout: timeout }).listen();
  try {
    const post = async (path, body) => {
      const res = await fetch(`https://api.svc.test${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    };
    await post('/v1/webhooks', { url: receiver.url, events: EVERY_EVENT });
    for (let i = 0; i < calls; i++) await post('/v1/calls', { to: `+141555507${String(i).padStart(2, '0')}`, from: '+14155550100' });
    const started = performance.now();
    await sandbox.advance('25h');
    const seconds = (performance.now() - started) / 1000;
    const deliveries = sandbox.webhooks.deliveries();
    const dead = deliveries.filter((d) => d.state === 'dead' && d.attempts.length === attempts).length;
    if (dead !== deliveries.length)
      throw new Error(`${deliveries.length - dead} of ${deliveries.length} deliveries not dead after ${attempts} attempts`);
    const verdict = seconds < TARGET_S ? 'met' : 'MISSED';
    return [
      `${calls} calls, every event subscribed to a loopback receiver that never answers, webhookTimeout ${timeout}, in process`,
      `advance('25h'): ${seconds.toFixed(1)} s of real time  (target ≤ ${TARGET_S} s: ${verdict}); ` +
        `${deliveries.length} deliveries dead-lettered after ${attempts} attempts each; at most ${receiver.mostOpen()} attempts in flight at once`,
      ...(await pausedReceiver25({ timeout })),
    ];
  } finally {
    sandbox.close();
    await receiver.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--timeout');
  console.log((await hangingReceiver20(i === -1 ? {} : { timeout: process.argv[i + 1] })).join('\n'));
}
