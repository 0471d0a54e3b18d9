import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { CLI, ensureBuilt, ROOT } from './built-cli.js';

/**
 * The single executable (`npm run build:binary`, docs/binary.md) as a Python, Go or Ruby suite
 * runs it: dist/bin/svc-sandbox in a child process whose environment is a PATH with no node,
 * npm or npx on it (a folder of links to `sh`, `env` and `sleep` only) and nothing else, in a
 * folder away from the repository. Its answers are compared with the library's and the node
 * bin's, so a fixture or a console file missing from the executable shows as a difference.
 */

const tmp = mkdtempSync(join(tmpdir(), 'svc-binary-'));
const TOOLS = join(tmp, 'tools');
/** The whole environment of every run: nothing of this process's leaks in. */
const ENV = { PATH: TOOLS, SVC_MARKER: 'a value the command must see unchanged' };
let BIN = '';

/** The tools the commands below use, linked from the system's folders (never node's). */
function linkTools(): void {
  mkdirSync(TOOLS);
  for (const tool of ['sh', 'env', 'sleep']) {
    const found = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
    if (!found) throw new Error(`no ${tool} in /usr/bin or /bin`);
    symlinkSync(found, join(TOOLS, tool));
  }
}

beforeAll(async () => {
  // dist/ first, under the lock every CLI test file shares; then the executable, which the
  // build keeps under node_modules/.cache by the hash of its inputs (a fresh one takes ~10 s).
  await ensureBuilt();
  BIN = execFileSync(process.execPath, [`${ROOT}scripts/build-binary.mjs`, '--print-path'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 300_000,
  }).trim();
  linkTools();
}, 300_000);

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The executable with `args`, to its end (bounded by the test's timeout). */
function run(args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: ENV, cwd: tmp, timeout: 15_000 }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: number; signal?: NodeJS.Signals }) | null;
      resolve({ code: failed ? (failed.code ?? null) : 0, signal: failed?.signal ?? null, stdout, stderr });
    });
  });
}

/** The executable started with `args`; resolves its first stdout line, and its exit. */
function start(args: string[], stdin: 'ignore' | 'pipe' = 'ignore') {
  const child = spawn(BIN, args, { env: ENV, cwd: tmp, stdio: [stdin, 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    child.once('exit', () => reject(new Error(`exited before its first line: ${stdout}${stderr}`)));
  });
  firstLine.catch(() => undefined);
  const exit = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, firstLine, exit };
}

describe.skipIf(process.platform === 'win32')('the single executable, with no Node on PATH', () => {
  it('is a native executable, and its PATH has no node, npm or npx', () => {
    expect(readFileSync(BIN).subarray(0, 4)).toEqual(Buffer.from(process.platform === 'darwin' ? 'cffaedfe' : '7f454c46', 'hex'));
    const found = spawnSync('sh', ['-c', 'command -v node; command -v npm; command -v npx; command -v env'], {
      env: ENV,
      encoding: 'utf8',
    });
    expect(found.stdout.trim().split('\n')).toEqual([join(TOOLS, 'env')]);
  });

  it('--version prints the package version; --help the commands; a bad flag exits 2 naming it', async () => {
    const version = await run(['--version']);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version}\n`);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }));
    const bad = await run(['serve', '--prot', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "svc-sandbox: Unknown option '--prot'; did you mean --port?\nUsage: svc-sandbox serve [options]  (svc-sandbox serve --help lists them)\n",
    );
  });

  it("regression: ignores NODE_OPTIONS and Node's other start-up variables (a bad --require exited 1, a given file ran inside it)", async () => {
    const marker = join(tmp, 'required-ran');
    const required = join(tmp, 'required.cjs');
    writeFileSync(required, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    const hostile = {
      NODE_OPTIONS: `--require ${required} --max-old-space-size=1`,
      NODE_REPL_EXTERNAL_MODULE: required,
      NODE_ICU_DATA: join(tmp, 'no-icu-here'),
      NODE_PRESERVE_SYMLINKS: '1',
      NODE_PENDING_DEPRECATION: '1',
      NODE_REDIRECT_WARNINGS: join(tmp, 'warnings.txt'),
    };
    const version = await new Promise<Exit>((resolve) => {
      execFile(BIN, ['--version'], { env: { ...ENV, ...hostile }, cwd: tmp, timeout: 15_000 }, (error, stdout, stderr) => {
        const failed = error as (Error & { code?: number; signal?: NodeJS.Signals }) | null;
        resolve({ code: failed ? (failed.code ?? null) : 0, signal: failed?.signal ?? null, stdout, stderr });
      });
    });
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(marker)).toBe(false);
    const broken = await new Promise<number | null>((resolve) => {
      execFile(BIN, ['--version'], { env: { ...ENV, NODE_OPTIONS: '--require /no/such/file.js' }, timeout: 15_000 }, (error) =>
        resolve(error ? ((error as { code?: number }).code ?? null) : 0),
      );
    });
    expect(broken).toBe(0);
  });

  it("every command the help lists is inside: each one's --help answers as the node bin's does", async () => {
    // Read from the help, so a command added to the CLI is checked here with no change to this test.
    const commands = [...execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map(
      (m) => m[1]!,
    );
    expect(commands).toEqual(expect.arrayContaining(['serve', 'exec', 'run', 'trigger', 'coverage']));
    for (const command of commands) {
      const node = spawnSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8', cwd: tmp });
      expect({ command, ...(await run([command, '--help'])) }).toMatchObject({
        command,
        code: node.status,
        stdout: node.stdout,
        stderr: node.stderr,
      });
    }
  });

  it('serve: the ready line, /v1 answers the library gives (numbers, templates, conversations), the console, trigger, and exit 0 on SIGTERM', async () => {
    const serve = start(['serve', '--port', '0', '--seed', '7']);
    const line = await serve.firstLine;
    expect(line).toMatch(/^svc-sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('svc-sandbox listening on '.length);

    // The same requests to the executable and to the library with the same seed: every answer
    // built from fixtures (the number inventory, the message templates, the conversation scripts) must match.
    const library = createSandbox({ seed: 7 });
    const auth = { authorization: 'Bearer SVC_TEST_binary', 'content-type': 'application/json' };
    const both = async (method: string, path: string, body?: unknown) => {
      const init = { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
      const served = await fetch(`${url}${path}`, init);
      const local = await library.handle(new Request(`https://api.svc.test${path}`, init));
      const [a, b] = [await served.json(), await local.json()];
      expect({ status: served.status, body: a }).toEqual({ status: local.status, body: b });
      return a;
    };
    try {
      const numbers = await both('GET', '/v1/numbers?country=US&kind=local&area_code=415&limit=5');
      expect(numbers.data).toHaveLength(5);
      for (const item of numbers.data) expect(item.number).toMatch(/^\+1415\d{7}$/);
      const from = (await both('POST', '/v1/numbers', { number: numbers.data[0].number })).number;
      const templates = JSON.parse(readFileSync(`${ROOT}fixtures/message-templates.json`, 'utf8')).templates;
      const message = await both('POST', '/v1/messages', {
        from,
        to: '+14155550123',
        template: { id: 'verification_code', variables: { code: '123456' } },
      });
      expect(message.body).toBe(templates.verification_code.replace('{{code}}', '123456'));
      const call = await both('POST', '/v1/calls', { from, to: '+14155550124' });
      expect(call.status).toBe('ringing');
      const advanced = await fetch(`${url}/__sandbox/sessions/default/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ duration: '2m' }),
      });
      expect(advanced.status).toBe(200);
      await library.advance('2m');
      const { transcript_id } = await (await fetch(`${url}/v1/calls/${call.id}`, { headers: auth })).json();
      const transcript = await both('GET', `/v1/transcripts/${transcript_id}`);
      expect(transcript.segments.length).toBeGreaterThan(2);
    } finally {
      library.close();
    }

    const page = await fetch(`${url}/__sandbox/console`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe(readFileSync(`${ROOT}console/index.html`, 'utf8'));
    for (const file of ['main.js', 'style.css']) {
      const asset = await fetch(`${url}/__sandbox/console/${file}`);
      expect(asset.status).toBe(200);
      expect(await asset.text()).toBe(readFileSync(`${ROOT}console/${file}`, 'utf8'));
    }

    const trigger = await run(['trigger', 'message.received', '--url', url]);
    expect(trigger).toMatchObject({ code: 0, stderr: '' });
    const event = JSON.parse(trigger.stdout);
    expect(event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'message.received' });
    const events = await (await fetch(`${url}/__sandbox/sessions/default/events?limit=200`)).json();
    expect(events.data.map((e: { id: string }) => e.id)).toContain(event.id);

    serve.child.kill('SIGTERM');
    expect(await serve.exit).toMatchObject({ code: 0, signal: null, stderr: '' });
  });

  it('serve --exit-on-stdin-close (how the language helpers start it) exits 0 when its stdin ends', async () => {
    const serve = start(['serve', '--port', '0', '--exit-on-stdin-close'], 'pipe');
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    expect(await (await fetch(`${url}/__sandbox/health`)).json()).toEqual({ status: 'ok' });
    serve.child.stdin!.end();
    expect(await serve.exit).toMatchObject({ code: 0, signal: null, stderr: '' });
  });

  it("exec hands its command the caller's environment plus the three SVC_ variables, its arguments unchanged, and exits with its code", async () => {
    const env = await run(['exec', '--seed', '3', '--', 'env']);
    expect(env).toMatchObject({ code: 0, stderr: '' });
    const seen = Object.fromEntries(
      env.stdout
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const base = seen.SVC_API_BASE_URL!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen).toEqual({
      ...ENV,
      SVC_API_BASE_URL: base,
      SVC_SANDBOX_URL: `${base}/__sandbox`,
      SVC_API_KEY: expect.stringMatching(/^SVC_TEST_\w+$/),
    });

    const args = await run(['exec', '--', 'sh', '-c', 'printf "%s|" "$@"; exit 7', 'sh', 'a b', '$HOME', '']);
    expect(args).toMatchObject({ code: 7, stdout: 'a b|$HOME||', stderr: '' });
  });

  it('exec passes SIGTERM on to its command and exits with the code the command ends with', async () => {
    const exec = start(['exec', '--', 'sh', '-c', 'trap "exit 3" TERM; echo ready; while :; do sleep 1 & wait $!; done']);
    expect(await exec.firstLine).toBe('ready');
    exec.child.kill('SIGTERM');
    expect(await exec.exit).toMatchObject({ code: 3, signal: null });
  });

  it('run prints what the node bin prints for a scenario file, and exits 0', async () => {
    const file = `${ROOT}examples/scenarios/busy-then-answered.json`;
    const binary = await run(['run', file]);
    expect(binary).toMatchObject({ code: 0, stderr: '' });
    expect(binary.stdout).toMatch(/^1 scenario passed$/m);
    expect(binary.stdout).toBe(execFileSync(process.execPath, [CLI, 'run', file], { encoding: 'utf8', cwd: tmp }));
  });

  it('exec --coverage writes a report that coverage --html turns into a page', async () => {
    const report = join(tmp, 'coverage.json');
    expect(await run(['exec', '--coverage', report, '--', 'sh', '-c', 'exit 0'])).toMatchObject({ code: 0 });
    const html = join(tmp, 'coverage.html');
    const coverage = await run(['coverage', report, '--html', html]);
    expect(coverage).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);
  });
});
