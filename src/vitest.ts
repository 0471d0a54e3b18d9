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
import { expect, test as base, type TestContext } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions, showCommandLine, writeSnapshotFile } from './index.js';
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
  sandbox: async ({ sandboxOptions, onTestFailed }, use) => {
    const sandbox = createSandbox(sandboxOptions).listen();
    keepWhenFailed(sandbox, onTestFailed);
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

/**
 * With `SVC_SANDBOX_SNAPSHOTS=DIR`, a failed test's sandbox is written to `DIR/<test name>.json`
 * and its failure ends with the command that opens it, runnable as printed in the user's shell:
 * `npx svc-sandbox show DIR/<file>.json`, or the executable `SVC_SANDBOX_BIN` names by its full
 * path (docs/debugging.md). The line goes into the failure's message, where every reporter shows it
 * (vitest takes no annotation once a test has failed), and the path into `task.meta.svcSandboxSnapshot`.
 */
function keepWhenFailed(sandbox: Sandbox, onTestFailed: TestContext['onTestFailed']): void {
  const dir = process.env.SVC_SANDBOX_SNAPSHOTS;
  if (!dir) return;
  onTestFailed(({ task }) => {
    let line: string;
    try {
      // `file > describe > test` (vitest 3.2 has no fullName: its file and name then).
      const name = (task as { fullName?: string }).fullName ?? `${task.file.name} > ${task.name}`;
      const path = writeSnapshotFile(dir, name, sandbox.snapshot());
      (task.meta as Record<string, unknown>).svcSandboxSnapshot = path;
      line = showCommandLine(path);
    } catch (error) {
      line = `svc-sandbox: no snapshot of this test's sandbox was kept in ${dir}: ${(error as Error).message}`;
    }
    const error = task.result?.errors?.[0];
    if (error) error.message = `${error.message}\n\n${line}`;
  });
}

expect.extend({ toHaveEmitted, toHaveReceived });

export type { EventMatch, SandboxMatchers } from './matchers.js';

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares `Matchers<T = any>`; an augmentation must repeat it (TS2428).
  interface Matchers<T = any> extends SandboxMatchers<T> {}
}

export { expect };
