// After tsc (`npm run build`): the CommonJS build, and the bin's run bit (at the end).
// The CommonJS build: `require('svc-sandbox')` (and `require('svc-sandbox/jest')`, the matchers)
// from plain CommonJS and from Jest's own module system, which cannot require() an ES module on
// Node 20 (docs/test-runners.md, "Why a dual build").
//
// Input is the ES build tsc has just written (dist/index.js), so both formats run the same
// compiled code. Rolldown (already here as vite's bundler) turns it into one file,
// dist/cjs/index.cjs, and:
// - keeps the dependencies that ship CommonJS as require() calls (xstate,
//   @mswjs/interceptors, @sinonjs/fake-timers: one copy of each, deduplicated by npm);
// - inlines nanoid, which is ESM only (5.x), with its licence in the banner;
// - polyfills import.meta.url as the file's own URL (fixtures.ts and console.ts read
//   fixtures/ and console/ two folders up: dist/cjs/ is as deep as dist/core/ and dist/server/).
// The declarations are the ES build's, copied under dist/cjs/ where a package.json says
// "commonjs", so TypeScript reads them as the CommonJS module they describe.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'cjs');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Dependencies with no CommonJS entry: bundled into the CommonJS build. */
const INLINE = ['nanoid'];
const external = Object.keys(pkg.dependencies).filter((name) => !INLINE.includes(name));
const isExternal = (id) =>
  id.startsWith('node:') || builtinModules.includes(id) || external.some((name) => id === name || id.startsWith(`${name}/`));

const require = createRequire(join(root, 'package.json'));
const notices = INLINE.map((name) => {
  const dir = dirname(require.resolve(`${name}/package.json`));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return `Includes ${name} ${version}:\n\n${readFileSync(join(dir, 'LICENSE'), 'utf8').trim()}`;
});

const started = Date.now();
const warnings = [];
await build({
  // Two entries that share no module (the matchers need nothing of the sandbox at run time), so
  // no chunk is shared: dist/cjs/jest.cjs stands alone.
  input: { index: join(dist, 'index.js'), jest: join(dist, 'jest.js') },
  platform: 'node',
  external: isExternal,
  onLog: (level, log) => {
    if (level === 'warn') warnings.push(log.message);
  },
  output: {
    dir: out,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    banner: (chunk) =>
      chunk.name === 'index'
        ? `/*! ${pkg.name} ${pkg.version} (CommonJS build of dist/index.js)\n\n${notices.join('\n\n')}\n*/`
        : `/*! ${pkg.name} ${pkg.version} (CommonJS build of dist/${chunk.name}.js) */`,
  },
});
if (warnings.length) throw new Error(`the CommonJS build warned:\n${warnings.join('\n')}`);

const built = readdirSync(out).filter((file) => file.endsWith('.cjs'));
if (built.sort().join() !== 'index.cjs,jest.cjs')
  throw new Error(`the CommonJS build wrote ${built.join(', ')}, not index.cjs and jest.cjs alone`);
const code = readFileSync(join(out, 'index.cjs'), 'utf8');
for (const name of INLINE) {
  if (code.includes(`require("${name}")`)) throw new Error(`dist/cjs/index.cjs still requires ${name}, which has no CommonJS entry`);
}
if (/import\.meta/.test(code.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))) throw new Error('dist/cjs/index.cjs still uses import.meta');

// The declarations: the same files, read as CommonJS below dist/cjs/ (the vitest entry is ESM only).
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
let declarations = 0;
for (const file of readdirSync(dist, { recursive: true })) {
  if (!file.endsWith('.d.ts') || file === 'vitest.d.ts' || file.startsWith(`cjs${sep}`)) continue;
  mkdirSync(dirname(join(out, file)), { recursive: true });
  copyFileSync(join(dist, file), join(out, file));
  declarations++;
}
// The bin: tsc writes dist/server/cli.js without its run bit, and `npx svc-sandbox` in this repo
// (or after `npm link`) runs the file itself. (npm sets the bit when it installs the package.)
chmodSync(join(dist, 'server', 'cli.js'), 0o755);

// On stderr: `npm pack --json` runs this (prepack) and its stdout must stay JSON.
console.error(
  `dist/cjs/index.cjs: ${(code.length / 1024).toFixed(0)} kB (${INLINE.join(', ')} inlined), ${declarations} declarations copied, in ${Date.now() - started} ms`,
);
