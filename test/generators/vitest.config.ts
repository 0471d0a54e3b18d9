import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The flow through the generated clients (run.sh generates them first); not part of npm test. */
export default defineConfig({
  // Vite's cache with the project's, not in a node_modules/ of this folder.
  cacheDir: fileURLToPath(new URL('../../node_modules/.vite-generators', import.meta.url)),
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.flow.ts'],
    testTimeout: 20_000,
  },
});
