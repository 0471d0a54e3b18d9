import type { Sandbox, SandboxEvent } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client, KEY } from '../helpers.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const at = (event: SandboxEvent) => (Date.parse(event.created_at) - START) / 1000;
// Every event of these tests is a call event: list({ type }) narrows one type; a union of three needs the type argument.
const timeline = (sandbox: Sandbox) =>
  sandbox.events.list<'call.started' | 'call.answered' | 'call.completed'>().map((e) => [at(e), e.type, e.data.status, e.data.disposition]);

describe('call lifecycle on the virtual clock', () => {
  it('default: rings 5 s, answered by a human, talks 60 s, completes answered', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('4999ms');
    expect((await api.get(`/v1/calls/${call.id}`)).body.status).toBe('ringing');
    await sandbox.advance(1);
    const answered = (await api.get(`/v1/calls/${call.id}`)).body;
    expect(answered).toMatchObject({ status: 'answered', answered_by: 'human', answered_at: '2026-01-01T00:00:05.000Z' });
    expect(answered.transcript_id).toMatch(/^trn_[0-9A-Za-z]{16}$/);
    await sandbox.advance('60s');
    const done = (await api.get(`/v1/calls/${call.id}`)).body;
    expect(done).toMatchObject({
      status: 'completed',
      disposition: 'answered',
      duration: 60,
      ended_at: '2026-01-01T00:01:05.000Z',
      recording_url: `${sandbox.baseUrl}/v1/recordings/${done.recording_id}/audio`,
    });
    expect(done.recording_id).toMatch(/^rec_[0-9A-Za-z]{16}$/);
    expect(timeline(sandbox)).toEqual([
      [0, 'call.started', 'ringing', null],
      [5, 'call.answered', 'answered', null],
      [65, 'call.completed', 'completed', 'answered'],
    ]);
  });

  it.for<[string, string, number]>([
    ['+15005550002', 'busy', 1],
    ['+15005550003', 'no_answer', 30],
    ['+15005550004', 'failed', 1],
  ])(
    'magic number %s completes %s after %i s with no answer, recording or duration',
    async ([to, disposition, seconds], { sandbox, api }) => {
      const { body: call } = await api.placeCall({ to });
      await sandbox.advance(seconds * 1000 - 1);
      expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
      await sandbox.advance(1);
      expect(sandbox.calls.get(call.id)).toMatchObject({
        status: 'completed',
        disposition,
        duration: 0,
        answered_at: null,
        answered_by: null,
        recording_id: null,
        recording_url: null,
        transcript_id: null,
      });
      expect(timeline(sandbox)).toEqual([
        [0, 'call.started', 'ringing', null],
        [seconds, 'call.completed', 'completed', disposition],
      ]);
    },
  );

  it('the AI receptionist answers when asked, and is the agent', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall({ ai_receptionist: true });
    await sandbox.advance('5s');
    expect(sandbox.calls.get(call.id)).toMatchObject({
      status: 'answered',
      answered_by: 'ai_receptionist',
      agent: 'ava',
      ai_handler: 'ava',
    });
  });

  it('events use the envelope of CONTRACT §6 with the call as data', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('65s');
    const events = sandbox.events.list();
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(event.id).toMatch(/^evt_[0-9A-Za-z]{16}$/);
      expect(event.data.id).toBe(call.id);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    const completed = sandbox.events.list({ type: 'call.completed' })[0]!;
    expect(completed.id).toBe(events[2]!.id);
    expect(completed.data).toMatchObject({ duration: 60, disposition: 'answered' });
    expect(completed.data.recording_url).toMatch(/^https:\/\/api\.svc\.test\/v1\/recordings\/rec_/);
  });

  it('event data is a snapshot: later changes do not rewrite logged events', async ({ sandbox, api }) => {
    await api.placeCall();
    await sandbox.advance('65s');
    expect(sandbox.events.list({ type: 'call.started' })[0]!.data.status).toBe('ringing');
  });

  it('events.subscribe sees events as they happen, filtered by type and account', async ({ sandbox, api }) => {
    const seen: string[] = [];
    const stop = sandbox.events.subscribe((e) => seen.push(`${e.type}@${sandbox.now().toISOString().slice(17, 19)}`), { apiKey: KEY });
    const others: string[] = [];
    sandbox.events.subscribe((e) => others.push(e.type), { type: 'call.answered' });
    await api.placeCall();
    await client(sandbox, 'SVC_TEST_someone_else').placeCall();
    await sandbox.advance('10s');
    stop();
    await sandbox.advance('2m');
    expect(seen).toEqual(['call.started@00', 'call.answered@05']);
    expect(others).toEqual(['call.answered', 'call.answered']);
  });

  it('a listener that throws does not stop the simulation; advance reports it', async ({ sandbox, api }) => {
    sandbox.events.subscribe(() => {
      throw new Error('assertion in listener');
    });
    const { body: call } = await api.placeCall();
    await expect(sandbox.advance('5s')).rejects.toThrow(/event listener .* threw/);
    expect(sandbox.calls.get(call.id)?.status).toBe('answered');
    await expect(sandbox.advance('60s')).rejects.toThrow(/threw/);
    expect(sandbox.calls.get(call.id)?.status).toBe('completed');
  });

  it('many calls keep their own timings', async ({ sandbox, api }) => {
    sandbox.network.setBehavior('+14155550111', { ring: '2s', talk: '10s' });
    const a = (await api.placeCall({ to: '+14155550111' })).body;
    await sandbox.advance('1s');
    const b = (await api.placeCall()).body;
    await sandbox.advance('1d');
    expect(sandbox.calls.get(a.id)).toMatchObject({
      answered_at: '2026-01-01T00:00:02.000Z',
      ended_at: '2026-01-01T00:00:12.000Z',
      duration: 10,
    });
    expect(sandbox.calls.get(b.id)).toMatchObject({
      answered_at: '2026-01-01T00:00:06.000Z',
      ended_at: '2026-01-01T00:01:06.000Z',
      duration: 60,
    });
  });
});

describe('POST /v1/calls/{id}/transfer', () => {
  it('moves an answered call to an agent, then to an extension', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('5s');
    const toAgent = await api.post(`/v1/calls/${call.id}/transfer`, { agent: 'maria' });
    expect(toAgent.status).toBe(200);
    expect(toAgent.body).toMatchObject({ id: call.id, status: 'answered', agent: 'maria', extension: null });
    const toExt = await api.post(`/v1/calls/${call.id}/transfer`, { extension: '204' });
    expect(toExt.body).toMatchObject({ agent: null, extension: '204' });
    expect((await api.get(`/v1/calls/${call.id}`)).body.extension).toBe('204');
  });

  it('keeps the call going: it still completes after its talk time', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('30s');
    await api.post(`/v1/calls/${call.id}/transfer`, { agent: 'maria' });
    await sandbox.advance('35s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', agent: 'maria', duration: 60 });
  });

  it('refuses a ringing call and a completed call with 422 call_not_active', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    const ringing = await api.post(`/v1/calls/${call.id}/transfer`, { agent: 'maria' });
    expect(ringing.status).toBe(422);
    expect(ringing.body.error).toMatchObject({ code: 'call_not_active', message: expect.stringMatching(/ringing.*only an answered call/) });
    await sandbox.advance('2m');
    const completed = await api.post(`/v1/calls/${call.id}/transfer`, { extension: '12' });
    expect(completed.status).toBe(422);
    expect(completed.body.error.message).toMatch(/completed/);
    expect(sandbox.calls.get(call.id)).toMatchObject({ agent: null, extension: null });
  });

  it.for<[string, Record<string, string>, string, string]>([
    ['neither target', {}, 'missing_parameter', 'agent'],
    ['both targets', { agent: 'maria', extension: '204' }, 'invalid_parameter', 'extension'],
    ['a non-digit extension', { extension: 'x12' }, 'invalid_parameter', 'extension'],
    ['an empty agent', { agent: '' }, 'invalid_parameter', 'agent'],
    ['an unknown field', { agnet: 'maria' }, 'invalid_parameter', 'agnet'],
  ])('refuses %s with 400, changing nothing', async ([, body, code, param], { sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('5s');
    const res = await api.post(`/v1/calls/${call.id}/transfer`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
    expect(sandbox.calls.get(call.id)).toMatchObject({ agent: null, extension: null });
  });

  it('is 404 for an unknown call and for another account’s call', async ({ sandbox, api }) => {
    expect((await api.post('/v1/calls/call_0000000000000000/transfer', { agent: 'x' })).status).toBe(404);
    const { body: call } = await api.placeCall();
    await sandbox.advance('5s');
    const foreign = await client(sandbox, 'SVC_TEST_mallory').post(`/v1/calls/${call.id}/transfer`, { agent: 'x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });
});

describe('GET /v1/calls/{id}', () => {
  it('is 404 not_found for an unknown id and another account’s call', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    const unknown = await api.get('/v1/calls/call_doesnotexist0000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect((await client(sandbox, 'SVC_TEST_mallory').get(`/v1/calls/${call.id}`)).status).toBe(404);
  });

  it('shows full metadata', async ({ api }) => {
    const { body: call } = await api.placeCall({ ai_receptionist: true });
    const { body } = await api.get(`/v1/calls/${call.id}`);
    expect(Object.keys(body).sort()).toEqual(
      [
        'agent',
        'ai_handler',
        'ai_receptionist',
        'answered_at',
        'answered_by',
        'campaign_id',
        'created_at',
        'direction',
        'disposition',
        'duration',
        'ended_at',
        'extension',
        'from',
        'id',
        'recording_id',
        'recording_url',
        'status',
        'to',
        'transcript_id',
      ].sort(),
    );
  });
});
