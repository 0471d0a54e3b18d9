import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The long runs (test/support/soak.ts). `npm test` runs them light, with everything else;
 * `npm run test:soak` (`vitest run --mode soak`) runs only these, at full size (`SVC_SOAK=1`).
 */
const SOAK_FILES = [
  'test/server/sessions-leak.test.ts',
  'test/model/*.test.ts',
  'test/webhooks/invariant.test.ts',
  'test/sandbox/memory-bounded.test.ts',
  'test/sandbox/snapshot-compaction.test.ts',
  'test/webhooks/hanging-day.test.ts',
  'test/server/long-work.test.ts',
  'test/scenarios/slices.test.ts',
];

/**
 * The end-to-end tests: the built bin in child processes (serve, exec and its signals, run,
 * --import/--export-on-exit) and Debian's Chromium (`/usr/bin/chromium`) driving the console
 * and a cross-origin page. `npm run test:e2e` (`vitest run --mode e2e`) runs them; CI does, after
 * installing Chromium. `npm test` leaves them out: it passes on a fresh machine that has Node
 * and npm only, and stays fast (each of these starts processes that load the whole package).
 */
const E2E_FILES = [
  'test/server/cli.test.ts',
  'test/server/cli-snapshots.test.ts',
  'test/server/cli-files.test.ts',
  'test/scenarios/cli.test.ts',
  'test/server/check-receiver-cli.test.ts',
  'test/server/show-cli.test.ts',
  'test/server/show-console.test.ts',
  'test/server/console.test.ts',
  'test/server/csrf-browser.test.ts',
  'test/docs/install.test.ts',
  'test/server/binary.test.ts',
];

/**
 * Files that each need a process of their own: they apply a user's msw or the interceptors
 * themselves beside the sandbox's, or set up a DOM, so they test what a fresh process does.
 * Every other file shares its worker's process with the files before it (`isolate: false`):
 * loading the library once per worker instead of once per file halves the suite's time.
 * test/setup/no-leaks.ts fails a file that leaves a sandbox listening or a global stubbed.
 */
const OWN_PROCESS = [
  // Both built entries (ESM and CommonJS) loaded in one fresh Node process: it builds dist/ first when stale.
  'test/sandbox/dual-build.test.ts',
  'test/sandbox/msw-*.test.ts',
  'test/sandbox/interceptors-contract.test.ts',
  'test/sandbox/interception-leaks.test.ts',
  'test/sandbox/browser-window.test.ts',
  'test/sandbox/xhr.test.ts',
  'test/sandbox/vitest-entry.test.ts',
];

/**
 * Stoplight Spectral's `spectral:oas` rules on the three documents: `npm run lint:openapi`
 * (`vitest run --mode openapi`), which CI runs beside the document's other outside tools
 * (kin-openapi, the generated clients, Prism's proxy). The heaviest check of the suite (some
 * 8 s of one core), so `npm test` leaves it out; Redocly's rules and the examples' checks stay in it.
 */
const OPENAPI_FILES = ['test/api/spectral.test.ts'];

const ALL = ['test/**/*.test.ts', 'src/**/*.test.ts'];

export default defineConfig(({ mode }) => {
  const only = mode === 'soak' ? SOAK_FILES : mode === 'e2e' ? E2E_FILES : mode === 'openapi' ? OPENAPI_FILES : undefined;
  // A soak run's property takes tens of seconds on a loaded machine: its own bound, not the suite's.
  const testTimeout = mode === 'soak' ? 120_000 : 20_000;
  return {
    test: {
      ...(mode === 'soak' ? { env: { SVC_SOAK: '1' } } : {}),
      // The type tests (`*.test-d.ts`) are checked by `tsc -p tsconfig.json`, which `npm test`
      // runs first (tsconfig.json includes test/); vitest's own typecheck would check them again.
      pool: 'forks',
      // One worker per core. Vitest's default leaves one core to its main process, which has
      // little to do: on a 2-core machine that ran every file one after another.
      maxWorkers: availableParallelism(),
      // Every answer a test sees is checked against the published OpenAPI document (test/setup/conformance.ts).
      setupFiles: ['test/setup/conformance.ts', 'test/setup/no-leaks.ts'],
      testTimeout,
      projects: only
        ? // The timeout said again: a project that extends the root did not take the root's in these modes (a soak test ended at 20 s).
          [{ extends: true, test: { name: mode, include: only, isolate: true, testTimeout } }]
        : [
            {
              extends: true,
              test: { name: 'shared', include: ALL, exclude: [...OWN_PROCESS, ...E2E_FILES, ...OPENAPI_FILES], isolate: false },
            },
            { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
          ],
    },
  };
});
