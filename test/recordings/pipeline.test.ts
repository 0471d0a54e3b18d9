import { SandboxError, type Sandbox } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client, startSandbox, TO } from '../helpers.js';

const at = (seconds: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + seconds * 1000).toISOString();
const types = (sandbox: Sandbox) => sandbox.events.list().map((e) => `${e.type}@${e.created_at}`);

describe('a completed, answered call', () => {
  it('yields a recording ready 10 s after the end, then the transcript and summary 20 s later, with both events', async ({
    sandbox,
    api,
  }) => {
    const { body: placed } = await api.placeCall();
    await sandbox.advance('65s'); // rings 5 s, talks 60 s
    const call = (await api.get(`/v1/calls/${placed.id}`)).body;
    expect(call).toMatchObject({ status: 'completed', disposition: 'answered', duration: 60 });
    expect(call.recording_id).toMatch(/^rec_[0-9A-Za-z]{16}$/);
    const completed = sandbox.events.list({ type: 'call.completed' })[0]!;
    expect(completed.data.recording_url).toBe(`${sandbox.baseUrl}/v1/recordings/${call.recording_id}/audio`);

    const processing = await api.get(`/v1/recordings/${call.recording_id}`);
    expect(processing.status).toBe(200);
    expect(processing.body).toEqual({
      id: call.recording_id,
      call_id: call.id,
      agent: null,
      duration: 60,
      status: 'processing',
      url: completed.data.recording_url,
      transcript_id: call.transcript_id,
      transcript: null,
      summary: null,
      created_at: at(65),
      ready_at: null,
    });

    await sandbox.advance('9999ms');
    expect(sandbox.recordings.get(call.recording_id)!.status).toBe('processing');
    await sandbox.advance(1);
    const ready = (await api.get(`/v1/recordings/${call.recording_id}`)).body;
    expect(ready).toMatchObject({ status: 'ready', ready_at: at(75), transcript: null, summary: null });
    const recordingReady = sandbox.events.list({ type: 'recording.ready' });
    expect(recordingReady).toHaveLength(1);
    expect(recordingReady[0]).toMatchObject({ created_at: at(75), data: { id: call.recording_id, status: 'ready', call_id: call.id } });
    expect((await api.get(`/v1/transcripts/${call.transcript_id}`)).body.status).toBe('processing');

    await sandbox.advance('19999ms');
    expect(sandbox.events.list({ type: 'transcript.ready' })).toEqual([]);
    await sandbox.advance(1);
    const done = (await api.get(`/v1/recordings/${call.recording_id}`)).body;
    expect(done.transcript).toMatchObject({
      id: call.transcript_id,
      call_id: call.id,
      recording_id: call.recording_id,
      status: 'ready',
      ready_at: at(95),
    });
    expect(done.summary).toEqual(expect.any(String));
    expect(done.summary).toBe(done.transcript.summary);
    expect(done.transcript.segments.length).toBeGreaterThan(0);
    for (const s of done.transcript.segments) {
      expect(s).toEqual({ speaker: expect.any(String), text: expect.any(String), start: expect.any(Number), end: expect.any(Number) });
      expect(0 <= s.start && s.start < s.end && s.end <= 60).toBe(true);
    }
    expect(done.transcript.text).toBe(done.transcript.segments.map((s: any) => `${s.speaker}: ${s.text}`).join('\n'));
    const transcriptReady = sandbox.events.list({ type: 'transcript.ready' });
    expect(transcriptReady).toHaveLength(1);
    expect(transcriptReady[0]!.data).toEqual(done.transcript);

    expect(types(sandbox)).toEqual([
      `call.started@${at(0)}`,
      `call.answered@${at(5)}`,
      `call.completed@${at(65)}`,
      `recording.ready@${at(75)}`,
      `transcript.ready@${at(95)}`,
    ]);
  });

  it('regression: a call.completed listener could not fetch the recording its recording_url names (it was stored after the event)', async ({
    sandbox,
    api,
  }) => {
    const seen: Array<string | undefined> = [];
    sandbox.events.subscribe((event) => seen.push(sandbox.recordings.get(event.data.recording_id as string)?.status), {
      type: 'call.completed',
    });
    await api.placeCall();
    await sandbox.advance('65s');
    expect(seen).toEqual(['processing']);
  });

  it('keeps the agent the call had when it ended (AI handler, scripted agent, transfer target)', async ({ sandbox, api }) => {
    const ai = await api.placeCall({ ai_receptionist: true });
    sandbox.network.setBehavior('+14155550124', { agent: 'maria' });
    const agent = await api.placeCall({ to: '+14155550124' });
    const moved = await api.placeCall({ to: '+14155550125' });
    await sandbox.advance('10s');
    await api.post(`/v1/calls/${moved.body.id}/transfer`, { agent: 'li' });
    await sandbox.advance('2m');
    const agentOf = (id: string) => sandbox.recordings.get(sandbox.calls.get(id)!.recording_id!)!.agent;
    expect([agentOf(ai.body.id), agentOf(agent.body.id), agentOf(moved.body.id)]).toEqual(['ava', 'maria', 'li']);
  });

  it('a call answered and hung up at once still gets a recording of 0 s, with an empty transcript', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual', talk: 'manual' });
    const { body } = await api.placeCall();
    sandbox.calls.answer(body.id);
    sandbox.calls.hangUp(body.id);
    await sandbox.advance('30s');
    const recording = sandbox.recordings.get(sandbox.calls.get(body.id)!.recording_id!)!;
    expect(recording).toMatchObject({ duration: 0, status: 'ready', transcript: { segments: [], text: '' } });
    expect(recording.summary).toBe('A 0-second call in which nobody spoke.');
  });
});

describe('calls that were never answered have no recording and no transcript', () => {
  it.for([
    ['busy', '+15005550002'],
    ['no answer', '+15005550003'],
    ['carrier failure', '+15005550004'],
  ])('%s', async ([, to], { sandbox, api }) => {
    const { body } = await api.placeCall({ to });
    await sandbox.advance('1h');
    const call = (await api.get(`/v1/calls/${body.id}`)).body;
    expect(call).toMatchObject({ status: 'completed', recording_id: null, recording_url: null, transcript_id: null, duration: 0 });
    expect((await api.get('/v1/recordings')).body.data).toEqual([]);
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['call.started', 'call.completed']);
    expect((await api.get(`/v1/transcripts/${body.id}`)).status).toBe(404);
  });

  it('a call canceled while ringing', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual' });
    const { body } = await api.placeCall();
    sandbox.calls.hangUp(body.id);
    await sandbox.advance('1h');
    expect(sandbox.calls.get(body.id)).toMatchObject({ disposition: 'canceled', recording_id: null });
    expect(sandbox.events.list({ type: 'recording.ready' })).toEqual([]);
  });
});

describe('sandbox.recordings.setTiming', () => {
  it('changes the delays for one call, before it ends', async ({ sandbox, api }) => {
    const fast = await api.placeCall();
    const normal = await api.placeCall({ to: '+14155550124' });
    sandbox.recordings.setTiming({ recordingDelay: '1s', transcriptDelay: '2s' }, fast.body.id);
    await sandbox.advance('65s');
    await sandbox.advance('3s');
    const recOf = (id: string) => sandbox.recordings.get(sandbox.calls.get(id)!.recording_id!)!;
    expect(recOf(fast.body.id)).toMatchObject({ status: 'ready', ready_at: at(66), transcript: { ready_at: at(68) } });
    expect(recOf(normal.body.id)).toMatchObject({ status: 'processing', transcript: null });
    await sandbox.advance('27s');
    expect(recOf(normal.body.id)).toMatchObject({ ready_at: at(75), transcript: { ready_at: at(95) } });
  });

  it('changes the delays of every later call, field by field; reset() restores the defaults', async ({ sandbox, api }) => {
    sandbox.recordings.setTiming({ recordingDelay: '0s' });
    sandbox.recordings.setTiming({ transcriptDelay: '5s' });
    const { body } = await api.placeCall();
    await sandbox.advance('70s');
    const recording = sandbox.recordings.get(sandbox.calls.get(body.id)!.recording_id!)!;
    expect(recording).toMatchObject({ ready_at: at(65), transcript: { ready_at: at(70) } });

    sandbox.reset();
    const again = await api.placeCall();
    await sandbox.advance('94s');
    expect(sandbox.recordings.get(sandbox.calls.get(again.body.id)!.recording_id!)!.transcript).toBeNull();
    await sandbox.advance('1s');
    expect(sandbox.recordings.get(sandbox.calls.get(again.body.id)!.recording_id!)!.transcript).not.toBeNull();
  });

  it('refuses misuse with a SandboxError that names the fix', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    expect(() => sandbox.recordings.setTiming({ recordingDelay: 'soon' })).toThrow(/`recordingDelay` is not a duration/);
    expect(() => sandbox.recordings.setTiming({ delay: '1s' } as never)).toThrow(
      /Unknown option `delay`: remove it. Accepted: recordingDelay, transcriptDelay/,
    );
    expect(() => sandbox.recordings.setTiming({}, 'call_nope')).toThrow(/no call "call_nope"/);
    await sandbox.advance('65s');
    expect(() => sandbox.recordings.setTiming({ recordingDelay: '1s' }, body.id)).toThrow(SandboxError);
    expect(() => sandbox.recordings.setTiming({ recordingDelay: '1s' }, body.id)).toThrow(/already ended/);
  });
});

it('same seed and same requests give the same recordings, transcripts and events', async () => {
  const run = async (seed: number) => {
    const box = startSandbox({ seed, baseUrl: `https://seed${seed}-${Math.abs(seed)}.svc.test` });
    try {
      const c = client(box);
      await c.placeCall();
      await c.placeCall({ ai_receptionist: true, to: '+14155550124' });
      await box.advance('2m');
      return { recordings: (await c.get('/v1/recordings')).body, events: box.events.list() };
    } finally {
      box.close();
    }
  };
  const first = await run(7);
  expect(first.recordings.data).toHaveLength(2);
  expect(await run(7)).toEqual(first);
});
