import { Agent, request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { bigScenario } from '../support/big-scenario.js';
import { SOAK, soakSize } from '../support/soak.js';
import { within } from '../support/within.js';

// Regression: one scenario of 6,500 request steps held the server 12 s: /health waited up to 11 s, other sessions waited, a keep-alive poll got ECONNRESET, and a DELETE of the session waited for the scenario, which then answered `passed: true`.

/** How long a poll may wait while long work runs on another session. */
const WITHIN_MS = 250;

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

interface Answer {
  status: number;
  /** Parsed when first read: a poll in flight is not held by this process parsing a long answer (8 MB for 6,500 steps). */
  readonly body: any;
  ms: number;
  reused: boolean;
}
/** One request on the kept-alive agent: its answer, how long it took, and whether it went on a reused socket. */
function send(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  via: Agent | false = agent,
): Promise<Answer> {
  const started = performance.now();
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method, agent: via, headers: { ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          let parsed: unknown;
          resolve({
            status: res.statusCode!,
            get body() {
              if (parsed === undefined) {
                const raw = Buffer.concat(chunks).toString('utf8');
                parsed = raw ? JSON.parse(raw) : null;
              }
              return parsed;
            },
            ms: performance.now() - started,
            reused: req.reusedSocket,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
/** A request on a connection of its own, so a long answer does not hold the polls' socket. */
const aside = (method: string, path: string, body?: unknown) => send(method, path, body, {}, false);

/** Another session, and a key of it with no rate limit: its clock stands still, so a standard key's window would fill. */
async function otherSession(): Promise<string> {
  const other = (await aside('POST', '/__sandbox/sessions', {})).body;
  return (await aside('POST', `/__sandbox/sessions/${other.id}/keys`, { plan: 'enterprise' })).body.key;
}

/** Polls /health and a /v1 GET of another session, one after the other on the kept-alive socket, until `work` settles. */
async function pollWhile<T>(work: Promise<T>, otherKey: string): Promise<{ polls: Answer[]; value: T }> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  const polls: Answer[] = [];
  while (!settled) {
    polls.push(await send('GET', '/__sandbox/health'));
    polls.push(await send('GET', '/v1/calls?limit=1', undefined, { authorization: `Bearer ${otherKey}` }));
  }
  return { polls, value: await done };
}

/**
 * Every poll answered 200 on the one kept-alive socket. The bound on how long each waited is
 * checked at full size only (`npm run test:soak`, which CI runs on a machine of its own): in
 * `npm test`, beside other work on a shared machine, a time bound would measure the machine;
 * there the polls answered while the work ran (counted by each test) prove that it yields.
 */
function expectAnsweredWithin(polls: Answer[]): void {
  expect(
    polls.map((p) => p.status).filter((s) => s !== 200),
    'statuses other than 200',
  ).toEqual([]);
  expect(polls.slice(1).filter((p) => !p.reused).length, 'polls that needed a new connection').toBe(0);
  if (!SOAK) return;
  const slowest = Math.max(...polls.map((p) => p.ms));
  expect(slowest, `the slowest of ${polls.length} polls`).toBeLessThan(WITHIN_MS);
}

describe('long work on one session leaves the server answering', () => {
  const size = soakSize(400, 6_500);

  it(`a ${size}-step scenario: /health and another session's /v1 answer while it runs (within ${WITHIN_MS} ms at full size) on a kept-alive socket, and the scenario passes`, async () => {
    const runner = (await aside('POST', '/__sandbox/sessions', {})).body;
    const other = await otherSession();
    const scenario = aside('POST', `/__sandbox/sessions/${runner.id}/scenario`, bigScenario(size));
    const { polls, value } = await pollWhile(scenario, other);
    expect(value.status).toBe(200);
    expect(value.body).toMatchObject({ passed: true, failure: null });
    // Polls went on while it ran, not only before or after it.
    expect(polls.length).toBeGreaterThanOrEqual(6);
    expectAnsweredWithin(polls);
  }, 180_000);

  it(`an advance over ${size} calls' lifecycles: the same`, async () => {
    const runner = (await aside('POST', '/__sandbox/sessions', {})).body;
    const other = await otherSession();
    // The calls placed 20 ms apart, as the scenario above places them: their lifecycles fall due at distinct instants.
    expect((await aside('POST', `/__sandbox/sessions/${runner.id}/scenario`, bigScenario(size, { end: false }))).body.passed).toBe(true);
    const advance = aside('POST', `/__sandbox/sessions/${runner.id}/advance`, { duration: '2h' });
    const { polls, value } = await pollWhile(advance, other);
    expect(value.status).toBe(200);
    // What the scenario's 130 s (light: 8 s) left of each call: its answer, end, recording and transcript, or the last of them.
    expect(value.body.events.length).toBeGreaterThan(size);
    expect(polls.length).toBeGreaterThanOrEqual(6);
    expectAnsweredWithin(polls);
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
    'a %s of the session while its scenario runs is answered (at once, at full size), and the scenario answers 409 interrupted, never passed',
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
      // It did not wait for the scenario to end: the scenario ends interrupted (below), never passed. How soon is checked at full size only.
      if (SOAK) expect(stopped.ms).toBeLessThan(WITHIN_MS);
      const answer = await within(scenario, 30_000, 'the stopped scenario');
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'interrupted', message: expect.stringMatching(why) });
      expect(answer.body.error.message).toMatch(/^run: the scenario was stopped (before|at) steps\[\d+\]/);
    },
    60_000,
  );
});
