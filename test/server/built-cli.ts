import { execFileSync } from 'node:child_process';
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
  if (staleReason()) execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`], { stdio: 'inherit' });
}
