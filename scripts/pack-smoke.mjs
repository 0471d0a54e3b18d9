// Proves the packed package works when installed, as a new user meets it: `npm pack`, install
// the tarball into an empty project, then load it from every consumer docs/test-runners.md
// promises, each in a section of its own (timed):
//   ESM import · require() from CommonJS · Jest (default config: CommonJS) · Jest ESM mode ·
//   node --test · svc-sandbox/vitest under vitest · the svc-sandbox bin (serve, and exec running the
//   example suites: examples/python, examples/go, examples/ruby, examples/curl; run on an example
//   scenario) · tsc, skipLibCheck off.
// Before that, in this repo: the build leaves the bin executable, and `npm publish --dry-run`
// has nothing to say about package.json.
// A language whose toolchain is missing here is skipped with a loud line; with CI=true it fails.
// Jest comes from the registry; vitest, TypeScript and @types/node are installed at the
// versions this repo uses, so npm's cache serves them.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jestMatchersSections } from './pack-smoke-jest.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const repo = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'svc-sandbox-pack-'));
const app = join(work, 'app');
const JEST = 'jest@30';
const started = performance.now();
// Plain output from every runner, so the summaries below can be read.
const env = { ...process.env, NO_COLOR: '1' };
delete env.FORCE_COLOR;

/** Runs a command; its output is shown only when it fails. Returns stdout, or stdout and stderr with `both`. */
function run(command, args, { cwd = app, both = false, extraEnv = {} } = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) failed (${result.status ?? result.signal ?? result.error}):\n${result.stdout}${result.stderr}`,
    );
  return both ? result.stdout + result.stderr : result.stdout;
}
const node = (args, options) => run(process.execPath, args, options);
const npm = (args, cwd) => run('npm', args, { cwd });

function write(path, text) {
  mkdirSync(dirname(join(app, path)), { recursive: true });
  writeFileSync(join(app, path), text.replace(/^\n/, ''));
}

/**
 * Starts a server command, checks that the first line it prints is the ready line, places a
 * call through it, stops it with SIGTERM and checks that it stopped. Returns its URL.
 * `exact`: the command must end with code 0 or by the signal (npx; npm run's shell may not).
 */
async function serveThenStop(command, args, cwd, { exact = true } = {}) {
  // Its own process group, so the signal reaches npx (or npm) and the server it started.
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const shown = `${command} ${args.join(' ')}`;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${shown}: no ready line within 30 s:\n${stdout}${stderr}`)), 30_000);
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (!stdout.includes('\n')) return;
        clearTimeout(timer);
        const ready = /^svc-sandbox listening on (http:\/\/\S+)\n/.exec(stdout);
        if (ready) resolve(ready[1]);
        else reject(new Error(`${shown}: the first line is not the ready line:\n${stdout}${stderr}`));
      });
      // `exited` never rejects: it only settles this promise when the command ends before its ready line.
      void exited.then(({ code }) => reject(new Error(`${shown} exited (${code}) before its ready line:\n${stdout}${stderr}`)));
    });
    const res = await fetch(`${url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_bin', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    });
    if (res.status !== 201) throw new Error(`POST ${url}/v1/calls: ${res.status} ${await res.text()}`);
    process.kill(-child.pid, 'SIGTERM');
    // npx ends with the server's code, or by the same signal (npm re-raises it).
    const { code, signal } = await exited;
    if (exact && code !== 0 && signal !== 'SIGTERM')
      throw new Error(`${shown} ended with ${code ?? signal} after SIGTERM:\n${stdout}${stderr}`);
    // The wrapper (npm, npx) may end before the server it started has closed: the server got
    // the same signal, so give it a moment to finish closing before calling it a leak.
    if (!(await stopsAnswering(url, 10_000))) throw new Error(`${url} still answers 10 s after SIGTERM`);
    return url;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  }
}

/** Whether `url` stops accepting connections within `ms` (polled on the wall clock). */
async function stopsAnswering(url, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const down = await fetch(url, { headers: { connection: 'close' } }).then(
      () => false,
      () => true,
    );
    if (down) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const timings = [];
async function section(name, body) {
  const start = performance.now();
  const note = await body();
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  timings.push([name, seconds]);
  console.log(`pack smoke: ok  ${name} (${seconds} s)${note ? `: ${note}` : ''}`);
}

/** The user's story every runtime consumer runs: one file, given the library as it loaded it. */
const SCENARIO = `
const { createHmac } = require('node:crypto');

module.exports = async function scenario({ createSandbox, startServer, verifyWebhook, SandboxError }) {
  const sandbox = createSandbox({ seed: 1 }).listen();
  const headers = { authorization: 'Bearer SVC_TEST_smoke', 'content-type': 'application/json' };
  const api = (path, init) => fetch(sandbox.baseUrl + path, { headers, ...init });
  let call, done;
  try {
    const res = await api('/v1/calls', { method: 'POST', body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }) });
    call = await res.json();
    if (res.status !== 201 || call.status !== 'ringing') throw new Error('create failed: ' + res.status + ' ' + JSON.stringify(call));
    await sandbox.advance('65s');
    done = await (await api('/v1/calls/' + call.id)).json();
    if (done.status !== 'completed' || done.duration !== 60) throw new Error('lifecycle failed: ' + JSON.stringify(done));
    await sandbox.advance('30s'); // recording, then transcript and summary (fixtures/conversations)
    const types = sandbox.events.list().map((e) => e.type).join(',');
    if (types !== 'call.started,call.answered,call.completed,recording.ready,transcript.ready') throw new Error('events: ' + types);
    const transcript = await (await api('/v1/transcripts/' + done.transcript_id)).json();
    if (transcript.status !== 'ready' || !transcript.segments.length || !transcript.summary) throw new Error('transcript: ' + JSON.stringify(transcript));
    // The number pool comes from fixtures/number-inventory.json in the installed package.
    const found = await (await api('/v1/numbers?kind=local&limit=1')).json();
    const provisioned = await api('/v1/numbers', { method: 'POST', body: JSON.stringify({ number: found.data[0].number }) });
    if (provisioned.status !== 201) throw new Error('provision: ' + provisioned.status);
    // Scenario control: an injected fault, then the same request served.
    sandbox.faults.inject({ method: 'GET', path: '/v1/calls/{id}', status: 503 });
    const faulted = await api('/v1/calls/' + call.id);
    if (faulted.status !== 503 || (await faulted.json()).error.code !== 'service_unavailable') throw new Error('fault: ' + faulted.status);
    if ((await api('/v1/calls/' + call.id)).status !== 200) throw new Error('fault not used up');
  } finally {
    sandbox.close();
  }
  let misuse;
  try {
    await sandbox.advance('1s');
  } catch (error) {
    misuse = error;
  }
  if (!(misuse instanceof SandboxError)) throw new Error('advancing a closed sandbox should throw SandboxError, got ' + misuse);
  const secret = 'whsec_test';
  const body = '{"id":"evt_1"}';
  if (!verifyWebhook(body, createHmac('sha256', secret).update(body).digest('hex'), secret) || verifyWebhook(body, 'nope', secret)) throw new Error('verifyWebhook');
  // The console's files come from console/ in the installed package.
  const server = await startServer({ port: 0 });
  try {
    const page = await fetch(server.url + '/__sandbox/console');
    if (page.status !== 200 || !(await page.text()).includes('<html')) throw new Error('console: ' + page.status);
  } finally {
    await server.close();
  }
  return 'placed ' + call.id + ' -> ' + done.status + ' (' + done.duration + 's), transcript, number, fault, SandboxError, verifyWebhook, console';
};
`;

try {
  let tarball;
  await section('pack', () => {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root));
    tarball = join(work, packed.filename);
    const files = packed.files.map((f) => f.path);
    const required = [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cjs/index.cjs',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'dist/vitest.js',
      'dist/vitest.d.ts',
      'dist/server/cli.js',
      'fixtures/number-inventory.json',
      'console/index.html',
    ];
    for (const file of required) if (!files.includes(file)) throw new Error(`the tarball lacks ${file}`);
    if (files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.includes('.test.')))
      throw new Error('the tarball ships sources or tests');
    return `${packed.filename}, ${files.length} files, ${(packed.size / 1024).toFixed(1)} kB packed`;
  });

  await section('the bin in this repo, as the build left it (npm pack ran npm run build)', () => {
    const cli = join(root, 'dist/server/cli.js');
    try {
      accessSync(cli, constants.X_OK);
    } catch {
      throw new Error('dist/server/cli.js is not executable after the build: `npx svc-sandbox` answers Permission denied');
    }
    const direct = run(cli, ['--help'], { cwd: root });
    if (!direct.startsWith('Usage: svc-sandbox')) throw new Error(`dist/server/cli.js --help printed:\n${direct}`);
    const viaNpx = run('npx', ['--no-install', 'svc-sandbox', '--help'], { cwd: root });
    if (viaNpx !== direct) throw new Error(`npx svc-sandbox --help in the repo printed:\n${viaNpx}`);
    // Publishing is one command away: nothing for npm to correct in package.json (the bin's
    // path, files). Dist is built already, so no prepack; not being logged in is expected here.
    const publish = run('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: root, both: true });
    const warnings = publish
      .split('\n')
      .filter((line) => /^npm (warn|WARN|ERR)/.test(line) && !/logged in|Unknown (user|env|project|global) config/.test(line));
    if (warnings.length) throw new Error(`npm publish --dry-run warned:\n${warnings.join('\n')}`);
    return 'executable, --help directly and through npx; npm publish --dry-run clean';
  });

  await section('npm run --silent serve in this repo: dist is current, so no build, and the ready line first', async () => {
    const { staleReason } = await import('./ensure-built.mjs');
    const stale = staleReason();
    if (stale) throw new Error(`right after a build, scripts/ensure-built.mjs would build again: ${stale}`);
    const started = performance.now();
    await serveThenStop('npm', ['run', '--silent', 'serve', '--', '--port', '0'], root, { exact: false });
    return `ready in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  });

  await section('install into an empty project', () => {
    write('package.json', JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }));
    const dev = repo.devDependencies;
    const extra = [JEST, '@types/jest@30', `vitest@${dev.vitest}`, `typescript@${dev.typescript}`, `@types/node@${dev['@types/node']}`];
    const installed = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...extra], { cwd: app, both: true });
    // The packed manifest keeps no install-time script, so npm has nothing to warn about it.
    const warned = installed.split('\n').filter((line) => /warn/i.test(line) && /svc-sandbox/.test(line));
    if (warned.length) throw new Error(`installing the tarball warned about svc-sandbox:\n${warned.join('\n')}`);
    write('scenario.cjs', SCENARIO);
    return `svc-sandbox + ${extra.join(', ')}`;
  });

  await section('ESM import', () => {
    write(
      'esm/smoke.mjs',
      `
import * as lib from 'svc-sandbox';
import scenario from '../scenario.cjs';
if (!import.meta.resolve('svc-sandbox').endsWith('/dist/index.js')) throw new Error('import resolved ' + import.meta.resolve('svc-sandbox'));
console.log(await scenario(lib));
`,
    );
    return node(['esm/smoke.mjs']).trim();
  });

  await section('require() from CommonJS', () => {
    write(
      'cjs/smoke.cjs',
      `
const lib = require('svc-sandbox');
const scenario = require('../scenario.cjs');
if (!require.resolve('svc-sandbox').endsWith('/dist/cjs/index.cjs')) throw new Error('require resolved ' + require.resolve('svc-sandbox'));
scenario(lib).then((note) => console.log(note), (error) => { console.error(error); process.exitCode = 1; });
`,
    );
    // Without require(esm) (Node before 20.19, and Jest): proves nothing in the CommonJS build is ESM.
    return node(['--no-experimental-require-module', 'cjs/smoke.cjs']).trim();
  });

  const FAKE_TIMERS_TEST = `
test("jest's fake timers leave the sandbox's clock alone", async () => {
  jest.useFakeTimers();
  const sandbox = lib.createSandbox({ seed: 2 }).listen();
  try {
    const headers = { authorization: 'Bearer SVC_TEST_smoke', 'content-type': 'application/json' };
    const res = await fetch(sandbox.baseUrl + '/v1/calls', { method: 'POST', headers, body: JSON.stringify({ to: '+15005550002', from: '+14155550100' }) });
    expect(res.status).toBe(201);
    jest.advanceTimersByTime(3_600_000);
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['call.started']);
    const completed = await sandbox.advanceUntil('call.completed');
    expect(completed.data).toMatchObject({ disposition: 'busy' });
  } finally {
    sandbox.close();
    jest.useRealTimers();
  }
});
`;
  const jestPassed = (output, count) => {
    if (!new RegExp(`Tests:\\s+${count} passed, ${count} total`).test(output))
      throw new Error(`jest did not pass ${count} tests:\n${output}`);
  };

  await section('Jest, default config (CommonJS)', () => {
    // A project of its own with no "type" and no Jest config: babel-jest, testEnvironment node.
    write('jest-cjs/package.json', JSON.stringify({ name: 'jest-cjs', private: true }));
    write(
      'jest-cjs/sandbox.test.js',
      `
const lib = require('svc-sandbox');
const scenario = require('../scenario.cjs');

test('the installed package, required', async () => {
  expect(require.resolve('svc-sandbox')).toMatch(/dist\\/cjs\\/index\\.cjs$/);
  await scenario(lib);
});
${FAKE_TIMERS_TEST}`,
    );
    // docs/clock-and-determinism.md's Jest recipe ("Testing back-off"), as a user pastes it:
    // createSandbox({ clock: 'global' }) under Jest's own modern fake timers.
    const recipe = /```js recipe=jest\n([\s\S]*?)```/.exec(readFileSync(join(root, 'docs/clock-and-determinism.md'), 'utf8'))?.[1];
    if (!recipe) throw new Error('docs/clock-and-determinism.md has no ```js recipe=jest block');
    write('jest-cjs/backoff-recipe.test.js', recipe);
    const output = run(process.execPath, [join(app, 'node_modules/jest/bin/jest.js'), '--ci'], { cwd: join(app, 'jest-cjs'), both: true });
    jestPassed(output, 3);
    return `${JEST}: 3 tests (the docs' back-off recipe under Jest's fake timers included)`;
  });

  await section('Jest, ESM mode (--experimental-vm-modules)', () => {
    write('jest-esm/package.json', JSON.stringify({ name: 'jest-esm', private: true }));
    write(
      'jest-esm/sandbox.test.mjs',
      `
import { jest } from '@jest/globals';
import * as lib from 'svc-sandbox';
import scenario from '../scenario.cjs';

test('the installed package, imported', async () => {
  await scenario(lib);
});
${FAKE_TIMERS_TEST}`,
    );
    const output = run(
      process.execPath,
      ['--experimental-vm-modules', '--no-warnings', join(app, 'node_modules/jest/bin/jest.js'), '--ci'],
      { cwd: join(app, 'jest-esm'), both: true },
    );
    jestPassed(output, 2);
    return '2 tests';
  });

  // svc-sandbox/jest: the matchers under Jest CJS and ESM, and their types with skipLibCheck off.
  await jestMatchersSections({ section, write, run, app, jestPassed });

  await section('node --test', () => {
    write(
      'node-test/sandbox.test.mjs',
      `
import { test } from 'node:test';
import * as lib from 'svc-sandbox';
import scenario from '../scenario.cjs';

test('the installed package, imported', () => scenario(lib));
`,
    );
    write(
      'node-test/sandbox.test.cjs',
      `
const { test } = require('node:test');
const lib = require('svc-sandbox');
const scenario = require('../scenario.cjs');

test('the installed package, required', () => scenario(lib));
`,
    );
    const output = node(['--test', '--test-reporter=tap', 'sandbox.test.mjs', 'sandbox.test.cjs'], { cwd: join(app, 'node-test') });
    if (!/^# pass 2$/m.test(output) || !/^# fail 0$/m.test(output)) throw new Error(`node --test:\n${output}`);
    return '2 tests (ESM and CommonJS)';
  });

  await section('svc-sandbox/vitest under vitest', () => {
    write('vitest/package.json', JSON.stringify({ name: 'vitest-app', private: true, type: 'module' }));
    write(
      'vitest/sandbox.test.ts',
      `
import { describe } from 'vitest';
import { expect, test } from 'svc-sandbox/vitest';
import type { Sandbox } from 'svc-sandbox';

const headers = { authorization: 'Bearer SVC_TEST_smoke', 'content-type': 'application/json' };
let previous: Sandbox | undefined;

test('a busy number ends busy', async ({ sandbox }) => {
  const res = await fetch(sandbox.baseUrl + '/v1/calls', { method: 'POST', headers, body: JSON.stringify({ to: '+15005550002', from: '+14155550100' }) });
  expect(res.status).toBe(201);
  await sandbox.advanceUntil('call.completed');
  expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
  expect(sandbox).not.toHaveEmitted('call.answered');
  expect(() => expect(sandbox).toHaveEmitted('call.answered')).toThrow(/expected the sandbox to have emitted call.answered/);
  previous = sandbox;
});

test('the sandbox of the previous test was closed', async ({ sandbox }) => {
  expect(sandbox).not.toBe(previous);
  await expect(previous!.advance('1s')).rejects.toThrow(/closed/);
});

describe('options for a suite', () => {
  test.override({ sandboxOptions: { seed: 7, baseUrl: 'https://seven.svc.test' } });
  test('sandboxOptions reach the sandbox', ({ sandbox }) => {
    expect(sandbox.baseUrl).toBe('https://seven.svc.test');
  });
});
`,
    );
    const output = node([join(app, 'node_modules/vitest/vitest.mjs'), 'run'], { cwd: join(app, 'vitest') });
    if (!/Tests\s+3 passed \(3\)/.test(output)) throw new Error(`vitest did not pass 3 tests:\n${output}`);
    return `vitest ${repo.devDependencies.vitest}: 3 tests`;
  });

  await section('the svc-sandbox bin (npx svc-sandbox serve --port 0)', async () => {
    const version = run('npx', ['--no-install', 'svc-sandbox', '--version']).trim();
    if (version !== repo.version) throw new Error(`svc-sandbox --version printed ${version}`);
    const url = await serveThenStop('npx', ['--no-install', 'svc-sandbox', 'serve', '--port', '0'], app);
    return `ready line first, a call placed at ${url}, stopped by SIGTERM`;
  });

  // The polyglot path end to end, as a user runs it: `npx svc-sandbox exec -- <their test
  // command>` in their project. exec starts the server, sets SVC_API_BASE_URL, SVC_SANDBOX_URL
  // and SVC_API_KEY, runs the command, passes its exit code on. The Go, Ruby and curl suites are
  // copied into the project (npx finds the installed bin from a folder below it).
  const goCache = join(work, 'go');
  const EXAMPLES = [
    {
      name: 'Python',
      // Debian's Python, which has pytest (python3-pytest); the helper installed into a venv as
      // clients/python/README.md says, offline, from a copy (setuptools writes build files beside it).
      tools: ['/usr/bin/python3'],
      setup: () => {
        cpSync(join(root, 'clients/python'), join(work, 'python-src'), { recursive: true });
        run('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', join(work, 'venv')]);
        run(join(work, 'venv/bin/pip'), ['install', '--quiet', '--no-build-isolation', '--no-index', join(work, 'python-src')]);
        return {};
      },
      command: [join(work, 'venv/bin/python'), '-m', 'pytest', '-p', 'no:cacheprovider', join(root, 'examples/python')],
      // pytest's closing line when nothing failed: "==== 43 passed in 1.2s ====".
      passed: (out) => /^=+ (\d+) passed in [\d.]+s =+$/m.exec(out)?.[1],
    },
    {
      name: 'Go',
      dir: 'go',
      tools: ['go'],
      // The example requires the helper through a `replace` to ../../clients/go, as a user's module
      // would before a release: the helper goes beside the app's copy.
      setup: () => {
        cpSync(join(root, 'clients/go'), join(work, 'clients/go'), { recursive: true });
        return {};
      },
      command: ['go', 'test', '-count=1', '-v', './...'],
      // Off the network: the example has no module to download.
      env: { GOCACHE: join(goCache, 'cache'), GOPATH: join(goCache, 'path'), GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' },
      passed: (out) => /^ok\s/m.test(out) && !/^(--- )?FAIL/m.test(out) && String(out.match(/^--- PASS/gm)?.length ?? ''),
    },
    {
      name: 'Ruby',
      dir: 'ruby',
      tools: ['ruby', 'rake', 'gem'],
      // The examples use the svc_sandbox gem, installed as clients/ruby/README.md says (offline,
      // from a built .gem); GEM_PATH keeps Ruby's own gems (minitest, rake).
      setup: () => {
        const gems = join(work, 'gems');
        const built = join(work, 'svc_sandbox.gem');
        cpSync(join(root, 'clients/ruby'), join(work, 'ruby-src'), { recursive: true });
        run('gem', ['build', 'svc_sandbox.gemspec', '-o', built], { cwd: join(work, 'ruby-src') });
        run('gem', ['install', '--local', '--no-document', '--install-dir', gems, built]);
        const system = run('gem', ['env', 'gempath']).trim();
        return { GEM_HOME: gems, GEM_PATH: `${gems}:${system}` };
      },
      command: ['rake', 'test'],
      passed: (out) => /(\d+) runs, \d+ assertions, 0 failures, 0 errors/.exec(out)?.[1],
    },
    {
      name: 'curl',
      dir: 'curl',
      tools: ['curl', 'openssl'],
      command: ['sh', 'test.sh'],
      passed: (out) => /^# fail 0$/m.test(out) && /^# pass (\d+)$/m.exec(out)?.[1],
    },
  ];
  const skipped = [];
  // Each suite's coverage report (exec --coverage): written when the command ends, and read back.
  const coverageFiles = [];
  const missingTool = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0;
  for (const example of EXAMPLES) {
    await section(`svc-sandbox exec: the ${example.name} example suite through the installed bin`, () => {
      const missing = example.tools.filter(missingTool);
      if (missing.length) {
        const message = `${missing.join(', ')} not found: the ${example.name} example suite did not run`;
        if (process.env.CI === 'true') throw new Error(`${message} (CI must install it: .ci/run)`);
        console.log(`pack smoke: SKIPPED  ${message} (install it to run it here; CI requires it)`);
        skipped.push(example.name);
        return 'SKIPPED';
      }
      const cwd = example.dir ? join(app, example.dir) : app;
      if (example.dir) cpSync(join(root, 'examples', example.dir), cwd, { recursive: true });
      const setupEnv = example.setup?.() ?? {};
      const coverage = join(work, 'coverage', `${example.name}.json`);
      const output = run('npx', ['--no-install', 'svc-sandbox', 'exec', '--coverage', coverage, '--', ...example.command], {
        cwd,
        both: true,
        extraEnv: { ...example.env, ...setupEnv },
      });
      const count = example.passed(output);
      if (!count) throw new Error(`the ${example.name} suite did not pass:\n${output}`);
      if (!existsSync(coverage)) throw new Error(`exec --coverage wrote no ${coverage}:\n${output}`);
      const report = JSON.parse(readFileSync(coverage, 'utf8'));
      const exercised = Object.values(report.endpoints ?? {})
        .flatMap((statuses) => Object.values(statuses))
        .filter((n) => n > 0).length;
      if (report.format !== 'svc-sandbox-coverage' || report.version !== 1 || !Array.isArray(report.uncovered) || exercised === 0) {
        throw new Error(
          `the ${example.name} suite's coverage report is not one, or saw no request: ${JSON.stringify(report).slice(0, 300)}`,
        );
      }
      coverageFiles.push(coverage);
      return `${count} ${example.name} tests passed (${example.command.slice(0, 3).join(' ')} …); coverage: ${exercised} endpoint statuses seen, ${report.uncovered.length} items never exercised`;
    });
  }

  if (coverageFiles.length > 0) {
    await section('svc-sandbox coverage: the union of the example suites, as text and HTML', () => {
      const html = join(work, 'coverage', 'examples.html');
      const summary = run('npx', ['--no-install', 'svc-sandbox', 'coverage', ...coverageFiles, '--html', html]);
      if (!/^coverage of \d+ sandbox/.test(summary) || !readFileSync(html, 'utf8').startsWith('<!doctype html>'))
        throw new Error(`svc-sandbox coverage printed:\n${summary}`);
      return summary.split('\n')[0];
    });
  }

  await section('svc-sandbox run: an example scenario through the installed bin, with the published schema', () => {
    const file = join(root, 'examples/scenarios/busy-then-answered.json');
    const output = run('npx', ['--no-install', 'svc-sandbox', 'run', file, '--svg', join(work, 'timeline.svg')]);
    if (!/^PASS /m.test(output) || !/^1 scenario passed$/m.test(output)) throw new Error(`svc-sandbox run printed:\n${output}`);
    const schema = node([
      '--input-type=module',
      '-e',
      "import { createRequire } from 'node:module'; console.log(createRequire(import.meta.url).resolve('svc-sandbox/scenario.schema.json'))",
    ]).trim();
    if (!schema.endsWith('schemas/scenario.schema.json')) throw new Error(`svc-sandbox/scenario.schema.json resolved to ${schema}`);
    return 'the busy-then-answered example passed; svc-sandbox/scenario.schema.json resolves';
  });

  await section("svc-sandbox exec passes the command's exit code on", () => {
    const { status: code } = spawnSync(
      'npx',
      [
        '--no-install',
        'svc-sandbox',
        'exec',
        '--',
        process.execPath,
        '-e',
        'process.exit(process.env.SVC_API_KEY?.startsWith("SVC_TEST_") ? 5 : 1)',
      ],
      { cwd: app, env, stdio: 'ignore' },
    );
    if (code !== 5) throw new Error(`exec passed on exit code ${code}, not the command's 5`);
  });

  await section('tsc --noEmit, skipLibCheck false', () => {
    write('types/package.json', JSON.stringify({ name: 'types-app', private: true, type: 'module' }));
    const options = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      noEmit: true,
      types: ['node'],
    };
    write('types/tsconfig.json', JSON.stringify({ compilerOptions: options, files: ['esm.ts', 'cjs.cts'] }, null, 2));
    write(
      'types/esm.ts',
      `
import { createSandbox, startServer, SandboxError, verifyWebhook, type Call, type ListBody, type SandboxEvent } from 'svc-sandbox';
import { expect, test } from 'svc-sandbox/vitest';

const sandbox = createSandbox({ seed: 1, baseUrl: 'https://api.svc.test' });
export const call: Call | undefined = sandbox.calls.get('call_1');
export const completed: Promise<SandboxEvent<'call.completed'>> = sandbox.advanceUntil('call.completed', { max: '1m' });
export const page: ListBody<Call> = { data: [], next_cursor: null, has_more: false };
export const ok: boolean = verifyWebhook('{}', 'sig', 'secret');
export const server = startServer({ port: 0 }).then((s) => s.url);
export const isMisuse = (error: unknown): error is SandboxError => error instanceof SandboxError;
// @ts-expect-error: not an event type
void sandbox.advanceUntil('call.finished');

test('typed fixtures and matcher', async ({ sandbox, sandboxOptions }) => {
  expect(sandboxOptions.seed).toBeUndefined();
  expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
  // @ts-expect-error: not an event type
  expect(sandbox).toHaveEmitted('call.finished');
});
`,
    );
    write(
      'types/cjs.cts',
      `
// A CommonJS file: this import compiles to require() and is typed by the require condition.
import { createSandbox, SandboxError, type Sandbox } from 'svc-sandbox';

export const sandbox: Sandbox = createSandbox({ seed: 1 });
export const isMisuse = (error: unknown): error is SandboxError => error instanceof SandboxError;
`,
    );
    const files = run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--listFiles'], {
      cwd: join(app, 'types'),
    });
    for (const declaration of ['svc-sandbox/dist/index.d.ts', 'svc-sandbox/dist/cjs/index.d.ts', 'svc-sandbox/dist/vitest.d.ts']) {
      if (!files.includes(`node_modules/${declaration}`)) throw new Error(`tsc did not read ${declaration}:\n${files}`);
    }
    return `typescript ${repo.devDependencies.typescript}: ESM (.ts), CommonJS (.cts) and svc-sandbox/vitest types`;
  });

  const pkg = JSON.parse(readFileSync(join(app, 'node_modules/svc-sandbox/package.json'), 'utf8'));
  for (const entry of [pkg.exports['.'].import.types, pkg.exports['.'].require.types, pkg.exports['./vitest'].types]) {
    if (!existsSync(join(app, 'node_modules/svc-sandbox', entry))) throw new Error(`exports types ${entry} missing`);
  }
  console.log(`pack smoke: all ${timings.length} sections passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (skipped.length) console.log(`pack smoke: SKIPPED the ${skipped.join(', ')} example suite(s): toolchain missing here`);
} finally {
  if (process.env.KEEP_SMOKE) console.log(`pack smoke: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
