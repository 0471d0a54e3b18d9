import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

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

/** The bin running in a child process, with what it printed so far. */
export interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Once it has ended: how long it ran, in ms. */
  ms: number;
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
}

/**
 * Runs the built bin with `args` in a child process (its environment: this one's plus `env`).
 * With `limitMs`, it is killed (SIGKILL) if it runs longer: a bound on a run that must end, never a wait.
 */
export function runCli(args: string[], { env = {}, limitMs }: { env?: Record<string, string>; limitMs?: number } = {}): Run {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const result = { child, stdout: '', stderr: '' } as Run;
  let gotLine!: (line: string) => void;
  result.firstLine = new Promise((resolve) => (gotLine = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    result.stdout += chunk;
    if (result.stdout.includes('\n')) gotLine(result.stdout.split('\n')[0]!);
  });
  child.stderr!.on('data', (chunk: Buffer) => (result.stderr += chunk));
  const guard = limitMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), limitMs);
  result.exit = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      result.ms = performance.now() - started;
      resolve({ code, signal });
    }),
  );
  return result;
}
