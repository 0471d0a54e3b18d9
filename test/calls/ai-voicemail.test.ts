import { createSandbox } from '../../src/index.js';
import { conformingServer } from '../server/conforming.js';
import { describe, expect, it } from '../fixture.js';
import { FROM, KEY, TO } from '../helpers.js';

// "Scripted voicemail is ignored on AI receptionist calls": a scripted answerer picks up before
// the AI receptionist would, so "an outbound AI call reaches voicemail" can be tested.

describe('an AI receptionist call to a number scripted to voicemail', () => {
  it('is answered by voicemail; the receptionist, still its handler, leaves the message; transcript and summary say so', async ({
    sandbox,
    api,
  }) => {
    sandbox.network.setBehavior(TO, { answeredBy: 'voicemail', talk: '25s' });
    const placed = await api.placeCall({ ai_receptionist: true });
    expect(placed.body).toMatchObject({ status: 'ringing', ai_receptionist: true, ai_handler: 'ava' });

    await sandbox.advance('5s');
    const answered = (await api.get(`/v1/calls/${placed.body.id}`)).body;
    expect(answered).toMatchObject({ status: 'answered', answered_by: 'voicemail', ai_handler: 'ava', agent: 'ava' });
    expect(sandbox.events.list({ type: 'call.answered' })[0]?.data).toMatchObject({ answered_by: 'voicemail', ai_handler: 'ava' });

    await sandbox.advance('1m');
    const done = (await api.get(`/v1/calls/${placed.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', disposition: 'answered', answered_by: 'voicemail', duration: 25 });
    const transcript = (await api.get(`/v1/transcripts/${done.transcript_id}`)).body;
    expect(transcript.status).toBe('ready');
    expect(transcript.segments.map((s: { speaker: string }) => s.speaker)).toEqual(['voicemail', 'receptionist', 'receptionist']);
    expect(transcript.segments[1].text).toMatch(/^Hi \w+, this is Ava from Northwind Mobile\./);
    const recording = (await api.get(`/v1/recordings/${done.recording_id}`)).body;
    expect(recording.summary).toMatch(
      /^A 25-second call between the voicemail and the receptionist\. The call reached voicemail, and the receptionist left a message about a plan or an offer\. A call back was requested\.$/,
    );
  });

  it('a scripted person answers an AI call as a person; unscripted, the receptionist answers as before', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { answeredBy: 'human' });
    const person = (await api.placeCall({ ai_receptionist: true })).body;
    const plain = (await api.placeCall({ ai_receptionist: true, to: '+14155550199' })).body;
    await sandbox.advance('5s');
    expect(sandbox.calls.get(person.id)).toMatchObject({ answered_by: 'human', agent: 'ava' });
    expect(sandbox.calls.get(plain.id)).toMatchObject({ answered_by: 'ai_receptionist', agent: 'ava' });
  });

  it('queued behaviours too: the first AI call reaches voicemail, the retry the receptionist', async ({ sandbox, api }) => {
    sandbox.network.queueBehavior(TO, { answeredBy: 'voicemail', talk: '20s' }, {});
    const first = (await api.placeCall({ ai_receptionist: true })).body;
    await sandbox.advance('30s');
    const retry = (await api.placeCall({ ai_receptionist: true })).body;
    await sandbox.advance('5s');
    expect([sandbox.calls.get(first.id)?.answered_by, sandbox.calls.get(retry.id)?.answered_by]).toEqual(['voicemail', 'ai_receptionist']);
  });

  it('an inbound call to a number routed to the receptionist, scripted to voicemail, reaches voicemail', async ({ sandbox, api }) => {
    const number = (await api.post('/v1/numbers', { kind: 'local', area_code: '415', routing: { type: 'ai_receptionist' } })).body;
    const call = sandbox.calls.inbound({ from: '+442071234567', to: number.number, behavior: { answeredBy: 'voicemail' } });
    await sandbox.advance('5s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ ai_receptionist: true, answered_by: 'voicemail', agent: 'ava' });
  });
});

describe('through the scenario runner', () => {
  it('a file scripting voicemail for an AI call expects answered_by voicemail, and passes', async () => {
    const sandbox = createSandbox({ seed: 9 });
    try {
      const result = await sandbox.run({
        name: 'An outbound AI call reaches voicemail',
        network: { [TO]: { answeredBy: 'voicemail', talk: '20s' } },
        steps: [
          { at: '0s', request: { method: 'POST', path: '/v1/calls', body: { to: TO, from: FROM, ai_receptionist: true }, as: 'call' } },
          {
            at: '1m',
            expect: {
              events: ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'],
              resources: [
                { path: '/v1/calls/{{call.id}}', fields: { answered_by: 'voicemail', ai_handler: 'ava', disposition: 'answered' } },
              ],
            },
          },
        ],
      });
      expect(result).toMatchObject({ passed: true, failure: null });
      expect(result.timeline.map((e) => e.text)).toContainEqual(
        expect.stringMatching(/^call\.answered +call_\w+ answered by=voicemail agent=ava$/),
      );
    } finally {
      sandbox.close();
    }
  });
});

describe("through the control API's network route", () => {
  const { control, api } = conformingServer(9);

  it('PUT …/network/{number} {"answeredBy": "voicemail"}, then an AI call over /v1 is answered by voicemail', async () => {
    const put = await control.put(`/sessions/default/network/${encodeURIComponent(TO)}`, { answeredBy: 'voicemail' });
    expect(put.status).toBe(204);
    const call = (await api(KEY).post('/v1/calls', { to: TO, from: FROM, ai_receptionist: true })).body;
    await control.post('/sessions/default/advance', { duration: '5s' });
    expect((await api(KEY).get(`/v1/calls/${call.id}`)).body).toMatchObject({ answered_by: 'voicemail', ai_handler: 'ava' });
  });
});
