/**
 * `svc-sandbox/vitest`: the sandbox where vitest (this project's test runner, and many
 * users') meets it. A `test` whose context holds a listening sandbox, closed after each
 * test, and the `toHaveEmitted` and `toHaveReceived` matchers. See docs/test-runners.md.
 *
 * @example
 * import { test, expect } from 'svc-sandbox/vitest';
 *
 * test('a busy number ends busy', async ({ sandbox }) => {
 *   await fetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body: JSON.stringify({ to: '+15005550002', from }) });
 *   await sandbox.advanceUntil('call.completed');
 *   expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
 * });
 */
import { expect, test as base } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from './index.js';
import { type SandboxMatchers, toHaveEmitted, toHaveReceived } from './matchers.js';

export interface SandboxFixtures {
  /**
   * Options for the test's sandbox; set them for a suite with
   * `test.override({ sandboxOptions: { seed: 7 } })` (vitest 4.1; `test.scoped` on 3.2).
   */
  sandboxOptions: SandboxOptions;
  /** A sandbox that listens for the whole test and is closed after it. */
  sandbox: Sandbox;
}

/**
 * vitest's `test`, with a listening sandbox in its context.
 *
 * @example
 * test('places a call', async ({ sandbox }) => { ... });
 */
export const test = base.extend<SandboxFixtures>({
  sandboxOptions: {},
  sandbox: async ({ sandboxOptions }, use) => {
    const sandbox = createSandbox(sandboxOptions).listen();
    try {
      await use(sandbox);
      // An exception inside the sandbox was answered as a 500: the test should know.
      expect(sandbox.internalErrors(), 'unexpected exceptions inside the sandbox (each was answered as a 500)').toEqual([]);
    } finally {
      sandbox.close();
    }
  },
});
export const it = test;

expect.extend({ toHaveEmitted, toHaveReceived });

export type { EventMatch, SandboxMatchers } from './matchers.js';

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares `Matchers<T = any>`; an augmentation must repeat it (TS2428).
  interface Matchers<T = any> extends SandboxMatchers<T> {}
}

export { expect };
