import { describe, expect, test } from '../fixture.js';
import { client, OTHER_KEY } from '../helpers.js';

const CALLS_ONLY = 'SVC_TEST_callsonly';

/** Every test starts with a call of Alice's that ended and whose recording is ready. */
const it = test
  .extend({ sandboxOptions: { keys: { [CALLS_ONLY]: { account: 'SVC_TEST_alice', scopes: ['calls:*'] } } } })
  .extend<{ callId: string; recordingId: string }>({
    callId: [
      async ({ sandbox, api }, use) => {
        const { id } = (await api.placeCall()).body;
        await sandbox.advance('2m');
        await use(id);
      },
      { auto: true },
    ],
    recordingId: async ({ sandbox, callId }, use) => {
      await use(sandbox.calls.get(callId)!.recording_id!);
    },
  });

/** Every 4xx changes nothing: no event, no stored item. */
async function expectError(
  res: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
  message: RegExp,
  param?: string,
) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toMatch(message);
  expect(res.body.error.param).toBe(param);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
}

describe('GET /v1/recordings refuses bad queries with 400 naming the parameter', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['limit 0', 'limit=0', 'limit', /integer from 1 to 200/],
    ['limit 201', 'limit=201', 'limit', /integer from 1 to 200/],
    ['limit not a number', 'limit=ten', 'limit', /integer/],
    ['a forged cursor', 'cursor=abc.def', 'cursor', /not a cursor of this list/],
    ['a bad date', 'created_after=yesterday', 'created_after', /ISO 8601/],
    ['a bad created_before', 'created_before=2026-13-45T99', 'created_before', /ISO 8601/],
    ['a misspelt filter', 'agnet=maria', 'agnet', /did you mean `agent`/],
    ['an unknown parameter', 'colour=red', 'colour', /Unknown query parameter/],
    ['an empty agent', 'agent=', 'agent', /must not be empty/],
    ['an agent too long', `agent=${'x'.repeat(65)}`, 'agent', /at most 64/],
    ['a bad status', 'status=done', 'status', /one of "processing", "ready"/],
    ['a repeated parameter', 'agent=a&agent=b', 'agent', /more than once/],
  ];
  it.for(cases)('%s', async ([, query, param, message], { sandbox, api }) => {
    const before = sandbox.events.list().length;
    await expectError(await api.get(`/v1/recordings?${query}`), 400, 'invalid_parameter', message, param);
    expect(sandbox.events.list()).toHaveLength(before);
  });

  it('a cursor of another account is refused', async ({ sandbox, api }) => {
    await api.placeCall({ to: '+14155550124' });
    await sandbox.advance('2m');
    const page = await api.get('/v1/recordings?limit=1');
    await expectError(
      await client(sandbox, OTHER_KEY).get(`/v1/recordings?cursor=${page.body.next_cursor}`),
      400,
      'invalid_parameter',
      /cursor/,
      'cursor',
    );
  });
});

describe('404 for unknown or foreign recordings', () => {
  it.for<[string, (ids: { callId: string; recordingId: string }) => string]>([
    ['an unknown id', () => '/v1/recordings/rec_0000000000000000'],
    ['another account’s recording', ({ recordingId }) => `/v1/recordings/${recordingId}`],
    ['a call id', ({ callId }) => `/v1/recordings/${callId}`],
    ['unknown audio', () => '/v1/recordings/rec_0000000000000000/audio'],
    ['another account’s audio', ({ recordingId }) => `/v1/recordings/${recordingId}/audio`],
  ])('%s', async ([name, path], { sandbox, api, callId, recordingId }) => {
    const who = name.includes('another') ? client(sandbox, OTHER_KEY) : api;
    await expectError(await who.get(path({ callId, recordingId })), 404, 'not_found', /No recording/);
  });

  it('a call id gets a hint', async ({ api, callId }) => {
    expect((await api.get(`/v1/recordings/${callId}`)).body.error.message).toMatch(/call id: use the call's recording_id/);
  });
});

describe('auth, scopes and methods', () => {
  it('401 without a key and with a live key', async ({ sandbox, recordingId }) => {
    for (const path of ['/v1/recordings', `/v1/recordings/${recordingId}`, `/v1/recordings/${recordingId}/audio`]) {
      await expectError(await client(sandbox, null).get(path), 401, 'invalid_api_key', /API key/);
      await expectError(await client(sandbox, 'SVC_LIVE_abc').get(path), 401, 'live_key_not_allowed', /production key/);
    }
  });

  it('403 for a key without the recordings scope', async ({ sandbox, recordingId }) => {
    for (const path of ['/v1/recordings', `/v1/recordings/${recordingId}`, `/v1/recordings/${recordingId}/audio`]) {
      await expectError(await client(sandbox, CALLS_ONLY).get(path), 403, 'forbidden', /recordings:read/);
    }
  });

  it('405 for other methods, with Allow', async ({ api, recordingId }) => {
    const res = await api.post('/v1/recordings', {});
    await expectError(res, 405, 'method_not_allowed', /POST is not allowed/);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await expectError(await api.send('DELETE', `/v1/recordings/${recordingId}`), 405, 'method_not_allowed', /use GET/);
    await expectError(await api.post(`/v1/recordings/${recordingId}/audio`, {}), 405, 'method_not_allowed', /use GET/);
  });

  it('409 for audio still processing', async ({ sandbox, api }) => {
    const { body } = await api.placeCall({ to: '+14155550124' });
    await sandbox.advance('65s');
    await expectError(
      await api.get(`/v1/recordings/${sandbox.calls.get(body.id)!.recording_id}/audio`),
      409,
      'recording_not_ready',
      /still processing/,
    );
  });

  it('429 past the rate limit', async ({ api, recordingId }) => {
    for (let i = 0; i < 100; i++) await api.get(`/v1/recordings/${recordingId}`);
    const res = await api.get(`/v1/recordings/${recordingId}/audio`);
    await expectError(res, 429, 'rate_limited', /Rate limit/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
