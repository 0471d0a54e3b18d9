import { SandboxError } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client, KEY, TO } from '../helpers.js';

describe('network.setBehavior', () => {
  it('sets ring time, answerer, agent and talk time for every call to a number', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: '12s', answeredBy: 'voicemail', talk: '20s', agent: 'vm-box' });
    for (let i = 0; i < 2; i++) {
      const { body: call } = await api.placeCall();
      await sandbox.advance('12s');
      expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'answered', answered_by: 'voicemail', agent: 'vm-box' });
      await sandbox.advance('20s');
      expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', duration: 20 });
    }
  });

  it('overrides a magic number, and clearBehavior restores it', async ({ sandbox, api }) => {
    sandbox.network.setBehavior('+15005550002', { outcome: 'answered' });
    const a = (await api.placeCall({ to: '+15005550002' })).body;
    await sandbox.advance('5s');
    expect(sandbox.calls.get(a.id)?.status).toBe('answered');
    sandbox.network.clearBehavior('+15005550002');
    const b = (await api.placeCall({ to: '+15005550002' })).body;
    await sandbox.advance('1s');
    expect(sandbox.calls.get(b.id)?.disposition).toBe('busy');
  });

  it('can make any number unreachable', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { outcome: 'unreachable' });
    const res = await api.placeCall();
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unreachable_destination');
  });

  it('throws SandboxError for a bad number or behaviour, naming the fix', ({ sandbox }) => {
    expect(() => sandbox.network.setBehavior('4155550123', {})).toThrow(SandboxError);
    expect(() => sandbox.network.setBehavior(TO, { outcome: 'maybe' as never })).toThrow(
      /`behavior.outcome` must be one of "answered", "busy"/,
    );
    expect(() => sandbox.network.setBehavior(TO, { ring: 'soon' })).toThrow(/'30s'/);
    expect(() => sandbox.network.setBehavior(TO, { rnig: '1s' } as never)).toThrow(/Unknown option `behavior.rnig`: did you mean `ring`\?/);
  });
});

describe('network.queueBehavior', () => {
  it('applies one behaviour per call, in order, then falls back', async ({ sandbox, api }) => {
    sandbox.network.queueBehavior(TO, { outcome: 'busy' }, { outcome: 'no_answer', ring: '3s' });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await api.placeCall()).body.id);
    await sandbox.advance('2m');
    expect(ids.map((id) => sandbox.calls.get(id)?.disposition)).toEqual(['busy', 'no_answer', 'answered']);
  });

  it('adds none of a queue that holds a bad behaviour, even behind an existing queue', async ({ sandbox, api }) => {
    sandbox.network.queueBehavior(TO, { outcome: 'busy' });
    expect(() => sandbox.network.queueBehavior(TO, { outcome: 'no_answer' }, { outcome: 'lost' as never })).toThrow(
      /`behaviors\[1\].outcome` must be one of "answered", "busy"/,
    );
    const ids = [(await api.placeCall()).body.id, (await api.placeCall()).body.id];
    await sandbox.advance('2m');
    expect(ids.map((id) => sandbox.calls.get(id)?.disposition)).toEqual(['busy', 'answered']);
  });
});

describe('manual control', () => {
  it('answer and hangUp drive a call that rings and talks until the test acts', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual', talk: 'manual' });
    const { body: call } = await api.placeCall();
    await sandbox.advance('1h');
    expect(sandbox.calls.get(call.id)?.status).toBe('ringing');
    expect(sandbox.calls.answer(call.id)).toMatchObject({
      status: 'answered',
      answered_by: 'human',
      answered_at: '2026-01-01T01:00:00.000Z',
    });
    await sandbox.advance('42s');
    expect(sandbox.calls.hangUp(call.id)).toMatchObject({ status: 'completed', disposition: 'answered', duration: 42 });
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
  });

  it('answer can come early and by voicemail; hangUp ends a talk early', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('2s');
    sandbox.calls.answer(call.id, { by: 'voicemail' });
    await sandbox.advance('10s');
    sandbox.calls.hangUp(call.id);
    await sandbox.advance('5m');
    expect(sandbox.calls.get(call.id)).toMatchObject({ answered_by: 'voicemail', duration: 10, ended_at: '2026-01-01T00:00:12.000Z' });
    expect(sandbox.events.list({ type: 'call.completed' })).toHaveLength(1);
  });

  it('hanging up a ringing call cancels it', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    expect(sandbox.calls.hangUp(call.id)).toMatchObject({ status: 'completed', disposition: 'canceled', duration: 0, recording_id: null });
  });

  it('refuses to act on a call in the wrong state or an unknown call', async ({ sandbox, api }) => {
    const { body: call } = await api.placeCall();
    await sandbox.advance('5s');
    expect(() => sandbox.calls.answer(call.id)).toThrow(/the call is answered, and only a ringing call can be/);
    await sandbox.advance('60s');
    expect(() => sandbox.calls.hangUp(call.id)).toThrow(/the call is completed/);
    expect(() => sandbox.calls.answer('call_nope')).toThrow(/no such call/);
  });
});

describe('calls.inbound', () => {
  it('rings an account’s number from outside through the same lifecycle', async ({ sandbox, api }) => {
    const call = sandbox.calls.inbound({ from: '+442071234567', to: '+14155550100', apiKey: KEY, aiReceptionist: true });
    expect(call).toMatchObject({ direction: 'inbound', status: 'ringing', from: '+442071234567', ai_handler: 'ava' });
    await sandbox.advance('65s');
    const listed = (await api.get('/v1/calls?direction=inbound')).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: call.id, status: 'completed', answered_by: 'ai_receptionist', duration: 60 });
    expect((await client(sandbox, 'SVC_TEST_other').get(`/v1/calls/${call.id}`)).status).toBe(404);
    expect(sandbox.events.list({ apiKey: KEY }).map((e) => e.type)).toEqual(['call.started', 'call.answered', 'call.completed']);
  });

  it('takes a behaviour, and refuses bad arguments', ({ sandbox }) => {
    const call = sandbox.calls.inbound({ from: '+442071234567', to: '+14155550100', apiKey: KEY, behavior: { outcome: 'no_answer' } });
    expect(call.status).toBe('ringing');
    expect(() => sandbox.calls.inbound({ from: 'anonymous', to: '+14155550100', apiKey: KEY })).toThrow(/E\.164/);
    expect(() => sandbox.calls.inbound({ from: '+442071234567', to: '+14155550100', apiKey: 'SVC_LIVE_x' })).toThrow(
      /not an API key this sandbox accepts/,
    );
  });
});

describe('dialer campaigns', () => {
  it('dials each number one second apart and completes when all calls have', async ({ sandbox, api }) => {
    sandbox.network.setBehavior('+14155550002', { outcome: 'busy' });
    const res = await api.post('/v1/calls', {
      campaign: { to: ['+14155550001', '+14155550002', '+14155550003'], from: '+14155550100', ai_receptionist: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'campaign', status: 'running', ai_handler: 'ava', calls_dialed: 1, calls_completed: 0 });
    expect(res.body.id).toMatch(/^camp_[0-9A-Za-z]{16}$/);
    await sandbox.advance('2s');
    const campaign = (await api.get(`/v1/calls/${res.body.id}`)).body;
    expect(campaign.call_ids).toHaveLength(3);
    const calls = (await api.get(`/v1/calls?campaign_id=${res.body.id}`)).body.data;
    expect(calls.map((c: { to: string }) => c.to)).toEqual(['+14155550003', '+14155550002', '+14155550001']);
    expect(calls.map((c: { created_at: string }) => c.created_at)).toEqual([
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
    await sandbox.advance('2m');
    const done = (await api.get(`/v1/calls/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', calls_completed: 3, completed_at: '2026-01-01T00:01:07.000Z' });
    const finals = (await api.get(`/v1/calls?campaign_id=${res.body.id}`)).body.data.map(
      (c: { disposition: string; ai_handler: string }) => [c.disposition, c.ai_handler],
    );
    expect(finals).toEqual([
      ['answered', 'ava'],
      ['busy', 'ava'],
      ['answered', 'ava'],
    ]);
  });

  it('is 404 for another account', async ({ sandbox, api }) => {
    const res = await api.post('/v1/calls', { campaign: { to: [TO], from: '+14155550100' } });
    expect((await client(sandbox, 'SVC_TEST_other').get(`/v1/calls/${res.body.id}`)).status).toBe(404);
  });
});
