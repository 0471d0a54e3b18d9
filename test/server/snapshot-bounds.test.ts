import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type SandboxServer, type SandboxSnapshot, startServer } from '../../src/index.js';
import { packageVersion } from '../../src/core/package-version.js';
import { serverClient } from './client.js';
import { refusal } from '../support/refusal.js';

/**
 * Regression: a 221-byte snapshot froze the server for good. An `elided` input's `requests` (or a
 * request input's `times`) could be any integer up to 2^53-1, and the replay drew one request id
 * per request: POST /__sandbox/sessions {snapshot} held the event loop at 99.9% CPU, and every
 * session stopped answering. Each count is now bounded (docs/snapshots.md, "What a snapshot may
 * hold") and refused before anything is replayed, naming the field; the CLI's `show` and
 * `--import` are checked in test/server/cli-snapshots.test.ts.
 */

const AT = '2026-01-01T00:00:00.000Z';
/** The snapshot, as it was posted (with this version, so the version check passes). */
const frozen = (input: Record<string, unknown>): SandboxSnapshot =>
  JSON.parse(
    JSON.stringify({
      format: 'svc-sandbox-snapshot',
      version: packageVersion(),
      options: { seed: 1 },
      now: AT,
      inputs: [input],
      attempts: [],
    }),
  );
const ELIDED = { kind: 'elided', at: AT, requests: 9007199254740991 };
const TIMES = {
  kind: 'request',
  at: AT,
  method: 'GET',
  path: '/v1/calls',
  headers: [['authorization', 'Bearer SVC_TEST_a']],
  times: 9007199254740991,
};

let server: SandboxServer;
const client = serverClient(() => server.url);
beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

describe('a snapshot that counts more requests than any sandbox records is refused before it is replayed', () => {
  it.each([
    ['an elided input of 2^53-1 requests', ELIDED, 'snapshot.inputs[0].requests'],
    ['a request repeated 2^53-1 times', TIMES, 'snapshot.inputs[0].times'],
  ])('through the control API: %s, within 5 s, the server still answering', async (_what, input, param) => {
    const began = performance.now();
    const answer = await client.control.post('/sessions', { snapshot: frozen(input) });
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_parameter');
    expect(answer.body.error.param).toBe(param);
    expect(answer.body.error.message).toMatch(/more than the 1000000 a snapshot may count/);
    expect((await client.control.get('/health')).status).toBe(200);
    const made = await client.control.post('/sessions', {});
    expect(made.status).toBe(201);
    expect((await client.api(made.body.apiKey).get('/v1/calls')).status).toBe(200);
  });

  it('through createSandbox: a SandboxError naming the field, at once', () => {
    const began = performance.now();
    const error = refusal(() => createSandbox({ snapshot: frozen(ELIDED) }));
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.param).toBe('snapshot.inputs[0].requests');
    expect(error.message).toMatch(/`snapshot\.inputs\[0\]\.requests` is 9007199254740991, which brings the requests this snapshot counts/);
  });

  it('counts every input: two inputs each under the bound but over it together are refused at the second', () => {
    const snapshot = frozen(ELIDED);
    snapshot.inputs = [
      { kind: 'elided', at: Date.parse(AT), requests: 600_000 },
      { kind: 'elided', at: Date.parse(AT), requests: 400_001 },
    ];
    expect(refusal(() => createSandbox({ snapshot })).param).toBe('snapshot.inputs[1].requests');
  });

  it('takes a snapshot at the bound and keeps its count', async () => {
    const snapshot = frozen({ ...ELIDED, requests: 1_000_000 });
    const restored = createSandbox({ snapshot });
    expect(restored.snapshot().inputs).toEqual([{ kind: 'elided', at: Date.parse(AT), requests: 1_000_000 }]);
    expect((await restored.fetch('/v1/calls', { headers: { authorization: 'Bearer SVC_TEST_a' } })).status).toBe(200);
  });
});

it('a sandbox that counted more requests than a snapshot may hold refuses to take one, rather than write one no sandbox restores', async () => {
  const snapshot = frozen({ ...ELIDED, requests: 1_000_000 });
  const sandbox = createSandbox({ snapshot });
  await sandbox.fetch('/v1/calls', { headers: { authorization: 'Bearer SVC_TEST_a' } });
  const error = refusal(() => sandbox.snapshot());
  expect(error).toBeInstanceOf(SandboxError);
  expect(error.message).toMatch(/answered 1000001 requests since it was made or last reset, more than the 1000000 a snapshot may count/);
  sandbox.reset();
  expect(sandbox.snapshot().inputs).toEqual([{ kind: 'reset', at: Date.parse(AT) }]);
});

it('a long snapshot restored through the control API holds no one: /health answers again and again while it replays', async () => {
  let done = false;
  const made = client.control.post('/sessions', { snapshot: frozen({ ...ELIDED, requests: 1_000_000 }) }).finally(() => {
    done = true;
  });
  let answeredMeanwhile = 0;
  while (!done) {
    expect((await client.control.get('/health')).status).toBe(200);
    if (!done) answeredMeanwhile++;
  }
  expect((await made).status).toBe(201);
  // Replayed at once, the server would answer no request between the POST's arrival and its answer.
  expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
});
