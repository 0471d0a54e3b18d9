import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The `svc-sandbox` bin (CONTRACT §8), run as a user runs it: the built `dist/server/cli.js`
 * in a child process.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = `${ROOT}dist/server/cli.js`;

beforeAll(() => {
  execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`], { stdio: 'inherit' });
}, 120_000);

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const result = { child, stdout: '', stderr: '' } as Run;
  let gotLine!: (line: string) => void;
  result.firstLine = new Promise((resolve) => (gotLine = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    result.stdout += chunk;
    if (result.stdout.includes('\n')) gotLine(result.stdout.split('\n')[0]!);
  });
  child.stderr!.on('data', (chunk: Buffer) => (result.stderr += chunk));
  result.exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return result;
}

async function freePort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('svc-sandbox serve', () => {
  it.for(['SIGINT', 'SIGTERM'] as const)('prints the ready line first, serves on the real port of --port 0, and exits 0 on %s', async (signal) => {
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
  });

  it('takes --start-time and --host', async () => {
    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--start-time', '2030-01-01T00:00:00Z']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    expect((await (await fetch(`${url}/__sandbox/sessions`)).json()).data[0].now).toBe('2030-01-01T00:00:00.000Z');
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
  });

  it('takes --clock realtime (virtual time flows with the wall clock); a bad --clock exits 2 naming the modes', async () => {
    const serve = run(['serve', '--port', '0', '--clock', 'realtime']);
    const url = (await serve.firstLine).slice('svc-sandbox listening on '.length);
    const now = async () => Date.parse((await (await fetch(`${url}/__sandbox/sessions`)).json()).data[0].now);
    const first = await now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await now()) - first).toBeGreaterThanOrEqual(40);
    serve.child.kill('SIGTERM');
    expect((await serve.exit).code).toBe(0);
    const bad = run(['serve', '--port', '0', '--clock', 'fast']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr).toMatch(/^svc-sandbox: `clock` must be one of "manual", "realtime", got "fast"/);
  });

  it('a busy port is a one-line error and exit code 1', async () => {
    const taken = await freePort();
    try {
      const serve = run(['serve', '--port', String(taken.port)]);
      expect((await serve.exit).code).toBe(1);
      expect(serve.stdout).toBe('');
      expect(serve.stderr.trim().split('\n')).toEqual([`svc-sandbox: Port ${taken.port} on 127.0.0.1 is already in use: stop what listens there, or pass another port (--port 0 picks a free one).`]);
    } finally {
      await taken.close();
    }
  });

  it('--help lists every flag; bad arguments exit 2 with the fix', async () => {
    const help = run(['serve', '--help']);
    expect((await help.exit).code).toBe(0);
    for (const flag of ['--port', '--host', '--seed', '--start-time', '--clock', '--help', '--version']) expect(help.stdout).toContain(flag);
    const bad = run(['serve', '--prot', '1']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr).toMatch(/^svc-sandbox: Unknown option '--prot'/);
    const badPort = run(['serve', '--port', 'eighty']);
    expect((await badPort.exit).code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be an integer from 0 to 65535/);
    const badTime = run(['serve', '--port', '0', '--start-time', 'yesterday']);
    expect((await badTime.exit).code).toBe(2); // refused before anything listens
    expect(badTime.stdout).toBe('');
    expect(badTime.stderr).toMatch(/^svc-sandbox: .*startTime/);
    const unknown = run(['serv']);
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'serv'; use 'serve' or 'exec'/);
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
    expect(seen).toMatchObject({ base: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), key: expect.stringMatching(/^SVC_TEST_/), status: 201, health: { status: 'ok' } });
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

  it('when signalled, kills the command\'s whole process group and exits with its code', async () => {
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
    // Gone, or a zombie nobody has reaped yet (this machine's PID 1 may not reap orphans).
    const alive = (pid: number) => {
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
    };
    await expect.poll(() => alive(pids.child)).toBe(false);
    await expect.poll(() => alive(pids.grandchild)).toBe(false);
  });
});
