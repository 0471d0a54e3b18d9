import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The `svc-sandbox` bin as a user runs it: the built `dist/server/cli.js`. */
export const CLI = `${ROOT}dist/server/cli.js`;

/** scripts/ensure-built.mjs, by a path the type check does not follow (it is plain JavaScript). */
const ENSURE_BUILT = `${ROOT}scripts/ensure-built.mjs`;

/**
 * Builds dist/ when it is stale (a beforeAll of the CLI tests). The build that npm install
 * (prepare) or the last build left is used when it is current: a fresh clone's `npm test` does
 * not build twice. A change under src/ since then rebuilds it.
 */
export async function ensureBuilt(): Promise<void> {
  const { staleReason } = (await import(ENSURE_BUILT)) as { staleReason(): string | undefined };
  // Test files run side by side: one builds while the others wait (a build is about 30 s of
  // real time at most; a lock older than 3 minutes was left by a killed run).
  const lock = `${ROOT}dist/.building`;
  mkdirSync(`${ROOT}dist`, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    if (staleReason()) {
      // The build's own steps (`npm run build` but the `rm -rf dist`): all of them, or dist/ stays
      // stale (its CommonJS bundle older than src/) and the next CLI test file rebuilds it again
      // while this one's commands are loading it.
      execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`], { stdio: 'inherit' });
      execFileSync(process.execPath, [`${ROOT}scripts/build-cjs.mjs`], { stdio: 'inherit' });
    }
    const still = staleReason();
    if (still) throw new Error(`dist/ is still stale after the build (${still}): the CLI tests would race a rebuild.`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
