// Virtual time: full call lifecycles with webhooks delivered to an in-process receiver, and
// the cost of idle advances.
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

const KEY = 'SVC_TEST_vt';
const H = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const RECEIVER = 'https://hooks.bench.test/events';

export async function lifecycles(n = 10_000) {
  // The receiver lives in this process: a plain interceptor answering 204 on its origin.
  let received = 0;
  const receiver = new FetchInterceptor();
  receiver.apply();
  receiver.on('request', ({ request, controller }) => {
    if (!request.url.startsWith(RECEIVER)) return;
    received++;
    controller.respondWith(new Response(null, { status: 204 }));
  });
  const sandbox = createSandbox({ keys: { [KEY]: { plan: 'enterprise' } } }).listen();
  try {
    const api = (method, path, body) => fetch(`${sandbox.baseUrl}${path}`, { method, headers: H, body: body && JSON.stringify(body) });
    const sub = await api('POST', '/v1/webhooks', { url: RECEIVER, events: ['call.started', 'call.answered', 'call.completed'] });
    if (sub.status !== 201) throw new Error(`subscribe: ${sub.status} ${await sub.text()}`);
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const res = await api('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
      if (res.status !== 201) throw new Error(`place: ${res.status}`);
    }
    await sandbox.advance('2m');
    const ms = performance.now() - started;
    const completed = sandbox.events.list({ type: 'call.completed' }).length;
    if (completed !== n || received < 3 * n) throw new Error(`lifecycles: ${completed} completed, ${received} deliveries for ${n} calls`);
    return [
      `${n / 1000}k lifecycles (POST, ring, answer, talk, complete; 3 webhooks each): ${((ms * 1000) / n).toFixed(0)} µs wall per lifecycle, ${(ms / 1000).toFixed(1)} s in all, ${received} deliveries`,
    ];
  } finally {
    sandbox.close();
    receiver.dispose();
  }
}

export async function idleAdvance() {
  const sandbox = createSandbox();
  let long = Infinity;
  let short = Infinity;
  for (let round = 0; round < 7; round++) {
    long = Math.min(long, await measure(20_000, () => sandbox.advance('30d')));
    short = Math.min(short, await measure(20_000, () => sandbox.advance('1s')));
  }
  sandbox.close();
  return [ratioLine("advance('30d') vs advance('1s'), nothing pending", long, short, 'µs', 1.5)];
}
