import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Interception patches process globals: keep each file in its own worker.
    pool: 'forks',
    testTimeout: 20_000,
  },
});
