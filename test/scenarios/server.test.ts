import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, verifyWebhook } from '../../src/index.js';
import { conformingServer } from '../server/conforming.js';
import { startReceiver } from '../webhooks/receivers.js';

/**
 * Scenarios and triggers over the control API (docs/scenarios.md), driven as a
 * Python suite drives them: POST /__sandbox/sessions/{s}/scenario with a file's JSON, POST
 * .../trigger {type, data?}. Every control answer is checked against the server's document.
 */

const harness = conformingServer(5);
const { api, control } = harness;

const example = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/scenarios/${name}`, import.meta.url), 'utf8'));

describe('POST /__sandbox/sessions/{s}/scenario', () => {
  it("runs a file as the session's key: the client then reads what it made through /v1", async () => {
    const session = (await control.post('/sessions', { seed: 7 })).body;
    const answer = await control.post(`/sessions/${session.id}/scenario`, example('busy-then-answered.json'));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'Busy, then answered on the retry', passed: true, failure: null });
    expect(answer.body.timeline.map((e: { kind: string }) => e.kind)).toContain('attempt');
    const calls = await api(session.apiKey).get('/v1/calls');
    expect(calls.body.data.map((c: { disposition: string }) => c.disposition)).toEqual(['answered', 'busy']);
  });

  it('answers 200 with passed false and what was seen when an expectation fails', async () => {
    const scenario = example('busy-then-answered.json');
    scenario.steps[1].expect.resources[0].fields.disposition = 'no_answer';
    const answer = await control.post('/sessions/default/scenario', scenario);
    expect(answer.status).toBe(200);
    expect(answer.body.failure).toMatchObject({
      step: 1,
      path: 'steps[1].expect.resources[0].fields.disposition',
      expected: 'no_answer',
      seen: 'busy',
    });
  });

  it('refuses an invalid file with 400 naming the JSON path and the fix', async () => {
    const answer = await control.post('/sessions/default/scenario', { name: 'x', steps: [{ at: '5 seconds' }] });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'steps[0].at',
      message: expect.stringMatching(/^`steps\[0\].at` is not a duration: pass milliseconds/),
    });
  });
});

describe('POST /__sandbox/sessions/{s}/trigger', () => {
  it.each(EVENT_TYPES)('makes one %s: 201 the event, equal to what /v1 reads, delivered signed', async (type) => {
    const session = (await control.post('/sessions', {})).body;
    const receiver = await startReceiver();
    const sub = await api(session.apiKey).post('/v1/webhooks', { url: receiver.url, events: [type] });
    const answer = await control.post(`/sessions/${session.id}/trigger`, { type });
    expect(answer.status).toBe(201);
    expect(answer.body.type).toBe(type);
    const data = answer.body.data;
    const read = type.startsWith('message.')
      ? (await api(session.apiKey).get('/v1/messages')).body.data.find((m: { id: string }) => m.id === data.id)
      : (
          await api(session.apiKey).get(
            `/v1/${type.startsWith('call.') ? 'calls' : type === 'recording.ready' ? 'recordings' : 'transcripts'}/${data.id}`,
          )
        ).body;
    expect(read).toEqual(data);
    await control.post(`/sessions/${session.id}/advance`, { duration: 0 });
    const [delivery] = receiver.received;
    expect(delivery!.body).toEqual(answer.body);
    expect(verifyWebhook(delivery!.raw, delivery!.headers['x-service-signature'] as string, sub.body.secret)).toBe(true);
  });

  it('takes data overrides: a busy call.completed', async () => {
    const answer = await control.post('/sessions/default/trigger', { type: 'call.completed', data: { disposition: 'busy' } });
    expect(answer.body.data).toMatchObject({ disposition: 'busy', duration: 0 });
  });

  it('refuses an unknown type or data field, naming the field', async () => {
    const type = await control.post('/sessions/default/trigger', { type: 'call.ended' });
    expect(type.status).toBe(400);
    expect(type.body.error).toMatchObject({ param: 'type', message: expect.stringContaining('`type` must be one of "call.started"') });
    const field = await control.post('/sessions/default/trigger', { type: 'call.completed', data: { dispositon: 'busy' } });
    expect(field.status).toBe(400);
    expect(field.body.error).toMatchObject({ param: 'data.dispositon', message: expect.stringContaining('did you mean `disposition`') });
  });

  it('regression: a refusal met after the story began (an await in) still names the JSON field, not the library argument', async () => {
    // +15005550001 is unreachable: POST /v1/calls answers 422 with param `to`, after the trigger has awaited.
    const refused = await control.post('/sessions/default/trigger', { type: 'call.started', data: { to: '+15005550001' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.param).toBe('data.to');
    expect(refused.body.error.message).not.toMatch(/^trigger:/);
  });
});
