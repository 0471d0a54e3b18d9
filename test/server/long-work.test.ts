import { Agent } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bigScenario, pollWhile, send as sendTo, sessionsForLongWork, type Answer } from '../../bench/long-work.mjs';
import { startServer, type SandboxServer } from '../../src/index.js';
import { soakSize } from '../support/soak.js';
import { within } from '../support/within.js';

// Regression: one scenario of 6,500 request steps held the server 12 s: /health waited up to 11 s, other sessions waited, a keep-alive poll got ECONNRESET, and a DELETE of the session waited for the scenario, which then answered `passed: true`.
// How fast each poll and the DELETE are answered is measured by `npm run bench` (bench/long-work.mjs, the same shape at full size), never here: a time bound in a test measures the machine.

let server: SandboxServer;
let agent: Agent;
beforeEach(async () => {
  server = await startServer({ port: 0, seed: 9 });
  // One connection, kept alive: every poll goes on the same socket.
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
});
afterEach(async () => {
  agent.destroy();
  await server.close();
});

/** One request on the kept-alive agent. */
const send = (method: string, path: string) => sendTo(server.url, method, path, { agent });
/** A request on a connection of its own, so a long answer does not hold the polls' socket. */
const aside = (method: string, path: string, body?: unknown) => sendTo(server.url, method, path, { body, agent: false });

/** Every poll answered 200, on the one kept-alive socket. */
function expectAnsweredOnOneSocket(polls: Answer[]): void {
  expect(
    polls.map((p) => p.status).filter((s) => s !== 200),
    'statuses other than 200',
  ).toEqual([]);
  expect(polls.slice(1).filter((p) => !p.reused).length, 'polls that needed a new connection').toBe(0);
}

/** The virtual now of a session, epoch ms. */
async function virtualNow(session: string): Promise<number> {
  return Date.parse((await aside('GET', `/__sandbox/sessions/${session}`)).body.now);
}

/**
 * The proof that the work yielded, whatever the machine's speed: a request of the polls' round
 * found the working session's clock strictly between where the work began and where it ended, so
 * it was answered in the middle of the work, not before or after it.
 */
function expectAnsweredMidway(witnessed: Answer[], started: number, ended: number): void {
  const seen = witnessed.map((w) => Date.parse(w.body.now));
  expect(
    seen.some((now) => now > started && now < ended),
    `the working session's clock as the polls saw it: ${seen.map((now) => now - started).join(', ')} ms after its start (it ended at ${ended - started})`,
  ).toBe(true);
}

describe('long work on one session leaves the server answering', () => {
  // Light, as many steps as the DELETE below stops: many slices of work on any machine.
  const size = soakSize(1_000, 6_500);

  it(`a ${size}-step scenario: /health and another session's /v1 answer while it runs, on a kept-alive socket, and the scenario passes`, async () => {
    const { runner, otherKey } = await sessionsForLongWork(server.url);
    const started = await virtualNow(runner);
    const scenario = aside('POST', `/__sandbox/sessions/${runner}/scenario`, bigScenario(size));
    const { polls, witnessed, value } = await pollWhile(scenario, server.url, agent, otherKey, `/__sandbox/sessions/${runner}`);
    expect(value.status).toBe(200);
    expect(value.body).toMatchObject({ passed: true, failure: null });
    expectAnsweredOnOneSocket([...polls, ...witnessed]);
    expectAnsweredMidway(witnessed, started, await virtualNow(runner));
  }, 180_000);

  it(`an advance over ${size} calls' lifecycles: the same`, async () => {
    const { runner, otherKey } = await sessionsForLongWork(server.url);
    // The calls placed 20 ms apart, as the scenario above places them: their lifecycles fall due at distinct instants.
    expect((await aside('POST', `/__sandbox/sessions/${runner}/scenario`, bigScenario(size, { end: false }))).body.passed).toBe(true);
    const started = await virtualNow(runner);
    const advance = aside('POST', `/__sandbox/sessions/${runner}/advance`, { duration: '2h' });
    const { polls, witnessed, value } = await pollWhile(advance, server.url, agent, otherKey, `/__sandbox/sessions/${runner}`);
    expect(value.status).toBe(200);
    // What the scenario's 130 s (light: 20 s) left of each call: its answer, end, recording and transcript, or the last of them.
    expect(value.body.events.length).toBeGreaterThan(size);
    expectAnsweredOnOneSocket([...polls, ...witnessed]);
    expectAnsweredMidway(witnessed, started, await virtualNow(runner));
  }, 180_000);

  it.each([
    [
      'DELETE',
      (s: string) => send('DELETE', `/__sandbox/sessions/${s}`),
      204,
      /the sandbox was closed \(on the server: its session was deleted\)/,
    ],
    ['reset', (s: string) => send('POST', `/__sandbox/sessions/${s}/reset`), 204, /the sandbox was reset while it ran/],
  ] as const)(
    'a %s of the session while its scenario runs is answered, and the scenario answers 409 interrupted, never passed',
    async (_, stop, status, why) => {
      const runner = (await aside('POST', '/__sandbox/sessions', {})).body;
      const scenario = aside('POST', `/__sandbox/sessions/${runner.id}/scenario`, bigScenario(1_000));
      // Until its first requests are in: the run is under way.
      for (;;) {
        const seen = await send('GET', `/__sandbox/sessions/${runner.id}/requests?limit=1`);
        if (seen.status !== 200 || seen.body.data.length > 0) break;
      }
      const stopped = await stop(runner.id);
      expect(stopped.status).toBe(status);
      // It did not wait for the scenario to end: the scenario ends interrupted (below), never passed.
      const answer = await within(scenario, 30_000, 'the stopped scenario');
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'interrupted', message: expect.stringMatching(why) });
      expect(answer.body.error.message).toMatch(/^run: the scenario was stopped (before|at) steps\[\d+\]/);
    },
    60_000,
  );
});
