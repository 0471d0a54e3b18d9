import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/core/body.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/index.js';
import { test } from '../fixture.js';
import { closeReceivers, startReceiver, type Receiver } from '../webhooks/receivers.js';
import { buildCorpus, ENDPOINTS } from './corpus.js';
import { KEY, OTHER_KEY, TRANSPORTS, type BadRequest } from './kit.js';
import { fingerprint, followUp, seed } from './state.js';
import { prepare, send, type Answer } from './transports.js';

/**
 * A generated corpus of malformed requests over every endpoint, sent through intercepted
 * `fetch`, `node:https`, axios and `sandbox.handle()` in turn. Each must get its exact 4xx
 * JSON error (code, a message naming the field, `param`) and `X-Request-Id`; the whole
 * corpus must leave the sandbox byte-identical, and a twin that never saw it must answer
 * later requests the same way. Keys are enterprise (no rate cap) and only they are accepted.
 */

const OPTIONS: SandboxOptions = {
  seed: 7,
  keys: { [KEY]: { plan: 'enterprise' }, [OTHER_KEY]: { plan: 'enterprise' } },
  onlyConfiguredKeys: true,
};
const KEYS = [KEY, OTHER_KEY];
const corpus = buildCorpus();

let sandbox: Sandbox;
let receiver: Receiver;
let ids: Record<string, string>;
let before: string;
const answered: BadRequest[] = [];

/** The last path segment of a param, as a message names it: `template.variables.name` → `name`, `events[0]` → `events`. */
const leaf = (param: string) =>
  param
    .split('.')
    .pop()!
    .replace(/\[\d+\]$/, '');

function check(request: BadRequest, res: Answer, where: string): void {
  const { expect: want } = request;
  expect(res.status, where).toBe(want.status);
  expect(res.headers['content-type'], where).toMatch(/^application\/json/);
  expect(res.headers['x-request-id'], where).toMatch(/^req_[0-9A-Za-z]{16}$/);
  let body: any;
  expect(() => (body = JSON.parse(res.text)), `${where}: body is not JSON: ${res.text.slice(0, 200)}`).not.toThrow();
  expect(body.error?.code, `${where}: ${res.text.slice(0, 300)}`).toBe(want.code);
  expect(typeof body.error.message === 'string' && body.error.message.trim().length > 0, where).toBe(true);
  if (want.param === null) expect(body.error.param, `${where}: ${body.error.message}`).toBeUndefined();
  if (typeof want.param === 'string') {
    expect(body.error.param, `${where}: ${body.error.message}`).toBe(want.param);
    expect(body.error.message, `${where}: the message names the field`).toContain(leaf(want.param));
  }
  for (const [name, value] of Object.entries(want.headers ?? {})) expect(res.headers[name], `${where}: ${name}`).toBe(value);
}

describe('bad-input corpus', () => {
  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = createSandbox(OPTIONS).listen();
    ids = await seed(sandbox, receiver.url);
    before = await fingerprint(sandbox, KEYS);
  });
  afterAll(async () => {
    sandbox.close();
    await closeReceivers();
  });

  it('holds more than 500 generated requests over all 17 endpoints, through every transport', () => {
    expect(corpus.length).toBeGreaterThan(500);
    for (const { method, path } of ENDPOINTS) {
      const base = path.replace(/<<\w+>>/g, '{id}');
      const hits = corpus.filter((r) => r.method === method && r.path.split('?')[0]!.replace(/<<\w+>>/g, '{id}') === base);
      expect(hits.length, `${method} ${path}`).toBeGreaterThanOrEqual(19);
    }
    expect(new Set(corpus.map((r, i) => (r.via ?? TRANSPORTS)[i % (r.via ?? TRANSPORTS).length])).size).toBe(4);
  });

  for (const [i, request] of corpus.entries()) {
    const transports = request.via ?? TRANSPORTS;
    const via = transports[i % transports.length]!;
    it(`${request.name} (${via})`, async () => {
      const res = await send(sandbox, via, prepare(request, sandbox.baseUrl, ids));
      check(request, res, `${request.name} via ${via}`);
      expect(sandbox.internalErrors()).toEqual([]);
      answered.push(request);
    });
  }

  it('leaves the sandbox byte-identical: lists, items, audio, events, deliveries, clock; no internal error', async () => {
    expect(answered.length).toBe(corpus.length);
    const after = await fingerprint(sandbox, KEYS);
    expect(JSON.parse(after)).toEqual(JSON.parse(before));
    expect(after).toBe(before);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('draws no id and takes no position: later requests are answered as by a twin that never saw the corpus', async () => {
    const twin = createSandbox(OPTIONS);
    try {
      expect(await seed(twin, receiver.url)).toEqual(ids);
      const expected = await followUp(twin, receiver.url);
      expect(await followUp(sandbox, receiver.url)).toBe(expected);
    } finally {
      twin.close();
    }
  });
});

describe('the body size limit: exactly MAX_BODY_BYTES is read, one byte more is 413', () => {
  let limited: Sandbox;
  beforeAll(() => {
    limited = createSandbox(OPTIONS).listen();
  });
  afterAll(() => limited.close());

  it('is 1 MiB, and docs/errors.md says so', () => {
    expect(MAX_BODY_BYTES).toBe(1024 * 1024);
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    expect(doc).toMatch(/413 \| `payload_too_large` \| a body over \*\*1 MiB \(1,048,576 bytes\)\*\*/);
  });

  it.each(['fetch', 'http', 'axios'] as const)(
    'a subscription padded to exactly 1 MiB is created; one byte more is 413 and creates nothing (%s)',
    async (via) => {
      const json = JSON.stringify({ url: 'https://example.com/hooks', events: ['call.started'] });
      const padded = (bytes: number) => json + ' '.repeat(bytes - json.length);
      const post = (body: string) =>
        send(limited, via, {
          method: 'POST',
          url: `${limited.baseUrl}/v1/webhooks`,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body,
        });
      const list = async () => {
        const res = await limited.handle(new Request(`${limited.baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${KEY}` } }));
        return (await res.json()).data as unknown[];
      };
      const count = (await list()).length;

      const over = await post(padded(MAX_BODY_BYTES + 1));
      expect(over.status).toBe(413);
      expect(JSON.parse(over.text).error).toEqual({
        code: 'payload_too_large',
        // Read as a stream, the count stops at the limit (a body is never read past it); a declared Content-Length is reported as sent.
        message: expect.stringMatching(
          new RegExp(
            `^The request body is (${MAX_BODY_BYTES + 1}|more than ${MAX_BODY_BYTES}) bytes; the limit is ${MAX_BODY_BYTES} bytes \\(1 MiB\\)\\.$`,
          ),
        ),
      });
      expect(await list()).toHaveLength(count);

      const exact = await post(padded(MAX_BODY_BYTES));
      expect(exact.status, exact.text.slice(0, 200)).toBe(201);
      expect(await list()).toHaveLength(count + 1);
    },
  );
});

describe('regressions the corpus found', () => {
  test.override({ sandboxOptions: OPTIONS }); // api: client(sandbox) is KEY's

  test('Regression: an impossible date (created_after=2026-02-30) was read as the day it rolls over to (2026-03-02) instead of 400', async ({
    api,
  }) => {
    await api.placeCall({ from: '+14155550100' });
    for (const date of ['2026-02-30', '2026-02-29', '2026-04-31', '2100-02-29', '2026-06-31T00:00:00Z']) {
      for (const param of ['created_after', 'created_before']) {
        const res = await api.get(`/v1/calls?${param}=${date}`);
        expect(res.status, `${param}=${date}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
        expect(res.body.error.message).toContain(date);
      }
    }
    // Real dates, leap days included, still filter.
    for (const date of ['2024-02-29', '2000-02-29', '2026-12-31', '2026-01-31T23:59:59Z']) {
      expect((await api.get(`/v1/calls?created_before=${date}`)).status, date).toBe(200);
    }
    expect((await api.get('/v1/calls?created_before=2026-01-01T00:00:01Z')).body.data).toHaveLength(1);
    expect((await api.get('/v1/calls?created_after=2024-02-29')).body.data).toHaveLength(1);
  });

  test('Regression: a webhook url with a NUL or another control character was stored as given (201)', async ({ api }) => {
    for (const url of [
      'https://example.com/hooks\u0000',
      '\u0001https://example.com/hooks',
      'https://example.com/ho\u007fks',
      'https://example.com/\u001bhooks',
    ]) {
      const res = await api.post('/v1/webhooks', { url, events: ['call.started'] });
      expect(res.status, JSON.stringify(url)).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'invalid_parameter',
        param: 'url',
        message: expect.stringMatching(/control characters/),
      });
    }
    expect((await api.get('/v1/webhooks')).body.data).toEqual([]);
    expect((await api.post('/v1/webhooks', { url: 'https://example.com/hooks', events: ['call.started'] })).status).toBe(201);
  });

  test('Regression: a media URL with a NUL or another control character was accepted and kept on the message (201)', async ({
    sandbox,
    api,
  }) => {
    const number = (await api.post('/v1/numbers', { kind: 'local', country: 'US' })).body.number as string;
    for (const url of ['https://example.com/a.jpg\u0000', '\u0001https://example.com/a.jpg', 'https://example.com/\u007fa.jpg']) {
      const res = await api.post('/v1/messages', { from: number, to: '+14155550123', media_urls: [url] });
      expect(res.status, JSON.stringify(url)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'media_urls[0]' });
    }
    expect((await api.get('/v1/messages')).body.data).toEqual([]);
    expect(sandbox.events.list({ apiKey: KEY }).filter((e) => e.type.startsWith('message.'))).toEqual([]);
    expect((await api.post('/v1/messages', { from: number, to: '+14155550123', media_urls: ['https://example.com/a.jpg'] })).status).toBe(
      201,
    );
  });
});
