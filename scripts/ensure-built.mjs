// Builds the package only when dist/ is missing or older than what it is built from, so
// `npm run serve` and `npm run demo` start at once on a current build. Imported by
// scripts/demo.mjs; run as a script by `npm run serve` (before `node dist/server/cli.js serve`),
// by `prepack` (so `npm pack` ships a current build without building twice), and by `prepare`,
// which npm runs after `npm install` here and when a project installs the package from git
// (`npm install --save-dev git+https://…`: npm packs it with `prepare` only). The packed
// package.json has no `prepare` (scripts/pack-manifest.mjs), so an install of the tarball runs nothing.
// A source removed or renamed changes its folder's time, so it too makes dist/ stale, and a build
// starts from an empty dist/: nothing of a removed source is left to ship.
// It prints nothing when dist/ is current, and one line on stderr when it builds, so the
// server's ready line stays the first line on stdout.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** What the build writes (`npm run build`: tsc, then scripts/build-cjs.mjs). */
const OUTPUTS = ['dist/index.js', 'dist/server/cli.js', 'dist/cjs/index.cjs'];
/** What it reads: a change to any of these makes dist/ stale. */
const INPUTS = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-cjs.mjs'];

/** The newest modification time under `path` (walked by hand: recursive readdir needs Node 20.1). */
function newestMtime(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat?.mtimeMs ?? 0;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why dist/ needs a build, or undefined when it is current. */
export function staleReason() {
  const built = OUTPUTS.map((file) => [file, statSync(join(root, file), { throwIfNoEntry: false })?.mtimeMs]);
  const missing = built.find(([, mtime]) => mtime === undefined);
  if (missing) return `${missing[0]} is missing`;
  const changed = INPUTS.find((input) => newestMtime(join(root, input)) > Math.min(...built.map(([, mtime]) => mtime)));
  if (changed) return `${changed} changed since the last build`;
  try {
    accessSync(join(root, 'dist/server/cli.js'), constants.X_OK);
  } catch {
    if (process.platform !== 'win32') return 'dist/server/cli.js is not executable (built before the build set its run bit)';
  }
  return undefined;
}

/** Runs `npm run build` when dist/ is stale; exits the process with the build's output when it fails. */
export function ensureBuilt(who) {
  const reason = staleReason();
  if (!reason) return;
  process.stderr.write(`${reason}: building (npm run build)...\n`);
  // Through the npm that runs this script when there is one (npm_execpath), else the npm on PATH.
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'run', 'build', '--silent']] : ['npm', ['run', 'build', '--silent']];
  const build = spawnSync(command, args, { cwd: root, encoding: 'utf8', shell: !npm && process.platform === 'win32' });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? `${build.error.message}\n` : ''}`);
    process.stderr.write(`svc-sandbox ${who}: the build failed (above); fix it, or run \`npm run build\` to see it again.\n`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureBuilt(process.argv[2] ?? 'build');
