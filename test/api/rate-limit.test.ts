import { describe, expect, test as fixtureTest } from '../fixture.js';
import { client, type Reply } from '../helpers.js';

// The file's options: an extension of its own (a top-level override would change the shared test API for every file after this one in a worker).
const test = fixtureTest.extend({ sandboxOptions: { keys: { SVC_TEST_big: { plan: 'enterprise' } } } });
const it = test;

const START_S = Date.parse('2026-01-01T00:00:00Z') / 1000;

describe('rate limits', () => {
  it('100 requests pass in one window and the 101st is 429 with Retry-After', async ({ sandbox, api }) => {
    for (let i = 1; i <= 100; i++) {
      const res = await api.get('/v1/calls');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(100 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(START_S + 1));
    }
    const limited = await api.placeCall();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-request-id')).toMatch(/^req_/);
    expect(sandbox.events.list()).toEqual([]);
  });

  it('the next window of the virtual clock starts afresh', async ({ sandbox, api }) => {
    for (let i = 0; i < 101; i++) await api.get('/v1/calls');
    await sandbox.advance('1s');
    const res = await api.get('/v1/calls');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('99');
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(START_S + 2));
  });

  it('limits each key separately', async ({ sandbox, api }) => {
    for (let i = 0; i < 100; i++) await api.get('/v1/calls');
    expect((await api.get('/v1/calls')).status).toBe(429);
    expect((await client(sandbox, 'SVC_TEST_other').get('/v1/calls')).status).toBe(200);
  });

  it('an enterprise key has no cap', async ({ sandbox }) => {
    const big = client(sandbox, 'SVC_TEST_big');
    let last: Reply | undefined;
    for (let i = 0; i < 250; i++) last = await big.get('/v1/calls');
    expect(last!.status).toBe(200);
    expect(Number(last!.headers.get('x-ratelimit-limit'))).toBeGreaterThan(100);
  });

  it('every response carries the headers, errors included', async ({ api }) => {
    for (const res of [await api.get('/v1/nothing'), await api.get('/v1/calls/call_x'), await api.post('/v1/calls', {})]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-request-id'])
        expect(res.headers.get(h)).not.toBeNull();
    }
  });

  it('tokens that are no key share one window (401 all the same); a preflight shows it without counting', async ({ sandbox, api }) => {
    const remaining = async (token: string) => (await client(sandbox, token).get('/v1/calls')).headers.get('x-ratelimit-remaining');
    expect(await remaining('junk-1')).toBe('99');
    expect(await remaining('junk-2')).toBe('98');
    expect((await client(sandbox, 'junk-3').get('/v1/calls')).status).toBe(401);
    expect(await remaining('junk-4')).toBe('96');
    expect(await remaining('SVC_TEST_fresh')).toBe('99'); // a key has its own
    const preflight = await fetch(`${sandbox.baseUrl}/v1/calls`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('x-ratelimit-limit')).toBe('100');
    expect(preflight.headers.get('x-ratelimit-remaining')).toBe('100'); // no token sent so far
    expect((await client(sandbox, null).get('/v1/calls')).headers.get('x-ratelimit-remaining')).toBe('99');
    expect((await api.get('/v1/calls')).headers.get('x-ratelimit-remaining')).toBe('99');
  });
});
