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
import {
  createSandbox,
  type EventType,
  type JournalEntry,
  type Sandbox,
  type SandboxEvent,
  type SandboxOptions,
  writeSnapshotFile,
} from './index.js';

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
 * and its failure ends with the command that opens it, `svc-sandbox show DIR/<file>.json`
 * (docs/debugging.md). The line goes into the failure's message, where every reporter shows it
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
      line = `svc-sandbox show ${/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`}`;
    } catch (error) {
      line = `svc-sandbox: no snapshot of this test's sandbox was kept in ${dir}: ${(error as Error).message}`;
    }
    const error = task.result?.errors?.[0];
    if (error) error.message = `${error.message}\n\n${line}`;
  });
}

/** Whether `actual` holds everything `expected` holds (as `toMatchObject` reads it). */
function contains(actual: unknown, expected: unknown, equals: (a: unknown, b: unknown) => boolean): boolean {
  if (
    expected !== null &&
    typeof expected === 'object' &&
    typeof (expected as { asymmetricMatch?: unknown }).asymmetricMatch === 'function'
  )
    return equals(actual, expected);
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e, equals));
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value, equals));
  }
  return Object.is(actual, expected);
}

/** A refusal naming what was received, unless it is a sandbox. */
function notASandbox(received: unknown, print: (value: unknown) => string): { pass: false; message: () => string } | null {
  if (received !== null && typeof received === 'object' && typeof (received as Partial<Sandbox>).events?.list === 'function') return null;
  return { pass: false, message: () => `expected a sandbox (from createSandbox), got ${print(received)}` };
}

expect.extend({
  /**
   * Passes when the sandbox emitted an event of `type` that holds `partial` (compared as
   * `toMatchObject` does, asymmetric matchers included).
   */
  toHaveEmitted(received: Sandbox, type: EventType, partial: Record<string, unknown> = {}) {
    const refused = notASandbox(received, (value) => this.utils.printReceived(value));
    if (refused) return refused;
    const events = received.events.list({ type }) as SandboxEvent[];
    const pass = events.some((event) => contains(event, partial, (a, b) => this.equals(a, b)));
    return {
      pass,
      message: () =>
        pass
          ? `expected the sandbox not to have emitted ${type} matching ${this.utils.printExpected(partial)}`
          : `expected the sandbox to have emitted ${type} matching ${this.utils.printExpected(partial)}; ` +
            `it emitted ${events.length} ${type} event${events.length === 1 ? '' : 's'}${
              events.length
                ? `:\n${events.map((e) => this.utils.printReceived(e)).join('\n')}`
                : ` (all its events: ${
                    received.events
                      .list()
                      .map((e) => e.type)
                      .join(', ') || 'none'
                  })`
            }`,
    };
  },
  /**
   * Passes when the sandbox answered a request holding `partial` (its journal entry, as
   * `sandbox.requests.list()` gives it: method, documented path, status, errorCode, apiKey, ...).
   */
  toHaveReceived(received: Sandbox, partial: Record<string, unknown> = {}) {
    const refused = notASandbox(received, (value) => this.utils.printReceived(value));
    if (refused) return refused;
    const requests = received.requests.list();
    const pass = requests.some((request) => contains(request, partial, (a, b) => this.equals(a, b)));
    const seen = requests.slice(-20).map((r) => `${r.method} ${r.path} ${r.status}${r.errorCode ? ` ${r.errorCode}` : ''}`);
    return {
      pass,
      message: () =>
        pass
          ? `expected the sandbox not to have received a request matching ${this.utils.printExpected(partial)}`
          : `expected the sandbox to have received a request matching ${this.utils.printExpected(partial)}; it received ` +
            `${seen.length ? `(the last ${seen.length}):\n${seen.join('\n')}` : 'none'}`,
    };
  },
});

/**
 * What `toHaveEmitted` matches an event against: any subset of its fields, at any depth
 * (arrays element by element, as `toMatchObject` compares them). Asymmetric matchers
 * (`expect.any(String)`, `expect.stringMatching(...)`) fit anywhere.
 */
export type EventMatch<T> = T extends readonly (infer U)[]
  ? ReadonlyArray<EventMatch<U>>
  : T extends object
    ? { [K in keyof T]?: EventMatch<T[K]> }
    : T;

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares `Matchers<T = any>`; an augmentation must repeat it (TS2428).
  interface Matchers<T = any> {
    /**
     * The sandbox emitted an event of `type` holding `partial`.
     *
     * @example
     * expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
     */
    toHaveEmitted<K extends EventType>(type: K, partial?: EventMatch<SandboxEvent<K>>): T;
    /**
     * The sandbox answered a request holding `partial` (an entry of `sandbox.requests.list()`).
     *
     * @example
     * expect(sandbox).toHaveReceived({ method: 'POST', path: '/v1/calls', status: 429 });
     */
    toHaveReceived(partial?: EventMatch<JournalEntry>): T;
  }
}

export { expect };
