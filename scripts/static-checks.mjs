// The checks `npm test` runs before vitest, side by side: the type check of sources, tests,
// bench and scripts (tsconfig.json), the console's (console/tsconfig.json), the layer rules
// (.dependency-cruiser.cjs), and Biome's format and lint check (biome.json; `npm run lint`, and
// `npm run format` to fix). The first takes most of the time on one core; the others fit on the
// second core meanwhile. Each one's output is printed whole once it ends, in this order, and the
// script exits 1 when any failed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => `${root}node_modules/.bin/${name}`;

/**
 * tsc keeps what it learnt between runs under node_modules/.cache (never committed), so a run
 * after a small change checks what the change touched: about 3 s instead of 10 here. A fresh
 * clone's first run checks everything.
 */
const incremental = (name) => ['--incremental', '--tsBuildInfoFile', `${root}node_modules/.cache/svc-sandbox-tsc/${name}.tsbuildinfo`];

const CHECKS = [
  { name: 'tsc -p tsconfig.json', command: bin('tsc'), args: ['-p', 'tsconfig.json', ...incremental('main')] },
  { name: 'tsc -p console/tsconfig.json', command: bin('tsc'), args: ['-p', 'console/tsconfig.json', ...incremental('console')] },
  { name: 'depcruise (npm run lint:layers)', command: bin('depcruise'), args: ['src', '--config', '.dependency-cruiser.cjs'] },
  // Writes nothing; an unformatted file, a lint error or a lint warning fails it.
  { name: 'biome check (npm run lint)', command: bin('biome'), args: ['check', '--error-on-warnings'] },
];

function run({ name, command, args }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ name, ok: code === 0, output }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { name, ok, output } of results) {
  if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  if (!ok) process.stderr.write(`static checks: ${name} failed (above)\n`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
