#!/usr/bin/env node
// Runs every Python, shell (curl), Go and Ruby snippet of README.md and docs/ that is marked to
// run (docs/contributing.md, "Snippets that run"), each under its own `svc-sandbox exec`, with the
// language helper installed the way its README says: Python with Debian's python3 in a venv
// (pip install --no-build-isolation --no-index ./clients/python), Go with a `replace` of the
// helper's module to clients/go (offline), Ruby with the gem built and installed locally. A
// snippet that fails is named by its doc and line, with its output. JavaScript and TypeScript
// snippets run in vitest (test/docs/snippets.test.ts).
//
//   SVC_SANDBOX_BIN=dist/server/cli.js node test/docs/snippets.mjs    # after npm run build
//
// A missing toolchain skips its language with a loud line; with CI=true it fails the run.
// Exits 0 when every snippet passed, 1 when one failed, 2 for bad arguments.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allFences, badMarks } from './fences.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ci = process.env.CI === 'true';
const bin = process.env.SVC_SANDBOX_BIN && resolve(process.env.SVC_SANDBOX_BIN);
if (!bin || !existsSync(bin)) {
  console.error(
    `snippets.mjs: set SVC_SANDBOX_BIN to the svc-sandbox executable (dist/server/cli.js after npm run build); got ${bin ?? 'nothing'}`,
  );
  process.exit(2);
}
const executable = (() => {
  try {
    accessSync(bin, constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();
/** `svc-sandbox exec -- ...command` as argv. */
const exec = (command) => [...(executable ? [bin] : [process.execPath, bin]), 'exec', '--', ...command];

const fences = allFences(root);
const marks = badMarks(fences);
if (marks.length > 0) {
  console.error(`snippets.mjs: blocks without a valid mark:\n  ${marks.join('\n  ')}`);
  process.exit(1);
}
const LANGS = ['python', 'sh', 'go', 'ruby'];
const snippets = fences.filter((f) => LANGS.includes(f.lang) && (f.kind === 'run' || f.kind === 'pytest'));

const work = mkdtempSync(join(tmpdir(), 'svc-snippets-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
// The helpers connect to exec's server: never to one of an enclosing exec.
const env = { ...process.env, SVC_SANDBOX_BIN: bin };
for (const name of ['SVC_SANDBOX_URL', 'SVC_API_BASE_URL', 'SVC_API_KEY']) delete env[name];

/** Runs a set-up command; its output when it fails. */
function setUp(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000, env, ...options });
  if (result.status === 0) return null;
  return `${command} ${args.join(' ')}: ${result.error?.message ?? `exit ${result.status}`}\n${result.stdout ?? ''}${result.stderr ?? ''}`;
}
const has = (command) => spawnSync(command, ['--version'], { encoding: 'utf8' }).status === 0;

/**
 * Per language: how to make the toolchain ready (null when it is missing: the reason), and how
 * to run one snippet written to `dir`.
 */
const LANGUAGES = {
  python: {
    ready() {
      const python = process.env.SVC_SANDBOX_PYTHON ?? '/usr/bin/python3';
      if (!existsSync(python)) return { missing: `${python} (apt-get install python3 python3-venv python3-pytest)` };
      const venv = join(work, 'venv');
      const failed =
        setUp(python, ['-m', 'venv', '--system-site-packages', venv]) ??
        setUp(join(venv, 'bin/pip'), ['install', '--quiet', '--no-build-isolation', '--no-index', './clients/python'], { cwd: root });
      if (failed) return { failed };
      return { python: join(venv, 'bin/python') };
    },
    run(ready, snippet, dir) {
      const file = join(dir, snippet.kind === 'pytest' ? 'test_snippet.py' : 'snippet.py');
      writeFileSync(file, snippet.code);
      return snippet.kind === 'pytest' ? [ready.python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', file] : [ready.python, file];
    },
  },
  sh: {
    ready: () => (has('curl') ? {} : { missing: 'curl (apt-get install curl)' }),
    run(_, snippet, dir) {
      writeFileSync(join(dir, 'snippet.sh'), snippet.code);
      return ['sh', '-eu', join(dir, 'snippet.sh')];
    },
  },
  go: {
    ready() {
      if (spawnSync('go', ['version']).status !== 0) return { missing: 'go (apt-get install golang-go)' };
      Object.assign(env, {
        GOPATH: join(work, 'gopath'),
        GOCACHE: join(work, 'gocache'),
        GOFLAGS: '-mod=mod',
        GOPROXY: 'off',
        GOTOOLCHAIN: 'local',
      });
      return {};
    },
    run(_, snippet, dir) {
      const module = 'github.com/svc-sandbox/svc-sandbox/clients/go';
      writeFileSync(
        join(dir, 'go.mod'),
        `module snippets\n\ngo 1.19\n\nrequire ${module} v0.0.0\n\nreplace ${module} => ${join(root, 'clients/go')}\n`,
      );
      writeFileSync(join(dir, 'snippet_test.go'), snippet.code);
      return ['go', 'test', '-count=1', '.'];
    },
  },
  ruby: {
    ready() {
      if (!has('ruby') || !has('gem')) return { missing: 'ruby (apt-get install ruby)' };
      const source = join(work, 'gem');
      cpSync(join(root, 'clients/ruby'), source, { recursive: true, filter: (path) => !/\/(test|spec)$/.test(path) });
      const gems = join(work, 'gems');
      const failed = setUp('gem', ['build', 'svc_sandbox.gemspec'], { cwd: source });
      if (failed) return { failed };
      const gem = readdirSync(source).find((name) => name.endsWith('.gem'));
      const installed = setUp('gem', ['install', '--local', '--no-document', '--install-dir', gems, join(source, gem)]);
      if (installed) return { failed: installed };
      const gemPath = spawnSync('gem', ['env', 'gempath'], { encoding: 'utf8' }).stdout.trim();
      Object.assign(env, { GEM_HOME: gems, GEM_PATH: `${gems}:${gemPath}` });
      return {};
    },
    run(_, snippet, dir) {
      writeFileSync(join(dir, 'snippet.rb'), snippet.code);
      return ['ruby', join(dir, 'snippet.rb')];
    },
  },
};

let passed = 0;
const failures = [];
const skipped = [];
for (const lang of LANGS) {
  const mine = snippets.filter((s) => s.lang === lang);
  if (mine.length === 0) continue;
  const ready = LANGUAGES[lang].ready();
  if (ready.failed) {
    failures.push(`${lang}: setting up failed:\n${ready.failed}`);
    continue;
  }
  if (ready.missing) {
    const line = `SKIPPED ${mine.length} ${lang} snippet(s): ${ready.missing} is missing${ci ? ' (CI=true: a failure)' : ''}`;
    console.log(line);
    (ci ? failures : skipped).push(line);
    continue;
  }
  for (const snippet of mine) {
    const dir = join(work, 'snippets', `${snippet.doc.replace(/\W+/g, '-')}-${snippet.line}`);
    mkdirSync(dir, { recursive: true });
    const command = LANGUAGES[lang].run(ready, snippet, dir);
    const started = performance.now();
    const [file, ...args] = exec(command);
    const result = spawnSync(file, args, { cwd: dir, encoding: 'utf8', timeout: 180_000, env });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (result.status === 0) {
      passed++;
      console.log(`ok   ${snippet.where} (${lang} ${snippet.kind}, ${seconds} s)`);
    } else {
      const why = result.error ? result.error.message : `exit ${result.status}${result.signal ? ` (${result.signal})` : ''}`;
      console.log(`FAIL ${snippet.where} (${lang} ${snippet.kind}, ${seconds} s): ${why}`);
      failures.push(`${snippet.where}: ${lang} ${snippet.kind}: ${why}\n${result.stdout}${result.stderr}`.trimEnd());
    }
  }
}

for (const failure of failures) console.error(`\n${failure}`);
console.log(`\nsnippets: ${passed} passed, ${failures.length} failed${skipped.length ? `, ${skipped.length} languages skipped` : ''}`);
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
