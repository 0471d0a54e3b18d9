import { describe, expect, test as fixtureTest } from '../fixture.js';
import { client, OTHER_KEY, TO } from '../helpers.js';

const RECORDINGS_ONLY = 'SVC_TEST_reconly';
// The file's options: an extension of its own (a top-level override would change the shared test API for every file after this one in a worker).
const test = fixtureTest.extend({
  sandboxOptions: { keys: { [RECORDINGS_ONLY]: { account: 'SVC_TEST_alice', scopes: ['recordings:read'] } } },
});
const it = test;

const SSE = { accept: 'text/event-stream' };

async function expectError(
  res: { status: number; body: any; headers: Headers },
  status: number,
  code: string,
  message: RegExp,
  param?: string,
) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.message).toMatch(message);
  expect(res.body.error.param).toBe(param);
}

describe('GET /v1/transcripts/{id}: 404 for unknown or foreign ids, JSON or SSE alike', () => {
  it.for([{}, SSE])('with headers %j', async (headers, { sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual' });
    const ringing = (await api.placeCall()).body.id;
    const answered = (await api.placeCall({ to: '+14155550124' })).body.id;
    await sandbox.advance('5s');
    const transcriptId = sandbox.calls.get(answered)!.transcript_id!;
    const other = client(sandbox, OTHER_KEY);

    await expectError(
      await api.get('/v1/transcripts/trn_0000000000000000', headers),
      404,
      'not_found',
      /No transcript trn_0000000000000000.*trn_…/,
    );
    await expectError(await api.get('/v1/transcripts/hello', headers), 404, 'not_found', /No transcript hello/);
    await expectError(await api.get(`/v1/transcripts/${ringing}`, headers), 404, 'not_found', /has not been answered/);
    await expectError(await api.get('/v1/transcripts/call_0000000000000000', headers), 404, 'not_found', /No call/);
    await expectError(await api.get('/v1/transcripts/rec_0000000000000000', headers), 404, 'not_found', /No recording/);
    await expectError(await other.get(`/v1/transcripts/${transcriptId}`, headers), 404, 'not_found', /No transcript/);
    await expectError(await other.get(`/v1/transcripts/${answered}`, headers), 404, 'not_found', /No call/);
    await sandbox.advance('2m');
    await expectError(
      await other.get(`/v1/transcripts/${sandbox.calls.get(answered)!.recording_id}`, headers),
      404,
      'not_found',
      /No recording/,
    );
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });
});

describe('GET /v1/transcripts/{id}: other 4xx', () => {
  it('400 for a Last-Event-ID that is not a segment id (SSE only); nothing is opened', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    await sandbox.advance('5s');
    for (const bad of ['abc', '-1', '1.5', '99999999999']) {
      await expectError(
        await api.get(`/v1/transcripts/${body.id}`, { ...SSE, 'last-event-id': bad }),
        400,
        'invalid_parameter',
        /Last-Event-ID must be/,
        'Last-Event-ID',
      );
    }
    expect(sandbox.transcripts.openStreams()).toBe(0);
    // A JSON request ignores the header.
    expect((await api.get(`/v1/transcripts/${body.id}`, { 'last-event-id': 'abc' })).status).toBe(200);
  });

  it('401 without a key, 403 without the transcripts scope, 405 for other methods', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    await sandbox.advance('5s');
    const path = `/v1/transcripts/${body.id}`;
    await expectError(await client(sandbox, null).get(path, SSE), 401, 'invalid_api_key', /No API key/);
    await expectError(await client(sandbox, 'SVC_LIVE_x').get(path), 401, 'live_key_not_allowed', /production key/);
    await expectError(await client(sandbox, RECORDINGS_ONLY).get(path, SSE), 403, 'forbidden', /transcripts:read/);
    const res = await api.send('DELETE', path);
    await expectError(res, 405, 'method_not_allowed', /DELETE is not allowed/);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await expectError(await api.get('/v1/transcripts'), 404, 'not_found', /No endpoint GET \/v1\/transcripts/);
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });

  it('429 past the rate limit, for a stream as for JSON', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    await sandbox.advance('5s');
    for (let i = 0; i < 100; i++) await api.get(`/v1/transcripts/${body.id}`);
    await expectError(await api.get(`/v1/transcripts/${body.id}`, SSE), 429, 'rate_limited', /Rate limit/);
    expect(sandbox.transcripts.openStreams()).toBe(0);
  });
});
