import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ScenarioHost, runScenario } from '../../src/scenarios/run.js';
import { createSandbox, Sandbox, SandboxError } from '../../src/index.js';
import { bigScenario } from '../support/big-scenario.js';
import { soakSize } from '../support/soak.js';
import { turnsDuring } from '../support/turns.js';

// Regression: a scenario of 6,500 steps held the event loop for 12 s, and a DELETE of its session waited for it, which then answered `passed: true`.

/** A sandbox whose runs take a slice length of the test's choosing (0: a pause before every step; Infinity: none). */
class Probe extends Sandbox {
  runSliced(scenario: unknown, sliceMs: number) {
    const host: ScenarioHost = { sandbox: this, receivers: this.receivers, lifecycle: this.lifecycle, sliceMs };
    return runScenario(host, scenario);
  }
}

const open: Sandbox[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const sandbox of open.splice(0)) sandbox.close();
});
const probe = () => {
  const sandbox = new Probe({ seed: 11 });
  open.push(sandbox);
  return sandbox;
};

describe('a scenario runs in slices', () => {
  const size = soakSize(200, 6_500);

  it(`${size} steps: pauses between steps change nothing; result, timeline and the sandbox after are the same byte for byte`, async () => {
    const scenario = bigScenario(size);
    const [whole, sliced] = [probe(), probe()];
    const once = await turnsDuring(() => whole.runSliced(scenario, Number.POSITIVE_INFINITY));
    const often = await turnsDuring(() => sliced.runSliced(scenario, 0));
    expect(once.value.passed).toBe(true);
    // A pause before every step in one; in the other only the advances' own (a step's advance rarely lasts a slice).
    expect(often.turns).toBeGreaterThan(size);
    expect(once.turns).toBeLessThan(size);
    expect(JSON.stringify(often.value)).toBe(JSON.stringify(once.value));
    expect(JSON.stringify(sliced.snapshot())).toBe(JSON.stringify(whole.snapshot()));
    expect(JSON.stringify(sliced.events.list())).toBe(JSON.stringify(whole.events.list()));
  }, 120_000);

  it('sandbox.run itself pauses: the event loop turns while a long one runs', async () => {
    const sandbox = createSandbox({ seed: 11 });
    open.push(sandbox);
    const { value, turns } = await turnsDuring(() => sandbox.run(bigScenario(soakSize(200, 2_000))));
    expect(value.passed).toBe(true);
    expect(turns).toBeGreaterThan(1);
  }, 120_000);

  it("pauses on the real event loop, untouched by a test's fake timers", async () => {
    vi.useFakeTimers();
    const result = await probe().runSliced(bigScenario(20), 0);
    expect(result.passed).toBe(true);
  });

  it.each([
    ['closed', (sandbox: Sandbox) => sandbox.close(), /the sandbox was closed \(on the server: its session was deleted\)/],
    ['reset', (sandbox: Sandbox) => sandbox.reset(), /the sandbox was reset while it ran/],
  ] as const)(
    'a sandbox %s while the run pauses stops it: SandboxError interrupted, naming the step, never a result',
    async (_, stop, why) => {
      const sandbox = probe();
      const run = sandbox.runSliced(bigScenario(200), 0);
      // Let it run a few steps, then stop the sandbox in a pause.
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
      stop(sandbox);
      const error = await run.then(
        (result) => result,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SandboxError);
      expect(error).toMatchObject({ code: 'interrupted' });
      expect((error as Error).message).toMatch(/^run: the scenario was stopped (before|at) steps\[\d+\] \(at \d+ms\): /);
      expect((error as Error).message).toMatch(why);
      expect((error as Error).message).toMatch(/so the steps from there on did not run\.$/);
    },
  );
});
