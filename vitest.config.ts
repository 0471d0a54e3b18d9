import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // `npm test` type-checks the whole project with tsc first; here only the type tests run.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], ignoreSourceErrors: true },
    // Interception patches process globals: keep each file in its own worker.
    pool: 'forks',
    testTimeout: 20_000,
  },
});
