import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type SandboxServer, type SandboxSnapshot, startServer } from '../../src/index.js';
import { memberKind } from '../../src/scripting/context.js';
import { serverClient } from '../server/client.js';
import { refusal } from '../support/refusal.js';

/**
 * Regression: a replay could not fail. Scripting calls were recorded before they ran and the
 * replay swallowed every exception, so a snapshot whose input no longer replayed gave a sandbox
 * silently other than the one it was taken of. A call that throws is now not recorded, and a
 * recorded input that throws when replayed refuses the snapshot, naming it, on every road
 * (createSandbox, POST /__sandbox/sessions; the CLI in test/server/cli-snapshots.test.ts).
 */

const KEY = 'SVC_TEST_alice';
let server: SandboxServer;
const { control } = serverClient(() => server.url);
beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

/** inputs: 0 POST /v1/calls, 1 network.setBehavior, 2 advance 5 s. */
async function story(): Promise<SandboxSnapshot> {
  const sandbox = createSandbox({ seed: 3 });
  await sandbox.fetch('/v1/calls', {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
  });
  sandbox.network.setBehavior('+14155550111', { outcome: 'busy' });
  expect(() => sandbox.network.setBehavior('+14155550111', { outcome: 'bussy' } as never)).toThrow(/did you mean "busy"/);
  expect(() => sandbox.calls.answer('call_nope')).toThrow(/no such call/);
  await sandbox.advance('5s');
  const snapshot = sandbox.snapshot();
  sandbox.close();
  return snapshot;
}

/** The story with its setBehavior spoiled: it throws when it is replayed. */
async function diverging(): Promise<SandboxSnapshot> {
  const snapshot = await story();
  const call = snapshot.inputs[1];
  if (call?.kind !== 'call') throw new Error(`expected a call, got ${JSON.stringify(call)}`);
  call.args = ['+14155550111', { outcome: 'bussy' }];
  return snapshot;
}

describe('a replay that says when it diverges', () => {
  it('a call that throws is not recorded: the snapshot holds only what changed the sandbox, and restores', async () => {
    const snapshot = await story();
    expect(snapshot.inputs.map((input) => (input.kind === 'call' ? input.name : input.kind))).toEqual([
      'request',
      'network.setBehavior',
      'advance',
    ]);
    const copy = createSandbox({ snapshot });
    expect(copy.calls.list()).toHaveLength(1);
    copy.close();
  });

  it('createSandbox({ snapshot }) throws naming the input that no longer replays, and why', async () => {
    const snapshot = await diverging();
    const thrown = refusal(() => createSandbox({ snapshot }));
    expect(thrown).toBeInstanceOf(SandboxError);
    expect(thrown).toMatchObject({ code: 'invalid_options', param: 'snapshot.inputs[1]' });
    expect(thrown.message).toMatch(
      /^createSandbox: `snapshot\.inputs\[1\]` \(network\.setBehavior\) does not replay as it was recorded: it succeeded then and now fails \(.*did you mean "busy"/,
    );
  });

  it('POST /__sandbox/sessions {snapshot} answers 400 naming the input, and makes no session', async () => {
    const before = (await control.get('/sessions')).body.data.length;
    const { status, body } = await control.post('/sessions', { snapshot: await diverging() });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'snapshot.inputs[1]' });
    expect(body.error.message).toMatch(/^`snapshot\.inputs\[1\]` \(network\.setBehavior\) does not replay as it was recorded/);
    expect((await control.get('/sessions')).body.data.length).toBe(before);
  });

  it('a promise-returning change refused by rejecting is not recorded either', async () => {
    const sandbox = createSandbox({ seed: 1 });
    await expect(sandbox.webhooks.replay('dlv_nope')).rejects.toThrow(/no dead letter dlv_nope/);
    expect(sandbox.snapshot().inputs).toEqual([]);
    sandbox.close();
  });

  it('what survives reset() is declared with the change: keys.create and keys.revoke, and no other', async () => {
    const sandbox = createSandbox({ seed: 1 });
    const kept: string[] = [];
    for (const [space, value] of Object.entries(sandbox)) {
      if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) continue;
      for (const [member, fn] of Object.entries(value)) {
        const kind = memberKind(fn);
        if (kind?.kind === 'change' && kind.keptByReset) kept.push(`${space}.${member}`);
      }
    }
    expect(kept.sort()).toEqual(['keys.create', 'keys.revoke']);
    const { key } = sandbox.keys.create();
    sandbox.network.setBehavior('+14155550111', { outcome: 'busy' });
    sandbox.reset();
    expect(sandbox.snapshot().inputs.map((input) => (input.kind === 'call' ? input.name : input.kind))).toEqual(['keys.create', 'reset']);
    const copy = createSandbox({ snapshot: sandbox.snapshot() });
    expect(copy.keys.list().map((k) => k.key)).toContain(key);
    copy.close();
    sandbox.close();
  });
});
