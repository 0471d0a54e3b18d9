// `npm run build:binary`: dist/bin/svc-sandbox, one executable that runs every CLI command on a
// machine with no Node installed (docs/binary.md). It is Node's own "single executable
// application": a copy of the Node that runs this script, with a blob injected into it that holds
// - the CLI as one CommonJS file: dist/server/cli.js and everything it imports, its commands'
//   dynamic import()s and the dependencies included (the executable's main script can require()
//   built-in modules only), bundled by rolldown;
// - the files the package reads at run time, as assets (core/package-files.ts reads them back):
//   the console's pages, fixtures/**, and package.json's name and version.
//
// Building takes a few seconds (mostly postject rewriting a ~100 MB file), so the result is kept
// under node_modules/.cache/svc-sandbox-binary/, named by a hash of everything that goes into it;
// when nothing changed, dist/bin/svc-sandbox is linked to the kept copy at once (`npm run build`
// empties dist/). `--print-path` prints the executable's path on stdout (for the tests), and
// builds it first when needed; progress goes to stderr.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { ensureBuilt } from './ensure-built.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const TARGET = join(root, 'dist', 'bin', 'svc-sandbox');
const CACHE = join(root, 'node_modules', '.cache', 'svc-sandbox-binary');
/** The sentinel Node looks for to know a blob was injected (Node's documentation of single executables). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** What the console serves (server/console.ts): its tsconfig.json stays out. */
const CONSOLE_FILE = /\.(?:js|css|html|svg)$/;

const log = (line) => process.stderr.write(`${line}\n`);
/** A reason the build stopped: printed alone, without a stack. */
class BuildError extends Error {}
const fail = (message) => {
  throw new BuildError(message);
};

/** The CLI and everything it loads as one CommonJS source, with the licences of the packages inside it. */
async function bundleCli() {
  const warnings = [];
  const bundle = await rolldown({
    input: join(root, 'dist', 'server', 'cli.js'),
    platform: 'node',
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    onLog: (level, entry) => {
      if (level === 'warn') warnings.push(entry.message);
    },
  });
  // One file: the commands' `await import('./server.js')` become calls inside it.
  const { output } = await bundle.generate({ format: 'cjs', codeSplitting: false });
  await bundle.close();
  if (warnings.length) fail(`the bundle warned:\n${warnings.join('\n')}`);
  if (output.length !== 1) fail(`the bundle came out as ${output.length} files; the executable takes one.`);
  const [chunk] = output;
  const leftover = chunk.imports.filter((id) => !id.startsWith('node:') && !builtinModules.includes(id));
  if (leftover.length) fail(`the bundle still requires ${leftover.join(', ')}, which the executable cannot load.`);
  // Inside the executable no package folder stands beside the code, and process.execPath is the
  // executable itself, not a node: code that reads files next to its module or spawns
  // process.execPath would build and then fail where it runs. core/package-files.ts is the one
  // reader of the package's files (from the assets inside the executable).
  for (const [id, module] of Object.entries(chunk.modules)) {
    const use = /\b(__filename|__dirname|process\.execPath)\b/.exec(module.code ?? '')?.[1];
    if (use && !id.endsWith(`${sep}core${sep}package-files.js`)) {
      fail(
        `${relative(root, id).replace(/^dist[\\/](.*)\.js$/, 'src/$1.ts')} uses ${use}, which inside the executable names no package folder and no node: read the package's files with src/core/package-files.ts (a new folder goes in assets() here), and spawn no process.execPath.`,
      );
    }
  }
  const notices = licences(chunk.moduleIds);
  // The shebang goes: the executable's main script is no file a shell runs.
  const code = chunk.code.replace(/^#!.*\n/, '');
  return `/*! svc-sandbox's CLI as one file for its single executable (scripts/build-binary.mjs).\n\n${notices}\n*/\n${code}`;
}

/** The name, version and licence text of each package a module of the bundle came from. */
function licences(moduleIds) {
  const dirs = new Set();
  for (const id of moduleIds) {
    const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id);
    if (match) dirs.add(match[1]);
  }
  return [...dirs]
    .sort()
    .map((dir) => {
      const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const file = readdirSync(dir).find((entry) => /^licen[cs]e/i.test(entry));
      return `Includes ${name} ${version} (${license}):\n\n${file ? readFileSync(join(dir, file), 'utf8').trim() : `${license} licence`}`;
    })
    .join('\n\n');
}

/** Every file under `dir`, as paths from the package's root with forward slashes. */
function filesUnder(dir, keep = () => true) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The assets, by the names core/package-files.ts asks for. */
function assets() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const files = new Map([['package.json', Buffer.from(JSON.stringify({ name: pkg.name, version: pkg.version }))]]);
  for (const name of [...filesUnder('console', (file) => CONSOLE_FILE.test(file)), ...filesUnder('fixtures')]) {
    files.set(name, readFileSync(join(root, name)));
  }
  return files;
}

/** Runs a command to its end; its output is shown only when it fails. */
function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    const why = result.error?.message ?? `exit ${result.status ?? result.signal}`;
    fail(`${[command, ...args].join(' ')} failed (${why}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
}

/**
 * Node's blob of `main` and `files`, injected into a copy of this Node: the executable, renamed
 * to `out` when whole. `work` (this build's own folder) is removed however it ends.
 */
function inject(main, files, work, out) {
  mkdirSync(join(work, 'assets'), { recursive: true });
  try {
    writeFileSync(join(work, 'cli.cjs'), main);
    const config = { main: join(work, 'cli.cjs'), output: join(work, 'sea-prep.blob'), disableExperimentalSEAWarning: true, assets: {} };
    for (const [name, data] of files) {
      config.assets[name] = join(work, 'assets', String(Object.keys(config.assets).length));
      writeFileSync(config.assets[name], data);
    }
    writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
    run(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')]);
    const binary = join(work, 'svc-sandbox');
    writeFileSync(binary, deafToNodeVariables(readFileSync(process.execPath)));
    chmodSync(binary, 0o755);
    const postject = join(dirname(require.resolve('postject/package.json')), 'dist', 'cli.js');
    const mac = process.platform === 'darwin';
    // macOS: the copy's signature is removed before the injection and an ad-hoc one made after,
    // as Node's documentation of single executables says (not run on this project's CI).
    if (mac) run('codesign', ['--remove-signature', binary]);
    run(process.execPath, [
      postject,
      binary,
      'NODE_SEA_BLOB',
      config.output,
      '--sentinel-fuse',
      FUSE,
      ...(mac ? ['--macho-segment-name', 'NODE_SEA'] : []),
    ]);
    if (mac) run('codesign', ['--sign', '-', binary]);
    renameSync(binary, out);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The environment variables Node reads as it starts, before any script, that change what runs:
 * NODE_OPTIONS (`--require FILE`, `--import`, `--inspect`, any flag), and the ones that load
 * files or change how modules load and warnings go. The executable is the CLI, not a Node: it
 * must run the same whatever the caller's shell holds for its own node (docs/binary.md).
 * NODE_EXTRA_CA_CERTS stays honoured: it adds trust for a receiver's certificate and runs nothing.
 */
const NODE_VARIABLES = [
  'NODE_OPTIONS',
  'NODE_REPL_EXTERNAL_MODULE',
  'NODE_ICU_DATA',
  'NODE_PRESERVE_SYMLINKS',
  'NODE_PENDING_DEPRECATION',
  'NODE_REDIRECT_WARNINGS',
  'NODE_DEBUG_NATIVE',
];

/**
 * A copy of Node's executable that reads none of {@link NODE_VARIABLES}: each name Node's C++
 * looks up (a string of its own between two NULs in the read-only data, after text) is renamed
 * `SVCX_…`, a variable nobody sets. Node 20 has no switch for it (Node 25's sea config takes
 * `execArgvExtension: "none"`, for NODE_OPTIONS only), and a check in the CLI itself would come too
 * late: Node runs NODE_OPTIONS' `--require` before the executable's script. The names inside
 * Node's own JavaScript and its startup snapshot are left alone: they are never NUL-delimited
 * after text. A Node in which a name is not found once, as such a string, stops the build.
 */
function deafToNodeVariables(node) {
  const text = node.toString('latin1');
  for (const name of NODE_VARIABLES) {
    const pattern = new RegExp(`(?<=[\\x20-\\x7e\\n]\\x00)${name}(?=\\x00)`, 'g');
    const at = [...text.matchAll(pattern)].map((m) => m.index);
    if (at.length !== 1)
      fail(
        `${name} is in Node ${process.version}'s executable ${at.length} times as a C string, not once: scripts/build-binary.mjs cannot make the executable ignore it.`,
      );
    node.write(`SVCX${name.slice(4)}`, at[0], 'latin1');
  }
  return node;
}

/** `from` at `to` (a hard link when the file system allows, else a copy), replacing what was there. */
function place(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  const temporary = `${to}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  try {
    linkSync(from, temporary);
  } catch {
    copyFileSync(from, temporary);
  }
  renameSync(temporary, to);
}

/** The executable at dist/bin/svc-sandbox, built when no kept copy matches its inputs. */
async function main() {
  if (!['linux', 'darwin'].includes(process.platform)) fail(`no single executable is built on ${process.platform} yet (docs/binary.md).`);
  // The executable embeds this very Node, and core/package-files.ts finds its assets through
  // process.getBuiltinModule('node:sea') (Node 20.16 and newer).
  if (typeof process.getBuiltinModule !== 'function' || !process.getBuiltinModule('node:sea')) {
    fail(`Node ${process.version} cannot make the executable: build it with Node 20.16 or newer.`);
  }
  const started = Date.now();
  ensureBuilt('build:binary');
  const code = await bundleCli();
  const files = assets();
  const key = inputsHash(code, files);
  const kept = join(CACHE, key, 'svc-sandbox');
  let how = 'unchanged: the kept copy';
  if (!statSync(kept, { throwIfNoEntry: false })?.isFile()) {
    mkdirSync(join(CACHE, key), { recursive: true });
    // A folder of this process's own: two builds at once never write each other's files.
    inject(code, files, join(CACHE, `${key}.${process.pid}.work`), kept);
    // One kept copy, each the size of Node: the others go, and so do work folders a killed build
    // left (those of builds running now, younger than an hour, stay).
    for (const entry of readdirSync(CACHE)) {
      const old = entry.endsWith('.work') && Date.now() - statSync(join(CACHE, entry)).mtimeMs > 3_600_000;
      if (old || (/^[0-9a-f]{16}$/.test(entry) && entry !== key)) rmSync(join(CACHE, entry), { recursive: true, force: true });
    }
    how = 'built';
  }
  const current = statSync(TARGET, { throwIfNoEntry: false });
  const copy = statSync(kept);
  if (!(current?.ino === copy.ino && current.dev === copy.dev)) place(kept, TARGET);
  checkVersion();
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  log(
    `${relative(root, TARGET)}: ${mb(copy.size)} (Node ${process.version} ${process.platform}-${process.arch}, CLI bundle ` +
      `${(code.length / 1024).toFixed(0)} kB, ${files.size} assets), ${how}, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (process.argv.includes('--print-path')) process.stdout.write(`${TARGET}\n`);
}

/** What names a build: this script, the bundle, the assets, the Node copied and postject. */
function inputsHash(code, files) {
  const postject = JSON.parse(readFileSync(require.resolve('postject/package.json'), 'utf8')).version;
  const node = statSync(process.execPath);
  const hash = createHash('sha256');
  for (const part of [
    readFileSync(fileURLToPath(import.meta.url)),
    code,
    `${process.version} ${process.platform} ${process.arch} ${process.execPath} ${node.size} ${node.mtimeMs}`,
    `postject ${postject}`,
  ]) {
    hash.update(part).update('\0');
  }
  for (const [name, data] of files) hash.update(name).update('\0').update(data).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The one check every build gets: the executable starts with an empty environment and reads its embedded package.json. */
function checkVersion() {
  const version = spawnSync(TARGET, ['--version'], { encoding: 'utf8', env: {}, timeout: 30_000 });
  const expected = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  if (version.stdout?.trim() !== expected) {
    fail(
      `${TARGET} --version answered ${JSON.stringify(version.stdout ?? '')} ${version.stderr ?? version.error?.message ?? ''}; expected ${expected}.`,
    );
  }
}

main().catch((error) => {
  log(`build:binary: ${error instanceof BuildError ? error.message : error.stack}`);
  process.exitCode = 1;
});
