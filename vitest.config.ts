import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The long runs (test/support/soak.ts). `npm test` runs them light, with everything else;
 * `npm run test:soak` (`vitest run --mode soak`) runs only these, at full size (`SVC_SOAK=1`).
 */
const SOAK_FILES = ['test/server/sessions-leak.test.ts', 'test/model/*.test.ts', 'test/webhooks/invariant.test.ts'];

export default defineConfig(({ mode }) => ({
  test: {
    include: mode === 'soak' ? SOAK_FILES : ['test/**/*.test.ts', 'src/**/*.test.ts'],
    ...(mode === 'soak' ? { env: { SVC_SOAK: '1' } } : {}),
    // The type tests (`*.test-d.ts`) are checked by `tsc -p tsconfig.json`, which `npm test`
    // runs first (tsconfig.json includes test/); vitest's own typecheck would check them again.
    // Interception patches process globals: keep each file in its own worker.
    pool: 'forks',
    isolate: true,
    // One worker per core. Vitest's default leaves one core to its main process, which has
    // little to do: on a 2-core machine that ran every file one after another.
    maxWorkers: availableParallelism(),
    // Every answer a test sees is checked against the published OpenAPI document (test/setup/conformance.ts).
    setupFiles: ['test/setup/conformance.ts'],
    // A soak run's property takes tens of seconds on a loaded machine: its own bound, not the suite's.
    testTimeout: mode === 'soak' ? 120_000 : 20_000,
  },
}));
