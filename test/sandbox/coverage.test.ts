import { afterEach } from 'vitest';
import { createSandbox, mergeCoverage, type Sandbox } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client, KEY, TO } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';

/**
 * Coverage (docs/coverage.md): what a suite exercised, against everything the
 * sandbox could have done, read as a user reads it: `sandbox.coverage()` after the suite's requests.
 */
afterEach(closeReceivers);

const LIFECYCLE_GAPS = [
  'calls.dispositions: busy',
  'calls.dispositions: no_answer',
  'calls.answeredBy: voicemail',
  'webhooks: dead_lettered',
];

/** A suite whose calls are all answered, by a human, with webhooks delivered at once. */
async function answeredCallsOnly(sandbox: Sandbox) {
  const receiver = await startReceiver(() => 204);
  await subscribe(sandbox, receiver.url, ['call.completed']);
  const api = client(sandbox);
  for (let i = 0; i < 3; i++) expect((await api.placeCall()).status).toBe(201);
  await sandbox.advance('2m');
}

describe('sandbox.coverage()', () => {
  it('of a suite that only places answered calls lists busy, no_answer, voicemail and dead-lettered as never exercised', async ({
    sandbox,
  }) => {
    await answeredCallsOnly(sandbox);
    const report = sandbox.coverage();
    expect(report).toMatchObject({ format: 'svc-sandbox-coverage', version: 1, sandboxes: 1 });
    expect(report.uncovered).toEqual(
      expect.arrayContaining([...LIFECYCLE_GAPS, 'calls.transitions: ringing → completed (HUNG_UP)', 'messages.outcomes: failed']),
    );
    expect(report.uncovered).not.toContain('calls.dispositions: answered');
    expect(report.calls.dispositions).toEqual({ answered: 3, busy: 0, no_answer: 0, failed: 0, canceled: 0 });
    expect(report.calls.answeredBy).toEqual({ human: 3, voicemail: 0, ai_receptionist: 0 });
    expect(report.calls.states).toEqual({ ringing: 3, answered: 3, completed: 3 });
    expect(report.calls.transitions['ringing → answered (after ringTime [networkAnswers])']).toBe(3);
    expect(report.calls.transitions['answered → completed (after talkTime)']).toBe(3);
    expect(report.webhooks).toEqual({ delivered_first_time: 3, retried: 0, dead_lettered: 0, replayed: 0 });
    expect(report.events).toMatchObject({ 'call.started': 3, 'call.answered': 3, 'call.completed': 3, 'message.delivered': 0 });
    // Each documented status of each endpoint, seen or not.
    expect(report.endpoints['POST /v1/calls']).toMatchObject({ '201': 3, '400': 0, '401': 0, '422': 0, '429': 0, '503': 0 });
    expect(report.endpoints['POST /v1/webhooks']).toMatchObject({ '201': 1 });
    expect(report.endpoints['GET /v1/calls/{id}']).toMatchObject({ '200': 0, '404': 0 });
    expect(report.uncovered).toContain('endpoints: POST /v1/calls 429');
    expect(report.errors).toMatchObject({ rate_limited: 0, invalid_parameter: 0, network_error: 0 });
  });

  it('leads its gaps with what the suite never made happen (voicemail, a failed SMS, a transfer), and keeps the 5xx for last', async ({
    sandbox,
  }) => {
    await answeredCallsOnly(sandbox);
    const { gaps } = sandbox.coverage();
    const gap = (title: string) => gaps.find((g) => g.title === title)?.never;
    expect(gaps.slice(0, 3).map((g) => g.title)).toEqual(['How calls ended', 'Who answered', 'How messages ended']);
    expect(gap('Who answered')).toContain('voicemail');
    expect(gap('How messages ended')).toContain('failed');
    expect(gap('Call transitions')).toContain('answered → answered (TRANSFERRED)');
    expect(gap('Operations never called')).toContain('POST /v1/calls/{id}/transfer');
    expect(gap('How calls ended')).toEqual(['busy', 'no_answer', 'failed', 'canceled']);
    const firstFault = gaps.findIndex((g) => g.needs === 'fault');
    expect(gaps.slice(firstFault).every((g) => g.needs === 'fault')).toBe(true);
    expect(gaps.slice(0, firstFault).flatMap((g) => g.never)).not.toContain('POST /v1/calls 503');
    expect(gap('Server errors (5xx) never answered')).toEqual([
      'POST /v1/calls 500',
      'POST /v1/calls 502',
      'POST /v1/calls 503',
      'POST /v1/calls 504',
      'POST /v1/webhooks 500',
      'POST /v1/webhooks 502',
      'POST /v1/webhooks 503',
      'POST /v1/webhooks 504',
    ]);
  });

  it('of a suite that does them all lists none of them: busy, no answer, voicemail, a dead letter replayed', async ({ sandbox }) => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 204 : 500));
    await subscribe(sandbox, receiver.url, ['call.started']);
    sandbox.network.setBehavior('+14155550124', { answeredBy: 'voicemail' });
    const api = client(sandbox);
    for (const to of [TO, '+15005550002', '+15005550003', '+14155550124']) expect((await api.placeCall({ to })).status).toBe(201);
    await sandbox.advance('1d');
    healthy = true;
    await sandbox.webhooks.replayAll();
    const report = sandbox.coverage();
    for (const gap of LIFECYCLE_GAPS) expect(report.uncovered).not.toContain(gap);
    expect(report.calls.dispositions).toMatchObject({ answered: 2, busy: 1, no_answer: 1 });
    expect(report.calls.answeredBy).toMatchObject({ human: 1, voicemail: 1 });
    expect(report.webhooks).toEqual({ delivered_first_time: 0, retried: 4, dead_lettered: 4, replayed: 4 });
  });

  it('counts every error code and every status an endpoint answered, and a network fault under network_error', async ({ sandbox }) => {
    const api = client(sandbox);
    await api.placeCall({ to: 'nope' });
    await api.placeCall({ to: '+15005550001' });
    await client(sandbox, null).get('/v1/calls');
    await api.get('/v1/nowhere');
    sandbox.faults.inject({ path: '/v1/calls', network: true });
    await expect(fetch(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } })).rejects.toThrow();
    const report = sandbox.coverage();
    expect(report.errors).toMatchObject({
      invalid_parameter: 1,
      unreachable_destination: 1,
      invalid_api_key: 1,
      not_found: 1,
      network_error: 1,
    });
    expect(report.endpoints['POST /v1/calls']).toMatchObject({ '201': 0, '400': 1, '422': 1 });
    expect(report.endpoints['GET /v1/calls']).toMatchObject({ '200': 0, '401': 1 });
    // A path no endpoint documents is no endpoint: it shows only as its error code.
    expect(Object.keys(report.endpoints).some((op) => op.includes('nowhere'))).toBe(false);
  });

  it('counts messages by outcome: delivered, failed and received', async ({ sandbox }) => {
    const api = client(sandbox);
    const from = (await api.post('/v1/numbers', { kind: 'local', area_code: '415' })).body.number as string;
    expect((await api.post('/v1/messages', { from, to: TO, body: 'hi' })).status).toBe(201);
    expect((await api.post('/v1/messages', { from, to: '+15005550009', body: 'hi' })).status).toBe(201);
    await sandbox.advance('5s');
    expect(sandbox.coverage().messages.outcomes).toEqual({ delivered: 1, failed: 1, received: 0 });
    sandbox.messages.inbound({ from: TO, to: from, body: 'STOP' });
    expect(sandbox.coverage().messages.outcomes).toEqual({ delivered: 1, failed: 1, received: 1 });
  });

  it("is of the sandbox's life: it outlives reset() and close(), and a new sandbox starts empty", async ({ sandbox }) => {
    await client(sandbox).placeCall({ to: '+15005550002' });
    await sandbox.advance('1m');
    sandbox.reset();
    await client(sandbox).placeCall();
    await sandbox.advance('2m');
    const report = sandbox.coverage();
    expect(report.calls.dispositions).toMatchObject({ busy: 1, answered: 1 });
    expect(report.endpoints['POST /v1/calls']!['201']).toBe(2);
    sandbox.close();
    expect(sandbox.coverage()).toEqual(report); // read after close, counted once
    const fresh = createSandbox({ seed: 1 });
    expect(fresh.coverage().calls.dispositions).toEqual({ answered: 0, busy: 0, no_answer: 0, failed: 0, canceled: 0 });
    fresh.close();
  });

  it("counts a canceled call and a transfer through the machine's own transitions", async ({ sandbox }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual' });
    const api = client(sandbox);
    const canceled = (await api.placeCall()).body;
    const transferred = (await api.placeCall()).body;
    sandbox.calls.hangUp(canceled.id);
    sandbox.calls.answer(transferred.id);
    expect((await api.post(`/v1/calls/${transferred.id}/transfer`, { agent: 'ops' })).status).toBe(200);
    sandbox.calls.hangUp(transferred.id);
    const { transitions } = sandbox.coverage().calls;
    expect(transitions).toMatchObject({
      'ringing → completed (HUNG_UP)': 1,
      'ringing → answered (ANSWERED)': 1,
      'answered → answered (TRANSFERRED)': 1,
      'answered → completed (HUNG_UP)': 1,
    });
    expect(sandbox.coverage().calls.dispositions).toMatchObject({ canceled: 1, answered: 1 });
  });

  it('mergeCoverage adds two sandboxes up: an item is uncovered only when neither exercised it', async ({ sandbox }) => {
    await answeredCallsOnly(sandbox);
    const other = createSandbox({ seed: 2, baseUrl: 'https://other.svc.test' }).listen();
    try {
      await client(other).placeCall({ to: '+15005550002' });
      await other.advance('1m');
      const union = mergeCoverage(sandbox.coverage(), other.coverage());
      expect(union.sandboxes).toBe(2);
      expect(union.calls.dispositions).toMatchObject({ answered: 3, busy: 1 });
      expect(union.uncovered).not.toContain('calls.dispositions: busy');
      expect(union.uncovered).toContain('calls.dispositions: no_answer');
      expect(union.endpoints['POST /v1/calls']!['201']).toBe(4);
    } finally {
      other.close();
    }
  });
});

describe('sandbox.coverage() and the lazy call machine', () => {
  it('a call placed just before the report has entered ringing, though its machine starts lazily', async ({ sandbox }) => {
    await client(sandbox).placeCall();
    expect(sandbox.coverage().calls.states).toEqual({ ringing: 1, answered: 0, completed: 0 });
    await sandbox.advance('2m');
    expect(sandbox.coverage().calls.states).toEqual({ ringing: 1, answered: 1, completed: 1 });
  });
});
