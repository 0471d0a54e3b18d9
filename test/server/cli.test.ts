import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, type Run, runCli } from './built-cli.js';

/**
 * The `svc-sandbox` bin (docs/server.md), run as a user runs it: the built `dist/server/cli.js`
 * in a child process.
 */
beforeAll(ensureBuilt, 120_000);

const run = (args: string[], env: Record<string, string> = {}): Run => runCli(args, { env });

async function freePort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Gone, or a zombie nobody has reaped yet (this machine's PID 1 may not reap orphans). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('svc-sandbox serve', () => {
  it.for(['SIGINT', 'SIGTERM'] as const)(
    'prints the ready line first, serves on the real port of --port 0, and exits 0 on %s',
    async (signal) => {
      const serve = run(['serve', '--port', '0', '--seed', '7']);
      const line = await serve.firstLine;
      expect(line).toMatch(/^svc-sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = line.slice('svc-sandbox listening on '.length);
      expect(Number(new URL(url).port)).toBeGreaterThan(0);
      expect(await (await fetch(`${url}/__sandbox/health`)).json()).toEqual({ status: 'ok' });
      const sessions = await (await fetch(`${url}/__sandbox/sessions`)).json();
      expect(sessions.data).toEqual([{ id: 'default', seed: 7, now: '2026-01-01T00:00:00.000Z' }]);
      serve.child.kill(signal);
      expect(await serve.exit).toEqual({ code: 0, signal: null });
    },
  );

  it('--max-journal-entries: each session journals that many requests, the latest', async () => {
    const serve = run(['serve', '--port', '0', '--max-journal-entries', '2']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    try {
      const made = await (
        await fetch(`${url}/__sandbox/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      ).json();
      for (const path of ['/v1/calls', '/v1/numbers?limit=1', '/v1/messages'])
        await (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${made.apiKey}` } })).arrayBuffer();
      const journal = await (await fetch(`${url}/__sandbox/sessions/${made.id}/requests`)).json();
      expect(journal.data.map((r: { path: string }) => r.path)).toEqual(['/v1/numbers', '/v1/messages']);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });

  it("--public-url: what a recording's url starts with; a bad one exits 2 naming the flag", async () => {
    const serve = run(['serve', '--port', '0', '--seed', '3', '--public-url', 'https://sandbox.example.test']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    try {
      const auth = { authorization: 'Bearer SVC_TEST_cli', 'content-type': 'application/json' };
      const call = await (
        await fetch(`${url}/v1/calls`, { method: 'POST', headers: auth, body: '{"to": "+14155550123", "from": "+14155550100"}' })
      ).json();
      await (
        await fetch(`${url}/__sandbox/sessions/default/advance`, { method: 'POST', headers: auth, body: '{"duration": "90s"}' })
      ).text();
      const ended = await (await fetch(`${url}/v1/calls/${call.id}`, { headers: auth })).json();
      const recording = await (await fetch(`${url}/v1/recordings/${ended.recording_id}`, { headers: auth })).json();
      expect(recording.url).toBe(`https://sandbox.example.test/v1/recordings/${ended.recording_id}/audio`);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
    const bad = run(['serve', '--port', '0', '--public-url', 'ftp://x.test']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr).toMatch(/--public-url must be http or https/);
  });

  it('--exit-on-stdin-close stops the server (exit 0) when its stdin ends', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--exit-on-stdin-close'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const line = await new Promise<string>((resolve) =>
      child.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).split('\n')[0]!)),
    );
    const url = line.slice('svc-sandbox listening on '.length);
    expect(await (await fetch(`${url}/__sandbox/health`)).json()).toEqual({ status: 'ok' });
    child.stdin!.end();
    expect(await exit).toEqual({ code: 0, signal: null });
  });

  it('--exit-on-stdin-close: a SIGKILLed parent that held the pipe takes its server with it', async () => {
    // The parent starts the server with a pipe as its stdin, prints the server's pid, and waits to be killed.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const { spawn } = require('node:child_process');
         const server = spawn(process.execPath, [${JSON.stringify(CLI)}, 'serve', '--port', '0', '--exit-on-stdin-close'], { stdio: ['pipe', 'pipe', 'inherit'] });
         server.stdout.once('data', () => console.log(server.pid));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = Number(
      await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).trim()))),
    );
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = performance.now() + 10_000;
    while (alive(pid) && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(alive(pid)).toBe(false);
  });

  it('--exit-on-stdin-close is an option of serve only', async () => {
    const result = spawnSync(process.execPath, [CLI, 'exec', '--exit-on-stdin-close', '--', 'true'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--exit-on-stdin-close is an option of 'serve', not of 'exec'.");
  });

  it('takes --start-time and --host', async () => {
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--start-time', '2030-01-01T00:00:00Z']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    expect((await (await fetch(`${url}/__sandbox/sessions`)).json()).data[0].now).toBe('2030-01-01T00:00:00.000Z');
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('warns on --host 0.0.0.0, and --allowed-host NAME lets requests for that Host in (others are 403)', async () => {
    const serve = run(['serve', '--port', '0', '--host', '0.0.0.0', '--allowed-host', 'devbox.test']);
    const port = Number((await serve.firstLine).split(':').pop());
    await expect.poll(() => serve.stderr).toMatch(/warning: --host 0\.0\.0\.0 serves every network .* no authentication/);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/__sandbox/health', headers: { host }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject).end();
      });
    expect(await status(`devbox.test:${port}`)).toBe(200);
    expect(await status(`other.test:${port}`)).toBe(403);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('exec hands its command a secret key, different on every run unless --seed is given', async () => {
    const key = async (args: string[]) => {
      const exec = run(['exec', ...args, '--', process.execPath, '-e', 'console.log(process.env.SVC_API_KEY)']);
      expect((await exec.exit).code).toBe(0);
      return exec.stdout.trim().split('\n').pop()!;
    };
    const [a, b] = [await key([]), await key([])];
    expect(a).toMatch(/^SVC_TEST_[0-9A-Za-z]{16}$/);
    expect(a).not.toBe(b);
    expect(await key(['--seed', '3'])).toBe(await key(['--seed', '3']));
  });

  it('takes --clock realtime (virtual time flows with the wall clock); a bad --clock (or global) exits 2 naming the modes', async () => {
    const serve = run(['serve', '--port', '0', '--clock', 'realtime']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    const now = async () => Date.parse((await (await fetch(`${url}/__sandbox/sessions`)).json()).data[0].now);
    // The bin's clock is the real one: wait (bounded) for the session's now to move on by itself.
    const first = await now();
    await expect.poll(now, { timeout: 5_000, interval: 10 }).toBeGreaterThan(first);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
    const bad = run(['serve', '--port', '0', '--clock', 'fast']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr).toMatch(/^svc-sandbox: --clock must be one of "manual", "realtime", got "fast"/);
    // 'global' is createSandbox's mode on the test's own timers: a server has none to share.
    const global = run(['serve', '--port', '0', '--clock', 'global']);
    expect((await global.exit).code).toBe(2);
    expect(global.stderr).toMatch(/^svc-sandbox: --clock 'global' is the in-process mode .* use 'realtime'/);
  });

  it('a busy port is a one-line error and exit code 1', async () => {
    const taken = await freePort();
    try {
      const serve = run(['serve', '--port', String(taken.port)]);
      expect((await serve.exit).code).toBe(1);
      expect(serve.stdout).toBe('');
      expect(serve.stderr.trim().split('\n')).toEqual([
        `svc-sandbox: Port ${taken.port} on 127.0.0.1 is already in use: stop what listens there, or pass another port (--port 0 picks a free one).`,
      ]);
    } finally {
      await taken.close();
    }
  });

  it('--help lists every flag; bad arguments exit 2 with the fix', async () => {
    const help = run(['serve', '--help']);
    expect((await help.exit).code).toBe(0);
    const both = ['--port', '--host', '--seed', '--start-time', '--webhook-timeout', '--max-journal-entries', '--public-url', '--help'];
    for (const flag of [...both, '--clock', '--version']) expect(help.stdout).toContain(flag);
    const execHelp = run(['exec', '--help']);
    expect((await execHelp.exit).code).toBe(0);
    for (const flag of [...both, '--kill-after']) expect(execHelp.stdout).toContain(flag);
    expect(execHelp.stdout).toMatch(/SIGINT, SIGTERM and SIGHUP/);
    const bad = run(['serve', '--prot', '1']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr).toBe(
      "svc-sandbox: Unknown option '--prot'; did you mean --port?\nUsage: svc-sandbox serve [options]  (svc-sandbox serve --help lists them)\n",
    );
    const badPort = run(['serve', '--port', 'eighty']);
    expect((await badPort.exit).code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be an integer from 0 to 65535/);
    const badJournal = run(['serve', '--port', '0', '--max-journal-entries', '1.5']);
    expect((await badJournal.exit).code).toBe(2);
    expect(badJournal.stderr).toMatch(/--max-journal-entries must be an integer from 0 to 9007199254740991, got '1.5'/);
    const badTime = run(['serve', '--port', '0', '--start-time', 'yesterday']);
    expect((await badTime.exit).code).toBe(2); // refused before anything listens
    expect(badTime.stdout).toBe('');
    expect(badTime.stderr).toBe(
      `svc-sandbox: --start-time "yesterday" is not a date; use an ISO 8601 string such as '2026-01-01T00:00:00Z'.\nUsage: svc-sandbox serve [options]  (svc-sandbox serve --help lists them)\n`,
    );
    const unknown = run(['serv']);
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'serv'; use 'serve', 'exec', 'run', 'trigger', 'coverage', 'check-receiver' or 'show'/);
  });
});

describe('svc-sandbox exec', () => {
  it('runs the command with the server in its environment and exits with its exit code', async () => {
    const script = `
      const env = { base: process.env.SVC_API_BASE_URL, control: process.env.SVC_SANDBOX_URL, key: process.env.SVC_API_KEY };
      const res = await fetch(env.base + '/v1/calls', { method: 'POST', headers: { authorization: 'Bearer ' + env.key, 'content-type': 'application/json' }, body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }) });
      const health = await (await fetch(env.control + '/health')).json();
      console.log(JSON.stringify({ ...env, status: res.status, health }));
      process.exit(7);`;
    const exec = run(['exec', '--', process.execPath, '--input-type=module', '-e', script]);
    expect((await exec.exit).code).toBe(7);
    const seen = JSON.parse(exec.stdout.trim().split('\n').pop()!);
    expect(seen).toMatchObject({
      base: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      key: expect.stringMatching(/^SVC_TEST_/),
      status: 201,
      health: { status: 'ok' },
    });
    expect(seen.control).toBe(`${seen.base}/__sandbox`);
  });

  it('passes a failing exit code through, and 127 for a command that cannot run', async () => {
    expect((await run(['exec', '--', process.execPath, '-e', 'process.exit(3)']).exit).code).toBe(3);
    const missing = run(['exec', '--', '/nonexistent/command']);
    expect((await missing.exit).code).toBe(127);
    expect(missing.stderr).toMatch(/cannot run '\/nonexistent\/command'/);
    const none = run(['exec']);
    expect((await none.exit).code).toBe(2);
  });

  it("when signalled, kills the command's whole process group and exits with its code", async () => {
    // The command starts a grandchild and prints both pids, then waits forever.
    const script = `
      const { spawn } = require('node:child_process');
      const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log(JSON.stringify({ child: process.pid, grandchild: grandchild.pid }));
      setInterval(() => {}, 1000);`;
    const exec = run(['exec', '--', process.execPath, '-e', script]);
    const pids = JSON.parse(await exec.firstLine) as { child: number; grandchild: number };
    exec.child.kill('SIGTERM');
    expect((await exec.exit).code).toBe(128 + 15);
    await expect.poll(() => alive(pids.child)).toBe(false);
    await expect.poll(() => alive(pids.grandchild)).toBe(false);
  });

  /** The command: ignores the signals named, starts a grandchild, prints both pids, runs until killed. */
  const stubborn = (ignore: string[]) => `
    for (const s of ${JSON.stringify(ignore)}) process.on(s, () => {});
    const { spawn } = require('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log(JSON.stringify({ child: process.pid, grandchild: grandchild.pid }));
    setInterval(() => {}, 1000);`;

  it('kills a command that ignores SIGTERM with SIGKILL after --kill-after, and exits 137', async () => {
    const exec = run(['exec', '--kill-after', '300ms', '--', process.execPath, '-e', stubborn(['SIGTERM'])]);
    const pids = JSON.parse(await exec.firstLine) as { child: number; grandchild: number };
    const started = performance.now();
    exec.child.kill('SIGTERM');
    expect((await exec.exit).code).toBe(128 + 9);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(280); // the grace was given
    expect(waited).toBeLessThan(5_000); // and not the default 5 s
    await expect.poll(() => alive(pids.child)).toBe(false);
    await expect.poll(() => alive(pids.grandchild)).toBe(false);
  });

  it('passes SIGHUP on like SIGTERM, with the same escalation', async () => {
    const exec = run(['exec', '--', process.execPath, '-e', stubborn([])]);
    const pids = JSON.parse(await exec.firstLine) as { child: number; grandchild: number };
    exec.child.kill('SIGHUP');
    expect(await exec.exit).toEqual({ code: 128 + 1, signal: null });
    await expect.poll(() => alive(pids.grandchild)).toBe(false);
    const ignoring = run(['exec', '--kill-after', '200ms', '--', process.execPath, '-e', stubborn(['SIGHUP'])]);
    await ignoring.firstLine;
    ignoring.child.kill('SIGHUP');
    expect((await ignoring.exit).code).toBe(128 + 9);
  });

  it('when exec itself is SIGKILLed, its watchdog kills the command and what it started', async () => {
    const exec = run(['exec', '--', process.execPath, '-e', stubborn(['SIGTERM', 'SIGHUP', 'SIGINT'])]);
    const pids = JSON.parse(await exec.firstLine) as { child: number; grandchild: number };
    const killed = performance.now();
    exec.child.kill('SIGKILL');
    expect((await exec.exit).signal).toBe('SIGKILL');
    await expect.poll(() => alive(pids.child), { timeout: 5_000, interval: 10 }).toBe(false);
    await expect.poll(() => alive(pids.grandchild), { timeout: 5_000, interval: 10 }).toBe(false);
    console.log(`exec SIGKILLed: its command was gone ${(performance.now() - killed).toFixed(0)} ms later`);
  });

  it('does not kill the command when it ends by itself, and leaves no watchdog behind', async () => {
    const exec = run(['exec', '--', process.execPath, '-e', `console.log(process.pid)`]);
    const child = Number(await exec.firstLine);
    expect((await exec.exit).code).toBe(0);
    const watchdogs = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(`svc-sandbox-watchdog -${child}`));
    await expect.poll(watchdogs).toEqual([]);
  });

  it.skipIf(!hasScript())('keeps the terminal: with a TTY on stdin the command still has its controlling terminal', () => {
    // `script` (util-linux) runs exec on a pseudo-terminal; /dev/tty opens only with a controlling terminal.
    const probe = `try { require('fs').openSync('/dev/tty', 'r'); console.log('has-tty'); } catch (e) { console.log('no-tty', e.code); }`;
    const command = [process.execPath, CLI, 'exec', '--', process.execPath, '-e', probe]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 30_000 });
    const seen = `exit ${run.status} (signal ${run.signal}); stdout: ${run.stdout}; stderr: ${run.stderr}`;
    expect(run.status, seen).toBe(0);
    expect(run.stdout, seen).toContain('has-tty');
  });

  it('--webhook-timeout sets the real time a webhook attempt may take', async () => {
    const silent = createServer((socket) => socket.resume()); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const serve = run(['serve', '--port', '0', '--webhook-timeout', '150ms']);
    try {
      const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer SVC_TEST_cli', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      await post('/v1/webhooks', { url: `http://127.0.0.1:${(silent.address() as { port: number }).port}/`, events: ['call.started'] });
      await post('/v1/calls', { to: '+14155550123', from: '+14155550100' });
      await post('/__sandbox/sessions/default/advance', { duration: '1s' });
      const [delivery] = (await (await fetch(`${url}/__sandbox/sessions/default/deliveries`)).json()).data;
      expect(delivery.attempts[0].error).toBe('no response within 150 ms (timed out)');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
      silent.close();
    }
  });
});

describe("bad arguments, in the user's words", () => {
  const USAGE_EXEC = 'Usage: svc-sandbox exec [options] -- <command> [args...]  (svc-sandbox exec --help lists them)\n';

  it("a forgotten '--' before exec's command says where it goes", async () => {
    const forgot = run(['exec', 'python3', '-m', 'unittest']);
    const withOptions = run(['exec', '--seed', '3', 'pytest', '-k', 'calls and not slow']);
    // All started at once: each is a node process starting up.
    expect((await forgot.exit).code).toBe(2);
    expect(forgot.stderr).toBe(
      `svc-sandbox: put '--' before the command: svc-sandbox exec [options] -- python3 -m unittest\n${USAGE_EXEC}`,
    );
    expect((await withOptions.exit).code).toBe(2);
    expect(withOptions.stderr).toBe(
      `svc-sandbox: put '--' before the command: svc-sandbox exec [options] -- pytest -k 'calls and not slow'\n${USAGE_EXEC}`,
    );
  });

  it('a bad --start-time, --webhook-timeout or --kill-after names the flag and ends with the usage line; a compound duration is taken', async () => {
    const time = run(['exec', '--start-time', 'tomorrow', '--', 'true']);
    const timeout = run(['exec', '--webhook-timeout', 'fast', '--', 'true']);
    const grace = run(['exec', '--kill-after=-1s', '--', 'true']);
    const dash = run(['exec', '--kill-after', '-1s', '--', 'true']);
    const outOfOrder = run(['exec', '--webhook-timeout', '10s1m', '--', 'true']);
    const compound = run(['exec', '--webhook-timeout', '1m30s', '--kill-after', '2s500ms', '--', 'true']);
    // All started at once: each is a node process starting up.
    expect((await time.exit).code).toBe(2);
    expect(time.stderr).toBe(
      `svc-sandbox: --start-time "tomorrow" is not a date; use an ISO 8601 string such as '2026-01-01T00:00:00Z'.\n${USAGE_EXEC}`,
    );
    expect((await timeout.exit).code).toBe(2);
    expect(timeout.stderr).toBe(
      `svc-sandbox: --webhook-timeout must be a duration such as '5s', '200ms', '2m' or '1m30s', from 1 ms to 24 days, got 'fast'.\n${USAGE_EXEC}`,
    );
    // Compound durations, largest unit first (docs/clock-and-determinism.md, "Durations").
    expect((await outOfOrder.exit).code).toBe(2);
    expect(outOfOrder.stderr).toMatch(/^svc-sandbox: --webhook-timeout must be a duration .*'1m30s'.*got '10s1m'\./);
    expect([(await compound.exit).code, compound.stderr]).toEqual([0, '']);
    expect((await grace.exit).code).toBe(2);
    expect(grace.stderr).toMatch(
      /^svc-sandbox: --kill-after must be a duration such as '5s', '200ms', '2m' or '1m30s', from 0 ms to 24 days, got '-1s'\.\nUsage: svc-sandbox exec/,
    );
    expect((await dash.exit).code).toBe(2);
    expect(dash.stderr).toMatch(
      /^svc-sandbox: --kill-after needs a value; one starting with '-' goes as --kill-after=-1s\.\nUsage: svc-sandbox exec/,
    );
  });

  it("unknown flags name the command's usage line, and a flag of the other command says whose it is", async () => {
    const unknown = run(['exec', '--verbose', '--', 'true']);
    const other = run(['serve', '--kill-after', '1s']);
    const positional = run(['serve', '8080']);
    const missing = run(['serve', '--port']);
    // All started at once: each is a node process starting up.
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.stderr).toBe(`svc-sandbox: Unknown option '--verbose'.\n${USAGE_EXEC}`);
    expect((await other.exit).code).toBe(2);
    expect(other.stderr).toBe(
      "svc-sandbox: --kill-after is an option of 'exec', not of 'serve'.\nUsage: svc-sandbox serve [options]  (svc-sandbox serve --help lists them)\n",
    );
    expect((await positional.exit).code).toBe(2);
    expect(positional.stderr).toMatch(
      /^svc-sandbox: Unexpected argument '8080': 'serve' takes options only\.\nUsage: svc-sandbox serve \[options\]/,
    );
    expect((await missing.exit).code).toBe(2);
    expect(missing.stderr).toMatch(/^svc-sandbox: --port needs a value\.\nUsage: svc-sandbox serve/);
  });
});

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
}

describe('svc-sandbox exec --coverage, svc-sandbox coverage', () => {
  it('writes the union of every session (a deleted one too) when the command ends, prints what was never exercised, and coverage FILE prints it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-coverage-'));
    const file = join(dir, 'out', 'coverage.json');
    const script = `
      const base = process.env.SVC_API_BASE_URL, control = process.env.SVC_SANDBOX_URL;
      const post = (url, body, key) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: 'Bearer ' + key } : {}) }, body: JSON.stringify(body) });
      await post(base + '/v1/calls', { to: '+14155550123', from: '+14155550100' }, process.env.SVC_API_KEY);
      await post(control + '/sessions/default/advance', { duration: '2m' });
      const session = await (await post(control + '/sessions', {})).json();
      await post(base + '/v1/calls', { to: '+15005550002', from: '+14155550100' }, session.apiKey);
      await post(control + '/sessions/' + session.id + '/advance', { duration: '1m' });
      await fetch(control + '/sessions/' + session.id, { method: 'DELETE' });`;
    const exec = run(['exec', '--coverage', file, '--', process.execPath, '--input-type=module', '-e', script]);
    expect((await exec.exit).code).toBe(0);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report).toMatchObject({ format: 'svc-sandbox-coverage', version: 1, sandboxes: 2 });
    expect(report.calls.dispositions).toMatchObject({ answered: 1, busy: 1, no_answer: 0 });
    // It leads with what the suite never made happen, and keeps what only a fault produces for later.
    expect(exec.stderr).toContain(
      'svc-sandbox: coverage of 2 sandboxes: what the suite never made happen (a test can reach each)\n  How calls ended: never no_answer, failed, canceled\n    how: ',
    );
    expect(exec.stderr.indexOf('Who answered: never voicemail')).toBeLessThan(exec.stderr.indexOf('only an injected fault produces these'));
    expect(exec.stderr).toContain(`coverage report written to ${file}`);

    const html = join(dir, 'coverage.html');
    const again = run(['coverage', file, '--html', html]);
    expect((await again.exit).code).toBe(0);
    expect(again.stdout).toContain('  Who answered: never voicemail, ai_receptionist\n');
    expect(again.stdout).toMatch(/Answers never given:\n {4}POST \/v1\/calls: never 400, 401/);
    expect(again.stdout).toMatch(/Server errors \(5xx\) never answered:\n {4}POST \/v1\/calls: never 500, 502, 503, 504/);
    expect(readFileSync(html, 'utf8')).toContain('<td>ringing → answered (after ringTime [networkAnswers])</td>');

    const notReport = join(dir, 'package.json');
    writeFileSync(notReport, '{"name":"x"}');
    const refused = run(['coverage', notReport]);
    expect((await refused.exit).code).toBe(1);
    expect(refused.stderr).toMatch(/is not a coverage report it can read: `format` must be "svc-sandbox-coverage"/);
    expect((await run(['coverage']).exit).code).toBe(2);
    const serveCoverage = run(['serve', '--coverage', file]);
    expect((await serveCoverage.exit).code).toBe(2);
    expect(serveCoverage.stderr).toMatch(/--coverage is an option of 'exec', not of 'serve'/);
    rmSync(dir, { recursive: true, force: true });
  });
});
