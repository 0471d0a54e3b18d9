import { expect, test as baseTest } from 'vitest';
import type { Sandbox, SandboxOptions } from '../src/index.js';
import { client, startSandbox } from './helpers.js';

/**
 * The behaviour tests' set-up as vitest fixtures: each test that names `sandbox` (or `api`)
 * gets its own listening sandbox (seed 1), closed when the test ends; the test fails if the
 * sandbox recorded an internal error.
 *
 * A `describe` changes the sandbox's options with `test.override(...)` inside it; a whole file
 * with an extension of its own, `const test = fixtureTest.extend({ sandboxOptions })`. Not
 * `override` at a file's top level: vitest applies that to the shared test API, so in a worker
 * that runs several files (`isolate: false`) it would hold for every file after this one.
 *
 * @example
 * import { expect, test as fixtureTest } from '../fixture.js';
 *
 * const test = fixtureTest.extend({ sandboxOptions: { keys: { SVC_TEST_alice: { plan: 'enterprise' } } } });
 *
 * test('places a call', async ({ sandbox, api }) => {
 *   expect((await api.placeCall()).status).toBe(201);
 *   await sandbox.advance('5s');
 * });
 */
export interface SandboxFixtures {
  /** Options for `createSandbox`, over `{ seed: 1 }`. */
  sandboxOptions: SandboxOptions;
  /** A listening sandbox, closed after the test. */
  sandbox: Sandbox;
  /** `client(sandbox)` of helpers.ts: fetch as the key SVC_TEST_alice. */
  api: ReturnType<typeof client>;
}

/** What a helper of a test file needs from the test's fixtures: `helper({ sandbox, api }, ...)`. */
export type SandboxContext = Pick<SandboxFixtures, 'sandbox' | 'api'>;

export const test = baseTest.extend<SandboxFixtures>({
  sandboxOptions: {},
  sandbox: async ({ sandboxOptions }, use) => {
    const sandbox = startSandbox(sandboxOptions);
    try {
      await use(sandbox);
      // An exception inside the sandbox becomes a 500 and is recorded: no test may leave one behind.
      expect(sandbox.internalErrors(), 'unexpected exceptions inside the sandbox').toEqual([]);
    } finally {
      sandbox.close();
    }
  },
  api: async ({ sandbox }, use) => {
    await use(client(sandbox));
  },
});

export { test as it };
export { describe, expect } from 'vitest';
