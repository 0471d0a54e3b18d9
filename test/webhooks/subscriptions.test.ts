import { EVENT_TYPES } from '../../src/index.js';
import { describe, expect, it, test } from '../fixture.js';
import { client, KEY, OTHER_KEY, startSandbox } from '../helpers.js';

const URL_OK = 'https://example.com/webhooks';

describe('POST /v1/webhooks', () => {
  it('creates a subscription: 201 {id, url, events, secret, created_at}', async ({ api }) => {
    const res = await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started', 'call.completed'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'url', 'events', 'secret', 'created_at']);
    expect(res.body).toMatchObject({ url: URL_OK, events: ['call.started', 'call.completed'], created_at: '2026-01-01T00:00:00.000Z' });
    expect(res.body.id).toMatch(/^wh_[0-9A-Za-z]{16}$/);
    expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('shows the secret only in the create response', async ({ api }) => {
    const created = (await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    const listed = (await api.get('/v1/webhooks')).body.data;
    expect(listed).toEqual([{ id: created.id, url: URL_OK, events: ['call.started'], created_at: created.created_at }]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });

  it('gives each subscription its own secret', async ({ api }) => {
    const a = (await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    const b = (await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    expect(a.secret).not.toBe(b.secret);
    expect(a.id).not.toBe(b.id);
  });

  it('accepts all seven events, and counts a repeated name once', async ({ api }) => {
    expect((await api.post('/v1/webhooks', { url: URL_OK, events: [...EVENT_TYPES] })).body.events).toEqual([...EVENT_TYPES]);
    const res = await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started', 'call.started'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['call.started']);
  });

  it.for([
    'http://127.0.0.1:8080/hooks',
    'http://127.1.2.3/hooks',
    'http://localhost:3000/hooks',
    'http://[::1]:3000/hooks',
    'https://localhost/hooks',
    'https://hooks.example.org:8443/a/b?c=d',
  ])('accepts the receiver %s', async (url, { api }) => {
    const res = await api.post('/v1/webhooks', { url, events: ['call.started'] });
    expect(res.status).toBe(201);
    expect(res.body.url).toBe(url);
  });
});

describe('POST /v1/webhooks refuses bad input with a 4xx naming the field, and changes nothing', () => {
  const cases: Array<[string, unknown, string, string | undefined, RegExp]> = [
    ['missing url', { events: ['call.started'] }, 'missing_parameter', 'url', /`url` is required/],
    ['missing events', { url: URL_OK }, 'missing_parameter', 'events', /`events` is required/],
    ['url not a string', { url: 42, events: ['call.started'] }, 'invalid_parameter', 'url', /`url` must be a string/],
    ['url not absolute', { url: '/hooks', events: ['call.started'] }, 'invalid_parameter', 'url', /must be an absolute URL/],
    ['url empty', { url: '', events: ['call.started'] }, 'invalid_parameter', 'url', /must be an absolute URL/],
    [
      'http to a public host',
      { url: 'http://example.com/hooks', events: ['call.started'] },
      'invalid_parameter',
      'url',
      /must use https.*loopback/,
    ],
    ['http to a private address', { url: 'http://10.0.0.5/hooks', events: ['call.started'] }, 'invalid_parameter', 'url', /must use https/],
    [
      'http to a host that only looks local',
      { url: 'http://localhost.example.com/', events: ['call.started'] },
      'invalid_parameter',
      'url',
      /must use https/,
    ],
    ['another scheme', { url: 'ftp://example.com/hooks', events: ['call.started'] }, 'invalid_parameter', 'url', /scheme ftp:/],
    [
      'credentials in the url',
      { url: 'https://user:pw@example.com/hooks', events: ['call.started'] },
      'invalid_parameter',
      'url',
      /credentials/,
    ],
    [
      'the sandbox itself',
      { url: 'https://api.svc.test/hooks', events: ['call.started'] },
      'invalid_parameter',
      'url',
      /the sandbox itself/,
    ],
    [
      'the sandbox itself, other case',
      { url: 'https://API.svc.test:443/v1/x', events: ['call.started'] },
      'invalid_parameter',
      'url',
      /the sandbox itself/,
    ],
    ['whitespace in the url', { url: ' https://example.com/hooks', events: ['call.started'] }, 'invalid_parameter', 'url', /whitespace/],
    [
      'a url too long',
      { url: `https://example.com/${'a'.repeat(2048)}`, events: ['call.started'] },
      'invalid_parameter',
      'url',
      /at most 2048/,
    ],
    ['events not an array', { url: URL_OK, events: 'call.started' }, 'invalid_parameter', 'events', /must be an array/],
    ['no events', { url: URL_OK, events: [] }, 'invalid_parameter', 'events', /1 to 7 items/],
    [
      'an unknown event, with a suggestion',
      { url: URL_OK, events: ['call.start'] },
      'invalid_parameter',
      'events[0]',
      /got "call.start": did you mean "call.started"\?/,
    ],
    [
      'a misspelt later event',
      { url: URL_OK, events: ['call.started', 'mesage.received'] },
      'invalid_parameter',
      'events[1]',
      /did you mean "message.received"/,
    ],
    ['a wildcard', { url: URL_OK, events: ['*'] }, 'invalid_parameter', 'events[0]', /must be one of "call.started"/],
    ['an event that is not a string', { url: URL_OK, events: [7] }, 'invalid_parameter', 'events[0]', /must be one of/],
    [
      'an unknown field',
      { url: URL_OK, events: ['call.started'], secret: 'whsec_mine' },
      'invalid_parameter',
      'secret',
      /Unknown field `secret`/,
    ],
    ['a misspelt field', { url: URL_OK, event: ['call.started'] }, 'invalid_parameter', 'event', /did you mean `events`/],
    ['an array body', [URL_OK], 'invalid_parameter', undefined, /must be a JSON object/],
  ];

  it.for(cases)('%s', async ([, body, code, param, message], { api }) => {
    const res = await api.post('/v1/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toMatch(message);
    expect((await api.get('/v1/webhooks')).body.data).toEqual([]);
  });

  it.for<[string, string, Record<string, string>, string]>([
    ['malformed JSON', '{"url":', {}, 'invalid_json'],
    ['an empty body', '', { 'content-type': 'application/json' }, 'invalid_json'],
    ['a form body', 'url=x', { 'content-type': 'application/x-www-form-urlencoded' }, 'unsupported_content_type'],
  ])('refuses %s', async ([, body, headers, code], { api }) => {
    const res = await api.send('POST', '/v1/webhooks', body === '' ? undefined : body, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });

  it('refuses a body over 1 MiB with 413', async ({ api }) => {
    const res = await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'], pad: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
  });

  it('a refused request consumes no id or secret: the next subscription is the one a fresh sandbox would make', async ({ api }) => {
    await api.post('/v1/webhooks', { url: 'http://example.com/', events: ['call.started'] });
    await api.post('/v1/webhooks', { url: URL_OK, events: ['call.start'] });
    const after = (await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    const fresh = startSandbox({ baseUrl: 'https://fresh.svc.test' });
    try {
      const expected = (await client(fresh).post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
      expect([after.id, after.secret]).toEqual([expected.id, expected.secret]);
    } finally {
      fresh.close();
    }
  });
});

describe('GET /v1/webhooks', () => {
  it('lists the account’s subscriptions newest first, paginated with cursors', async ({ sandbox, api }) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await api.post('/v1/webhooks', { url: `${URL_OK}/${i}`, events: ['call.started'] })).body.id);
      await sandbox.advance('1s');
    }
    await client(sandbox, OTHER_KEY).post('/v1/webhooks', { url: URL_OK, events: ['call.started'] });
    const first = await api.get('/v1/webhooks?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((s: any) => s.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await api.get(`/v1/webhooks?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    const third = await api.get(`/v1/webhooks?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(third.body.data.map((s: any) => s.id)).toEqual([ids[0]]);
    const recent = await api.get('/v1/webhooks?created_after=2026-01-01T00:00:02Z');
    expect(recent.body.data.map((s: any) => s.id)).toEqual([ids[4], ids[3]]);
    expect((await api.get('/v1/webhooks')).body.data).toHaveLength(5);
  });

  it.for<[string, string, RegExp]>([
    ['limit=0', 'limit', /integer from 1 to 200/],
    ['limit=201', 'limit', /integer from 1 to 200/],
    ['cursor=forged.cursor', 'cursor', /not a cursor of this list/],
    ['created_after=yesterday', 'created_after', /ISO 8601/],
    ['event=call.started', 'event', /Unknown query parameter/],
  ])('refuses ?%s with 400 naming %s', async ([query, param, message], { api }) => {
    const res = await api.get(`/v1/webhooks?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(res.body.error.message).toMatch(message);
  });

  it("refuses another account's cursor", async ({ sandbox, api }) => {
    for (let i = 0; i < 2; i++) await client(sandbox, OTHER_KEY).post('/v1/webhooks', { url: URL_OK, events: ['call.started'] });
    const theirs = await client(sandbox, OTHER_KEY).get('/v1/webhooks?limit=1');
    const res = await api.get(`/v1/webhooks?cursor=${theirs.body.next_cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('cursor');
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('removes the subscription: 204 with no body, then it is gone', async ({ api }) => {
    const { id } = (await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    const res = await api.send('DELETE', `/v1/webhooks/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api.get('/v1/webhooks')).body.data).toEqual([]);
    const again = await api.send('DELETE', `/v1/webhooks/${id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/No webhook subscription wh_/) });
  });

  it('is 404 for an unknown id and for another account’s subscription, which stays', async ({ sandbox, api }) => {
    expect((await api.send('DELETE', '/v1/webhooks/wh_0000000000000000')).status).toBe(404);
    const theirs = (await client(sandbox, OTHER_KEY).post('/v1/webhooks', { url: URL_OK, events: ['call.started'] })).body;
    const res = await api.send('DELETE', `/v1/webhooks/${theirs.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await client(sandbox, OTHER_KEY).get('/v1/webhooks')).body.data).toHaveLength(1);
  });
});

describe('the shared pipeline guards the three endpoints', () => {
  it.for([
    ['GET', '/v1/webhooks'],
    ['POST', '/v1/webhooks'],
    ['DELETE', '/v1/webhooks/wh_x'],
  ])('%s %s without a key is 401, with a live key 401 live_key_not_allowed', async ([method, path], { sandbox }) => {
    const body = method === 'POST' ? { url: URL_OK, events: ['call.started'] } : undefined;
    expect((await client(sandbox, null).send(method!, path!, body)).body.error.code).toBe('invalid_api_key');
    const live = await client(sandbox, 'SVC_LIVE_abc').send(method!, path!, body);
    expect(live.status).toBe(401);
    expect(live.body.error.code).toBe('live_key_not_allowed');
  });

  describe('with keys scoped to webhooks:read and to calls:*', () => {
    test.override({
      sandboxOptions: { keys: { SVC_TEST_reader: { scopes: ['webhooks:read'] }, SVC_TEST_calls: { scopes: ['calls:*'] } } },
    });

    it('is 403 for a key whose scopes do not cover webhooks', async ({ sandbox }) => {
      const reader = client(sandbox, 'SVC_TEST_reader');
      expect((await reader.get('/v1/webhooks')).status).toBe(200);
      const post = await reader.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] });
      expect(post.status).toBe(403);
      expect(post.body.error.message).toMatch(/webhooks:write/);
      expect((await reader.send('DELETE', '/v1/webhooks/wh_x')).status).toBe(403);
      expect((await client(sandbox, 'SVC_TEST_calls').get('/v1/webhooks')).status).toBe(403);
    });
  });

  it('is 405 with Allow for another method', async ({ api }) => {
    const res = await api.send('PUT', '/v1/webhooks', { url: URL_OK });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect((await api.send('GET', '/v1/webhooks/wh_x')).headers.get('allow')).toBe('DELETE, OPTIONS');
  });

  it('is 429 over the rate limit', async ({ sandbox, api }) => {
    for (let i = 0; i < 100; i++) await api.get('/v1/webhooks');
    const res = await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    await sandbox.advance('1s');
    expect((await api.get('/v1/webhooks')).body.data).toEqual([]);
  });
});

describe('isolation', () => {
  it('lists only the account’s own subscriptions', async ({ sandbox, api }) => {
    await api.post('/v1/webhooks', { url: URL_OK, events: ['call.started'] });
    expect((await client(sandbox, OTHER_KEY).get('/v1/webhooks')).body.data).toEqual([]);
    expect((await client(sandbox, KEY).get('/v1/webhooks')).body.data).toHaveLength(1);
  });
});
