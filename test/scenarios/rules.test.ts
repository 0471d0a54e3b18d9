import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/**
 * The domain rules (docs/architecture.md, "Rules") met on the scripting road: a scenario file
 * (`sandbox.run`; the server's `POST /__sandbox/sessions/{s}/scenario` runs the same runner).
 * The same rules over `/v1` are in test/numbers/provision.test.ts and
 * test/calls/place-call.test.ts, at the services themselves in src/state/rules.test.ts. Each
 * refusal names the field, and stores nothing.
 */
const KEY = 'SVC_TEST_rules';

async function withSandbox<T>(fn: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = createSandbox({ seed: 5 });
  try {
    return await fn(sandbox);
  } finally {
    sandbox.close();
  }
}

const get = async (sandbox: Sandbox, path: string) => (await sandbox.fetch(path, { headers: { authorization: `Bearer ${KEY}` } })).json();
/** The first number a search offers: what a scenario without `number` would provision. */
const firstAvailable = async (sandbox: Sandbox): Promise<string> => (await get(sandbox, '/v1/numbers?limit=1')).data[0].number;
const provisioned = async (sandbox: Sandbox) => (await get(sandbox, '/v1/numbers?provisioned=true')).data;

describe('the rules a scenario meets', () => {
  it('a number someone holds is unavailable: the scenario fails at numbers[1], naming number_unavailable, and holds only the first', () =>
    withSandbox(async (sandbox) => {
      const number = await firstAvailable(sandbox);
      const result = await sandbox.run({
        name: 'twice',
        apiKey: KEY,
        numbers: [
          { as: 'a', number },
          { as: 'b', number },
        ],
        steps: [{ at: 0 }],
      });
      expect(result.passed).toBe(false);
      expect(result.failure).toMatchObject({
        path: 'numbers[1].status',
        seen: 422,
        message: expect.stringMatching(/number_unavailable: .*number/),
      });
      expect((await provisioned(sandbox)).map((n: { number: string }) => n.number)).toEqual([number]);
    }));

  it('a number may not forward to itself: the scenario fails naming routing.target, and holds nothing', () =>
    withSandbox(async (sandbox) => {
      const number = await firstAvailable(sandbox);
      const result = await sandbox.run({
        name: 'loop',
        apiKey: KEY,
        numbers: [{ as: 'a', number, routing: { type: 'forward', target: number } }],
        steps: [{ at: 0 }],
      });
      expect(result.failure).toMatchObject({
        path: 'numbers[0].status',
        seen: 400,
        message: expect.stringMatching(/invalid_parameter: .*routing\.target/),
      });
      expect(await provisioned(sandbox)).toEqual([]);
    }));

  it("a destination the scenario's carrier makes unreachable is refused when called, with the field named, and no call is made", () =>
    withSandbox(async (sandbox) => {
      const result = await sandbox.run({
        name: 'nowhere',
        apiKey: KEY,
        network: { '+14155550199': { outcome: 'unreachable' } },
        steps: [{ at: 0, request: { method: 'POST', path: '/v1/calls', body: { to: '+14155550199', from: '+14155550100' } } }],
      });
      expect(result.failure).toMatchObject({
        path: 'steps[0].request',
        seen: 422,
        message: expect.stringMatching(/unreachable_destination: `to` \+14155550199 is unreachable/),
      });
      expect((await get(sandbox, '/v1/calls')).data).toEqual([]);
    }));
});
