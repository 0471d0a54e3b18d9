import { expect, test as baseTest } from 'vitest';
import type { Sandbox, SandboxOptions } from '../src/index.js';
import { client, startSandbox } from './helpers.js';

/**
 * The behaviour tests' set-up as vitest fixtures: each test that names `sandbox` (or `api`)
 * gets its own listening sandbox (seed 1), closed when the test ends; the test fails if the
 * sandbox recorded an internal error.
 *
 * A file (or a `describe`) changes the sandbox's options with `override` on the test API it
 * uses (after `const it = test.extend(...)`, `it.override(...)`). At a file's top level the
 * override holds for that file only: vitest isolates test files.
 *
 * @example
 * import { expect, test } from '../fixture.js';
 *
 * test.override({ sandboxOptions: { keys: { SVC_TEST_alice: { plan: 'enterprise' } } } });
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
