// Request overhead: POST /v1/calls through intercepted fetch, against peers answering a constant.
import { BatchInterceptor } from '@mswjs/interceptors';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import nock from 'nock';
import { createSandbox } from '../dist/index.js';
import { measure, ratioLine } from './measure.mjs';

const URL_ = 'https://api.svc.test/v1/calls';
const BODY = JSON.stringify({ to: '+14155550123', from: '+14155550100' });
const HEADERS = { authorization: 'Bearer SVC_TEST_bench', 'content-type': 'application/json' };
const CONSTANT = { id: 'call_0000000000000000', status: 'ringing', ai_handler: 'none' };
const post = () => fetch(URL_, { method: 'POST', headers: HEADERS, body: BODY }).then((r) => r.json());

async function floor(n) {
  const interceptor = new BatchInterceptor({ name: 'floor', interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()] });
  interceptor.on('request', ({ controller }) => controller.respondWith(Response.json(CONSTANT, { status: 201 })));
  interceptor.apply();
  try {
    return await measure(n, post);
  } finally {
    interceptor.dispose();
  }
}

/** The floor plus what any real handler must do: read and parse the JSON body. */
async function floorReadingBody(n) {
  const interceptor = new BatchInterceptor({ name: 'floor-body', interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()] });
  interceptor.on('request', async ({ request, controller }) => {
    JSON.parse(await request.text());
    controller.respondWith(Response.json(CONSTANT, { status: 201 }));
  });
  interceptor.apply();
  try {
    return await measure(n, post);
  } finally {
    interceptor.dispose();
  }
}

async function msw(n) {
  const server = setupServer(http.post(URL_, () => HttpResponse.json(CONSTANT, { status: 201 })));
  server.listen({ onUnhandledRequest: 'bypass' });
  try {
    return await measure(n, post);
  } finally {
    server.close();
  }
}

async function nockPeer(n) {
  nock.disableNetConnect();
  const scope = nock('https://api.svc.test').persist().post('/v1/calls').reply(201, CONSTANT);
  try {
    return await measure(n, post);
  } finally {
    scope.persist(false);
    nock.cleanAll();
    nock.restore();
    nock.enableNetConnect();
  }
}

async function sandboxIntercepted(n) {
  const sandbox = createSandbox({ keys: { SVC_TEST_bench: { plan: 'enterprise' } } }).listen();
  try {
    return await measure(n, post);
  } finally {
    sandbox.close();
  }
}

async function sandboxDirect(n) {
  const sandbox = createSandbox({ keys: { SVC_TEST_bench: { plan: 'enterprise' } } });
  try {
    return await measure(n, () => sandbox.handle(new Request(URL_, { method: 'POST', headers: HEADERS, body: BODY })).then((r) => r.json()));
  } finally {
    sandbox.close();
  }
}

export async function requestOverhead(n) {
  // Interleave rounds so that machine noise hits every contender alike; keep each one's best round.
  const best = { floor: Infinity, floorBody: Infinity, msw: Infinity, nock: Infinity, sandbox: Infinity, direct: Infinity };
  for (let round = 0; round < 3; round++) {
    best.floor = Math.min(best.floor, await floor(n));
    best.floorBody = Math.min(best.floorBody, await floorReadingBody(n));
    best.sandbox = Math.min(best.sandbox, await sandboxIntercepted(n));
    best.msw = Math.min(best.msw, await msw(n));
    best.direct = Math.min(best.direct, await sandboxDirect(n));
    if (round === 0) best.nock = Math.min(best.nock, await nockPeer(n)); // nock.restore() cannot be undone in-process
  }
  return [
    ratioLine('POST /v1/calls: sandbox vs bare interceptor floor', best.sandbox, best.floor, 'µs/req', 1.3),
    ratioLine('POST /v1/calls: sandbox vs floor that reads the JSON body', best.sandbox, best.floorBody, 'µs/req'),
    ratioLine('POST /v1/calls: sandbox vs msw 2 constant handler', best.sandbox, best.msw, 'µs/req', 1.0),
    ratioLine('POST /v1/calls: sandbox vs nock constant', best.sandbox, best.nock, 'µs/req'),
    ratioLine('POST /v1/calls: handle() direct vs intercepted fetch', best.direct, best.sandbox, 'µs/req'),
  ];
}
