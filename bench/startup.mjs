// Start-up: createSandbox + listen + close against msw's setupServer().listen() + close().
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

export async function startup(n = 300) {
  let best = { sandbox: Infinity, msw: Infinity };
  for (let round = 0; round < 3; round++) {
    best.sandbox = Math.min(best.sandbox, await measure(n, async () => {
      const sandbox = createSandbox().listen();
      sandbox.close();
    }));
    best.msw = Math.min(best.msw, await measure(n, async () => {
      const server = setupServer(http.post('https://api.svc.test/v1/calls', () => HttpResponse.json({})));
      server.listen({ onUnhandledRequest: 'bypass' });
      server.close();
    }));
  }
  return [ratioLine('start-up: createSandbox+listen+close vs msw setupServer', best.sandbox, best.msw, 'µs')];
}
