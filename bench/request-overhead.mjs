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
  // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
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

/** The floor doing the work the spec requires of any handler: read the JSON body, send the documented headers. */
const DOCUMENTED = {
  'x-request-id': 'req_0000000000000000',
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '99',
  'x-ratelimit-reset': '1767225601',
};
async function floorRequiredWork(n) {
  const interceptor = new BatchInterceptor({
    name: 'floor-required',
    interceptors: [new ClientRequestInterceptor(), new FetchInterceptor()],
  });
  // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
  interceptor.on('request', async ({ request, controller }) => {
    JSON.parse(await request.text());
    controller.respondWith(Response.json(CONSTANT, { status: 201, headers: new Headers(DOCUMENTED) }));
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
    return await measure(n, () =>
      sandbox.handle(new Request(URL_, { method: 'POST', headers: HEADERS, body: BODY })).then((r) => r.json()),
    );
  } finally {
    sandbox.close();
  }
}

export async function requestOverhead(n) {
  // Many short rounds, interleaved, so that machine noise hits every contender alike; each
  // keeps its best round (noise only ever slows a round down).
  const contenders = {
    floor,
    floorBody: floorReadingBody,
    floorRequired: floorRequiredWork,
    sandbox: sandboxIntercepted,
    msw,
    direct: sandboxDirect,
  };
  const best = Object.fromEntries(Object.keys(contenders).map((name) => [name, Infinity]));
  const rounds = Math.max(3, Math.round(n / 400));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders)) best[name] = Math.min(best[name], await run(400));
  }
  best.nock = await nockPeer(Math.min(n, 1000)); // once: nock.restore() cannot be undone in-process
  return [
    ratioLine('POST /v1/calls: sandbox vs bare interceptor floor', best.sandbox, best.floor, 'µs/req', 1.3),
    ratioLine('POST /v1/calls: sandbox vs floor that reads the JSON body', best.sandbox, best.floorBody, 'µs/req'),
    // The working floor: what the spec requires of any handler (the body read, the documented headers sent).
    ratioLine('POST /v1/calls: sandbox vs floor + body + headers', best.sandbox, best.floorRequired, 'µs/req', 1.25),
    ratioLine('POST /v1/calls: floor + body + headers vs floor', best.floorRequired, best.floor, 'µs/req'),
    ratioLine('POST /v1/calls: sandbox vs msw 2 constant handler', best.sandbox, best.msw, 'µs/req', 1.0),
    ratioLine('POST /v1/calls: sandbox vs nock constant', best.sandbox, best.nock, 'µs/req'),
    ratioLine('POST /v1/calls: handle() direct vs intercepted fetch', best.direct, best.sandbox, 'µs/req'),
  ];
}
