import { describe, expect, it } from 'vitest';
import { createSandbox, formatTimeline, SandboxError, type Scenario } from '../../src/index.js';

/** sandbox.run (docs/scenarios.md): validation, expectations, the timeline. */

const call = { method: 'POST', path: '/v1/calls', body: { to: '+14155550123', from: '+14155550100' }, as: 'first' } as const;

/** Runs a scenario as a file gives it: untyped JSON (`JSON.parse`), checked by `run`. */
async function run(scenario: unknown) {
  const sandbox = createSandbox({ seed: 1 });
  try {
    return await sandbox.run(scenario as Scenario);
  } finally {
    sandbox.close();
  }
}

describe('an invalid scenario is refused, naming the JSON path and the fix', () => {
  it.each([
    [{ steps: [] }, 'name', /`name` is required/],
    [{ name: 'x', steps: [{ at: 'soon' }] }, 'steps[0].at', /`steps\[0\].at` is not a duration: pass milliseconds/],
    [{ name: 'x', steps: [{ at: '1m' }, { at: '5s' }] }, 'steps[1].at', /earlier than the step before it: steps run in time order/],
    [
      { name: 'x', steps: [{ at: 0, request: { ...call, method: 'PATCH' } }] },
      'steps[0].request.method',
      /must be one of "GET", "POST", "PUT", "DELETE"/,
    ],
    [{ name: 'x', steps: [{ at: 0, reqest: call }] }, 'steps[0].reqest', /did you mean `request`\?/],
    [
      { name: 'x', steps: [{ at: 0, request: call, expect: {} }] },
      'steps[0].expect',
      /has both `request` and `expect`: give one action per step/,
    ],
    [{ name: 'x', network: { '4155550123': { outcome: 'busy' } }, steps: [{ at: 0 }] }, 'network.4155550123', /is not an E.164 number/],
    [
      { name: 'x', network: { '+14155550123': { outcome: 'bussy' } }, steps: [{ at: 0 }] },
      'network.+14155550123.outcome',
      /did you mean "busy"\?/,
    ],
    [
      { name: 'x', steps: [{ at: 0, expect: { events: ['call.ended'] } }] },
      'steps[0].expect.events[0]',
      /an event type such as "call.completed"/,
    ],
  ])('%j → %s', async (scenario, param, message) => {
    const error = await run(scenario).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ param, message: expect.stringMatching(message) });
  });
});

describe('a run', () => {
  const scenario: Scenario = {
    name: 'one call',
    network: { '+14155550123': { outcome: 'answered', talk: '20s' } },
    steps: [
      { at: 0, request: call },
      {
        at: '1m',
        expect: {
          events: ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'],
          resources: [{ path: '/v1/calls/{{first.id}}', fields: { status: 'completed', duration: 20 } }],
        },
      },
    ],
  };

  it("passes when every expectation holds, with its timeline in the demo's format", async () => {
    const result = await run(scenario);
    expect(result).toMatchObject({
      name: 'one call',
      passed: true,
      failure: null,
      held: 2,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:01:00.000Z',
    });
    const text = formatTimeline(result);
    expect(text).toMatch(/^\+ {4}0s {2}network \+14155550123: outcome=answered talk=20s$/m);
    expect(text).toMatch(/^\+ {4}0s {2}POST \/v1\/calls -> 201 call_\w+ ringing$/m);
    expect(text).toMatch(/^\+ {4}5s {2}call\.answered {5}call_\w+ answered by=human$/m);
    expect(text).toMatch(/^\+ {3}25s {2}call\.completed {4}call_\w+ completed disposition=answered duration=20s$/m);
    expect(text).toMatch(/^\+ {3}60s {2}ok {3}events: 5 in order$/m);
  });

  it('stops at the first expectation that fails, with what was seen instead', async () => {
    const failing = structuredClone(scenario);
    failing.steps[1]!.expect!.resources![0]!.fields.duration = 21;
    const result = await run(failing);
    expect(result.passed).toBe(false);
    expect(result.failure).toEqual({
      step: 1,
      path: 'steps[1].expect.resources[0].fields.duration',
      message: 'steps[1].expect.resources[0].fields.duration: expected 21, saw 20.',
      expected: 21,
      seen: 20,
    });
    expect(result.timeline.at(-1)).toMatchObject({
      kind: 'failure',
      text: expect.stringContaining('FAILED steps[1].expect.resources[0].fields.duration'),
    });
  });

  it('fails on events out of order, naming the first that differs and the events seen', async () => {
    const result = await run({
      ...scenario,
      steps: [scenario.steps[0], { at: '1m', expect: { events: ['call.started', 'call.completed'] } }],
    });
    expect(result.failure).toMatchObject({
      path: 'steps[1].expect.events[1]',
      seen: ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'],
    });
  });

  it('fails a request the API refuses unless its status is expected', async () => {
    const bad = { ...call, body: { to: '4155550123', from: '+14155550100' } };
    const refused = await run({ name: 'bad', steps: [{ at: 0, request: bad }] });
    expect(refused.failure).toMatchObject({
      path: 'steps[0].request',
      expected: '2xx',
      seen: 400,
      message: expect.stringContaining('invalid_parameter'),
    });
    const expected = await run({ name: 'bad', steps: [{ at: 0, request: { ...bad, status: 400 } }] });
    expect(expected.passed).toBe(true);
  });

  it('fails a reference to a name no earlier step made, listing the names made', async () => {
    const result = await run({
      name: 'ref',
      steps: [
        { at: 0, request: call },
        { at: 1, hangUp: '{{frist.id}}' },
      ],
    });
    expect(result.failure).toMatchObject({
      path: 'steps[1].hangUp',
      message: expect.stringContaining('names `frist`, which no earlier step made'),
    });
    expect(result.failure!.message).toContain('first');
  });
});

describe('answers that are no JSON', () => {
  it("regression: a request for a recording's audio is a step like any other (its status checked), not a failure of the runner", async () => {
    const result = await run({
      name: 'audio',
      steps: [
        { at: 0, request: call },
        { at: '2m', request: { method: 'GET', path: '/v1/calls/{{first.id}}', as: 'done' } },
        { at: '2m', request: { method: 'GET', path: '/v1/recordings/{{done.recording_id}}/audio', status: 200 } },
      ],
    });
    expect(result.failure).toBeNull();
    expect(result.passed).toBe(true);
    expect(formatTimeline(result)).toMatch(/GET \/v1\/recordings\/rec_\w+\/audio -> 200/);
  });
});
