// Start-up: createSandbox + listen + close against msw's setupServer().listen() + close().
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

export async function startup(n = 300) {
  const best = { sandbox: Infinity, msw: Infinity };
  // Short interleaved rounds; each contender keeps its best (see request-overhead.mjs).
  const block = 25;
  for (let round = 0; round < Math.max(3, n / block); round++) {
    best.sandbox = Math.min(
      best.sandbox,
      await measure(block, async () => {
        const sandbox = createSandbox().listen();
        sandbox.close();
      }),
    );
    best.msw = Math.min(
      best.msw,
      await measure(block, async () => {
        const server = setupServer(http.post('https://api.svc.test/v1/calls', () => HttpResponse.json({})));
        server.listen({ onUnhandledRequest: 'bypass' });
        server.close();
      }),
    );
  }
  return [ratioLine('start-up: createSandbox+listen+close vs msw setupServer', best.sandbox, best.msw, 'µs')];
}
