import { SandboxError } from '../../src/index.js';
import { describe, expect, it, type SandboxContext } from '../fixture.js';
import { client, startSandbox, TO } from '../helpers.js';

/** Places a call to TO (behaviour as given), lets it finish and its transcript become ready. */
async function finishedTranscript({ sandbox, api }: SandboxContext, body: Record<string, unknown> = {}, before?: (callId: string) => void) {
  const { body: call } = await api.placeCall(body);
  before?.(call.id);
  await sandbox.advance('3h');
  const done = sandbox.calls.get(call.id)!;
  const res = await api.get(`/v1/transcripts/${done.transcript_id}`);
  expect(res.status).toBe(200);
  return { call: done, transcript: res.body };
}

describe('a supplied script', () => {
  it('comes back as the transcript, times as given', async ({ sandbox, api }) => {
    const script = [
      { speaker: 'Alice', text: 'Hi, I was charged twice this month.', start: 0.5, end: 3 },
      { speaker: 'Bob', text: 'Sorry about that. I have issued a refund.', start: 3.5, end: 7.25 },
    ];
    sandbox.network.setBehavior(TO, { talk: '30s' });
    const { call, transcript } = await finishedTranscript({ sandbox, api }, {}, (id) => sandbox.transcripts.setScript(id, script));
    expect(transcript).toMatchObject({ id: call.transcript_id, call_id: call.id, recording_id: call.recording_id, status: 'ready' });
    expect(transcript.segments).toEqual(script);
    expect(transcript.text).toBe('Alice: Hi, I was charged twice this month.\nBob: Sorry about that. I have issued a refund.');
    expect(transcript.summary).toBe(
      'A 30-second call between Alice and Bob. Alice wanted to sort out a billing problem. A refund was issued.',
    );
  });

  it('without times, is paced and fitted to the call, in order and within its duration', async ({ sandbox, api }) => {
    const script = [
      { speaker: 'agent', text: 'Northwind, how can I help?' },
      { speaker: 'customer', text: 'My router is broken.' },
      { speaker: 'agent', text: 'Restart it, please.' },
      { speaker: 'customer', text: 'It is working now, thanks.' },
    ];
    sandbox.network.setBehavior(TO, { talk: '20s' });
    const { transcript } = await finishedTranscript({ sandbox, api }, {}, (id) => sandbox.transcripts.setScript(id, script));
    expect(transcript.segments.map((s: any) => [s.speaker, s.text])).toEqual(script.map((l) => [l.speaker, l.text]));
    const last = transcript.segments[transcript.segments.length - 1];
    expect(last.end).toBeLessThanOrEqual(20);
    expect(last.end).toBeGreaterThan(15); // scaled to fill the call, not bunched at the start
    for (let i = 1; i < transcript.segments.length; i++)
      expect(transcript.segments[i].start).toBeGreaterThanOrEqual(transcript.segments[i - 1].end);
    expect(transcript.summary).toMatch(
      /The customer wanted to get help with a technical problem\. The problem was resolved during the call\.$/,
    );
  });

  it('is cut at the hang-up when the call ends early', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: '5s', talk: 'manual' });
    const { body } = await api.placeCall();
    sandbox.transcripts.setScript(body.id, [
      { speaker: 'a', text: 'One.', start: 0, end: 2 },
      { speaker: 'b', text: 'Two.', start: 3, end: 8 },
      { speaker: 'a', text: 'Three.', start: 9, end: 10 },
    ]);
    await sandbox.advance('10s');
    sandbox.calls.hangUp(body.id); // 5 s after the answer
    await sandbox.advance('1m');
    const transcript = sandbox.transcripts.get(sandbox.calls.get(body.id)!.transcript_id!)!;
    expect(transcript.segments).toEqual([
      { speaker: 'a', text: 'One.', start: 0, end: 2 },
      { speaker: 'b', text: 'Two.', start: 3, end: 5 },
    ]);
  });

  it('is refused with a SandboxError naming the fix', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    const set = (lines: unknown) => () => sandbox.transcripts.setScript(body.id, lines as never);
    expect(set([])).toThrow(/`lines` must hold 1 to 1000 items, got 0/);
    expect(set([{ speaker: 'a' }])).toThrow(/`lines\[0\].text` is required/);
    expect(set([{ speaker: '', text: 'x' }])).toThrow(/`lines\[0\].speaker` must not be empty/);
    expect(set([{ speaker: 'a', text: 'x', mood: 'happy' }])).toThrow(/Unknown option `lines\[0\].mood`/);
    expect(
      set([
        { speaker: 'a', text: 'x', start: 0, end: 1 },
        { speaker: 'b', text: 'y' },
      ]),
    ).toThrow(/`lines\[1\]`: give start and end .* or on none/);
    expect(set([{ speaker: 'a', text: 'x', start: 2, end: 1 }])).toThrow(/0 <= start < end/);
    expect(
      set([
        { speaker: 'a', text: 'x', start: 5, end: 6 },
        { speaker: 'b', text: 'y', start: 1, end: 2 },
      ]),
    ).toThrow(/`lines\[1\]` starts at 1 s, before the line before it/);
    expect(() => sandbox.transcripts.setScript('call_nope', [{ speaker: 'a', text: 'x' }])).toThrow(SandboxError);
    await sandbox.advance('5s');
    expect(set([{ speaker: 'a', text: 'x' }])).toThrow(/is answered; set its script while it rings/);
  });
});

describe('fixture conversations', () => {
  it('an AI receptionist call books an appointment', async ({ sandbox, api }) => {
    const { call, transcript } = await finishedTranscript({ sandbox, api }, { ai_receptionist: true });
    expect(call.answered_by).toBe('ai_receptionist');
    expect(new Set(transcript.segments.map((s: any) => s.speaker))).toEqual(new Set(['receptionist', 'caller']));
    expect(transcript.segments[0].text).toContain('I am Ava, the virtual receptionist');
    expect(transcript.summary).toMatch(
      /^A 60-second call between the receptionist and the caller\. The caller wanted to book an appointment\. The appointment was booked for (Monday|Tuesday|Wednesday|Thursday|Friday) at \d{1,2}:\d{2} [ap]m\.$/,
    );
  });

  it('a call answered by voicemail carries a message', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { answeredBy: 'voicemail', talk: '25s' });
    const { transcript } = await finishedTranscript({ sandbox, api });
    expect(transcript.segments[0].speaker).toBe('voicemail');
    expect(transcript.summary).toBe(
      'A 25-second call between the voicemail and the caller. The call reached voicemail, and the caller left a message about a plan or an offer. A call back was requested.',
    );
  });

  it('other calls get a conversation chosen by the seed; the same seed gives the same transcript and summary', async () => {
    const summaries = async (seed: number) => {
      const box = startSandbox({ seed, baseUrl: `https://seed-${seed}.svc.test` });
      try {
        const c = client(box);
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push((await c.placeCall({ to: `+1415555013${i}` })).body.id);
        await box.advance('3h');
        return ids
          .map((id) => box.recordings.get(box.calls.get(id)!.recording_id!)!)
          .map((r) => ({ summary: r.summary, segments: r.transcript!.segments }));
      } finally {
        box.close();
      }
    };
    const first = await summaries(11);
    expect(await summaries(11)).toEqual(first);
    // Across calls and seeds, every human-answered conversation of the fixtures shows up.
    const all = [...first, ...(await summaries(12)), ...(await summaries(13))].map((r) => r.summary);
    expect(all.some((s) => s!.includes('discuss a plan or an offer'))).toBe(true);
    expect(all.some((s) => s!.includes('get help with a technical problem'))).toBe(true);
    expect(all.some((s) => s!.includes('sort out a billing problem'))).toBe(true);
    for (const r of first) for (const s of r.segments) expect(s.end).toBeLessThanOrEqual(60);
  });

  it('a long call keeps a natural pace: the conversation is at most twice as slow, then silence', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { talk: '10m' });
    const { transcript } = await finishedTranscript({ sandbox, api });
    const last = transcript.segments[transcript.segments.length - 1];
    expect(last.end).toBeLessThan(200);
  });
});

describe('GET /v1/transcripts/{id} as JSON', () => {
  it('while live shows the lines said so far; the call and recording ids find the same transcript', async ({ sandbox, api }) => {
    const { body } = await api.placeCall();
    sandbox.transcripts.setScript(body.id, [
      { speaker: 'a', text: 'One.', start: 0, end: 2 },
      { speaker: 'b', text: 'Two.', start: 3, end: 8 },
    ]);
    await sandbox.advance('5s');
    const call = sandbox.calls.get(body.id)!;
    const live = await api.get(`/v1/transcripts/${call.transcript_id}`);
    expect(live.body).toMatchObject({
      status: 'live',
      segments: [],
      text: '',
      recording_id: null,
      summary: null,
      created_at: call.answered_at,
    });
    await sandbox.advance('2s');
    expect((await api.get(`/v1/transcripts/${call.transcript_id}`)).body.segments).toEqual([
      { speaker: 'a', text: 'One.', start: 0, end: 2 },
    ]);
    expect((await api.get(`/v1/transcripts/${call.id}`)).body).toEqual((await api.get(`/v1/transcripts/${call.transcript_id}`)).body);

    await sandbox.advance('2m');
    const ended = sandbox.calls.get(body.id)!;
    const byRecording = await api.get(`/v1/transcripts/${ended.recording_id}`);
    expect(byRecording.body).toMatchObject({ id: call.transcript_id, status: 'ready' });
    expect(byRecording.body).toEqual((await api.get(`/v1/transcripts/${call.transcript_id}`)).body);
  });
});

describe('a finished transcript in the scripting API and the event log', () => {
  it('is the same in its event, its reads and its recording; a copy the test changes changes none', async ({ sandbox, api }) => {
    const { call } = await finishedTranscript({ sandbox, api });
    const read = sandbox.transcripts.get(call.transcript_id!)!;
    const [event] = sandbox.events.list({ type: 'transcript.ready' });
    const answered = (await api.get(`/v1/transcripts/${call.transcript_id}`)).body;
    expect(read.segments.length).toBeGreaterThan(1);
    expect(event!.data).toEqual(read);
    expect(sandbox.recordings.get(call.recording_id!)!.transcript).toEqual(read);
    // Inside the sandbox one frozen copy is shared by all of them; what a test is given is its own.
    read.segments.push({ speaker: 'x', text: 'y', start: 0, end: 1 });
    read.segments[0]!.text = 'changed';
    sandbox.recordings.get(call.recording_id!)!.transcript!.segments.length = 0;
    expect(sandbox.transcripts.get(call.transcript_id!)).toEqual(answered);
    expect(sandbox.events.list({ type: 'transcript.ready' })[0]!.data).toEqual(answered);
    expect((await api.get(`/v1/transcripts/${call.transcript_id}`)).body).toEqual(answered);
    expect((await api.get(`/v1/recordings/${call.recording_id}`)).body.transcript).toEqual(answered);
  });

  it('while live, follows the clock at each read', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: '5s', talk: '2m' });
    const { body } = await api.placeCall();
    await sandbox.advance('40s');
    const transcriptId = sandbox.calls.get(body.id)!.transcript_id!;
    const first = sandbox.transcripts.get(transcriptId)!;
    await sandbox.advance('30s');
    const later = sandbox.transcripts.get(transcriptId)!;
    expect(later.status).toBe('live');
    expect(later.segments.length).toBeGreaterThan(first.segments.length);
    expect(later.segments.slice(0, first.segments.length)).toEqual(first.segments);
  });
});
