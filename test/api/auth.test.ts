import type { Sandbox } from '../../src/index.js';
import { describe, expect, it, test } from '../fixture.js';
import { client } from '../helpers.js';

const raw = (s: Sandbox, headers: Record<string, string>) =>
  fetch(`${s.baseUrl}/v1/calls`, { headers }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));

describe('authentication', () => {
  it.for<[string, Record<string, string>, string, RegExp]>([
    ['no Authorization header', {}, 'invalid_api_key', /No API key/],
    ['another scheme', { authorization: 'Basic U1ZDX1RFU1RfYTo=' }, 'invalid_api_key', /Bearer/],
    ['Bearer with nothing after it', { authorization: 'Bearer ' }, 'invalid_api_key', /Bearer/],
    ['a key without the test prefix', { authorization: 'Bearer sk_test_123' }, 'invalid_api_key', /SVC_TEST_/],
    ['a test prefix with no suffix', { authorization: 'Bearer SVC_TEST_' }, 'invalid_api_key', /SVC_TEST_/],
    ['a suffix with forbidden characters', { authorization: 'Bearer SVC_TEST_a.b' }, 'invalid_api_key', /letters, digits/],
    ['a production key', { authorization: 'Bearer SVC_LIVE_abc' }, 'live_key_not_allowed', /production key/],
  ])('%s is 401 %s', async ([, headers, code, message], { sandbox }) => {
    const res = await raw(sandbox, headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toMatch(message);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it('accepts the scheme in any case and keys with _ and -', async ({ sandbox }) => {
    expect((await raw(sandbox, { authorization: 'bearer SVC_TEST_a-b_C9' })).status).toBe(200);
    expect((await raw(sandbox, { authorization: 'BEARER SVC_TEST_x' })).status).toBe(200);
  });

  describe('with onlyConfiguredKeys', () => {
    test.override({ sandboxOptions: { keys: { SVC_TEST_known: {} }, onlyConfiguredKeys: true } });

    it('an unconfigured test key is 401', async ({ sandbox }) => {
      expect((await raw(sandbox, { authorization: 'Bearer SVC_TEST_known' })).status).toBe(200);
      const res = await raw(sandbox, { authorization: 'Bearer SVC_TEST_stranger' });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringMatching(/configured/) });
    });
  });
});

describe('accounts', () => {
  it('each distinct key is its own account: another account’s call is 404, never 403', async ({ sandbox }) => {
    const call = (await client(sandbox, 'SVC_TEST_a').placeCall()).body;
    const res = await client(sandbox, 'SVC_TEST_b').get(`/v1/calls/${call.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  describe('with two keys mapped to one account', () => {
    test.override({ sandboxOptions: { keys: { SVC_TEST_a: { account: 'acme' }, SVC_TEST_b: { account: 'acme' } } } });

    it('the keys share its calls', async ({ sandbox }) => {
      const call = (await client(sandbox, 'SVC_TEST_a').placeCall()).body;
      expect((await client(sandbox, 'SVC_TEST_b').get(`/v1/calls/${call.id}`)).status).toBe(200);
      expect((await client(sandbox, 'SVC_TEST_b').get('/v1/calls')).body.data).toHaveLength(1);
    });
  });
});

describe('scopes', () => {
  describe('a key with calls:read', () => {
    test.override({ sandboxOptions: { keys: { SVC_TEST_reader: { scopes: ['calls:read'] } } } });

    it('can list but not place calls (403 forbidden)', async ({ sandbox }) => {
      const reader = client(sandbox, 'SVC_TEST_reader');
      expect((await reader.get('/v1/calls')).status).toBe(200);
      const res = await reader.placeCall();
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/calls:write/) });
      expect((await reader.get('/v1/webhooks')).status).toBe(403);
      expect((await reader.get('/v1/calls')).body.data).toEqual([]);
    });
  });

  describe('keys with calls:* and *', () => {
    test.override({ sandboxOptions: { keys: { SVC_TEST_c: { scopes: ['calls:*'] }, SVC_TEST_all: { scopes: ['*'] } } } });

    it('are granted everything on calls', async ({ sandbox }) => {
      expect((await client(sandbox, 'SVC_TEST_c').placeCall()).status).toBe(201);
      expect((await client(sandbox, 'SVC_TEST_all').placeCall()).status).toBe(201);
    });
  });
});
