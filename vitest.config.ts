import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The type tests (`*.test-d.ts`) are checked by `tsc -p tsconfig.json`, which `npm test`
    // runs first (tsconfig.json includes test/); vitest's own typecheck would check them again.
    // Interception patches process globals: keep each file in its own worker.
    pool: 'forks',
    // Every answer a test sees is checked against the published OpenAPI document (test/setup/conformance.ts).
    setupFiles: ['test/setup/conformance.ts'],
    testTimeout: 20_000,
  },
});
