import { execFileSync, spawn } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxSnapshot } from '../../src/index.js';
import { showCommandLine } from '../../src/server/snapshot-file.js';
import { CLI, ensureBuilt, runCli } from './built-cli.js';

/**
 * `svc-sandbox show FILE [--port N]` run as a user runs it: the built bin in a child process
 * (docs/debugging.md). A file that is no snapshot exits 2, naming the file and what is wrong,
 * within a bounded time whatever it is (a FIFO nobody writes, a sparse file of 33 MiB, JSON
 * nested 100,000 deep); a good one prints the ready line first and serves until SIGINT or
 * SIGTERM, then exits 0. (The console it serves, in Chromium: test/server/show-console.test.ts.)
 * Requests go by undici's fetch: the global one checks control answers against the full server's
 * OpenAPI document, which show does not serve.
 */

beforeAll(ensureBuilt, 120_000);

const dir = mkdtempSync(join(tmpdir(), 'svc-show-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let snapshot: SandboxSnapshot;
beforeAll(async () => {
  const sandbox = createSandbox({ seed: 9 });
  await sandbox.handle(
    new Request(`${sandbox.baseUrl}/v1/calls`, {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_cli', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    }),
  );
  await sandbox.advance('2m');
  snapshot = JSON.parse(JSON.stringify(sandbox.snapshot()));
  sandbox.close();
});

/** The bin, killed if it runs longer than `limitMs` (a bound, not a wait). */
const run = (args: string[], limitMs = 30_000) => runCli(args, { limitMs });

const write = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('svc-sandbox show with a file that is no snapshot', () => {
  it('exits 2 naming the file and the problem, for each kind of bad file, in bounded time', async () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const huge = join(dir, 'huge.json');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 17 * 1024 * 1024);
    closeSync(fd);
    const folder = join(dir, 'folder.json');
    mkdirSync(folder);
    const now = Date.parse(snapshot.now);
    const cases: Array<[string, string, RegExp]> = [
      ['missing', join(dir, 'nothing-here.json'), /there is no such file; give the path of a snapshot/],
      ['a directory', folder, /it is a directory, not a regular file/],
      ['a FIFO', fifo, /it is a FIFO \(named pipe\), not a regular file/],
      ['a device', '/dev/zero', /it is a character device, not a regular file/],
      ['huge', huge, /it is 17\.0 MiB, larger than the 16 MiB a snapshot may be here/],
      ['not UTF-8', write('binary.json', Buffer.from([0xde, 0xad, 0xbe, 0xef])), /it is not UTF-8 text/],
      ['not JSON', write('broken.json', '{"format":'), /it is not JSON \(/],
      ['deep', write('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`), /its JSON nests deeper than 64 levels at snapshot\[0\]/],
      [
        '__proto__',
        write('proto.json', JSON.stringify(snapshot).replace('{', '{"__proto__":{"x":1},')),
        /it has a "__proto__" key at snapshot; no snapshot has one/,
      ],
      ['not a snapshot', write('har.json', '{"log": {"entries": []}}'), /`snapshot.format` must be "svc-sandbox-snapshot", got undefined/],
      [
        'another version',
        write('old.json', JSON.stringify({ ...snapshot, version: '0.0.1' })),
        /this snapshot was taken by svc-sandbox 0\.0\.1/,
      ],
      [
        'an input after its end',
        write('later.json', JSON.stringify({ ...snapshot, inputs: [...snapshot.inputs, { kind: 'advance', at: now + 5000, ms: 1 }] })),
        /`snapshot\.inputs\[\d+\]\.at` is .*, after the instant the snapshot was taken/,
      ],
      [
        'options no sandbox takes',
        write('options.json', JSON.stringify({ ...snapshot, options: { ...snapshot.options, seed: 'many' } })),
        /its options are refused: `seed` must be an integer .* got "many"\. \(snapshot\.options\.seed\)$/,
      ],
    ];
    const runs = cases.map(([, file]) => run(['show', file]));
    for (const [i, [what, file, problem]] of cases.entries()) {
      const { code } = await runs[i]!.exit;
      const { ms } = runs[i]!;
      expect(code, what).toBe(2);
      expect(runs[i]!.stdout, what).toBe('');
      const [line, ...rest] = runs[i]!.stderr.trimEnd().split('\n');
      expect(rest, what).toEqual([]);
      expect(line!.startsWith(`svc-sandbox: show ${file}: `), `${what}: ${line}`).toBe(true);
      expect(line, what).toMatch(problem);
      expect(ms, `${what} took ${Math.round(ms)} ms`).toBeLessThan(20_000);
    }
  }, 120_000);

  it('prints no terminal escape a file holds: its version and its name escaped, for show and serve --import', async () => {
    const hostile = '\u001b]0;owned\u0007\u001b[2J\u009b31m';
    const file = write(`evil${'\u001b'}[31m.json`, JSON.stringify({ ...snapshot, version: `9.9.9${hostile}` }));
    for (const args of [
      ['show', file],
      ['serve', '--import', file, '--port', '0'],
    ]) {
      const r = run(args);
      expect((await r.exit).code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toContain('this snapshot was taken by svc-sandbox 9.9.9\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m');
      expect(r.stderr, args[0]).toContain('evil\\u001b[31m.json');
      // Nothing but the line breaks between lines.
      expect(r.stderr.replace(/\n/g, ''), args[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });

  it('exits 2 with the usage line for bad arguments', async () => {
    const cases: Array<[string[], string]> = [
      [['show'], 'show needs a snapshot file, e.g. svc-sandbox show snapshots/my-test.json.'],
      [['show', 'a.json', 'b.json'], "Unexpected argument 'b.json': show opens one snapshot file."],
      [['show', 'a.json', '--prot', '1'], "Unknown option '--prot'; did you mean --port?"],
      [['show', 'a.json', '--port', 'http'], "--port must be an integer from 0 to 65535, got 'http'."],
      [['show', 'a.json', '--port'], '--port needs a value.'],
    ];
    for (const [args, message] of cases) {
      const r = run(args);
      expect((await r.exit).code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`svc-sandbox: ${message}\nUsage: svc-sandbox show FILE [--port N]  (svc-sandbox show --help)\n`);
    }
    const help = run(['show', '--help']);
    expect((await help.exit).code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc-sandbox show FILE \[--port N\]\n/);
    const main = run(['--help']);
    await main.exit;
    expect(main.stdout).toMatch(/\n {2}show {4}Serve the console over a snapshot file/);
  });
});

describe('svc-sandbox show with a snapshot', () => {
  it.for(['SIGINT', 'SIGTERM'] as const)('prints the ready line first, serves the session read-only, and exits 0 on %s', async (signal) => {
    const file = write(`good-${signal}.json`, JSON.stringify(snapshot));
    const show = run(['show', file, '--port', '0']);
    const line = await show.firstLine;
    expect(line).toMatch(
      new RegExp(`^svc-sandbox showing ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on http://127\\.0\\.0\\.1:\\d+/__sandbox/console$`),
    );
    const origin = line.slice(line.lastIndexOf(' ') + 1).replace('/__sandbox/console', '');
    const early = (await (await fetch(`${origin}/__sandbox/show/state?at=2026-01-01T00:00:01Z`)).json()) as {
      items: { call: Array<{ status: string }> };
    };
    expect(early.items.call.map((c) => c.status)).toEqual(['ringing']);
    const end = (await (await fetch(`${origin}/__sandbox/show/state`)).json()) as { items: { call: Array<{ status: string }> } };
    expect(end.items.call.map((c) => c.status)).toEqual(['completed']);
    expect((await fetch(`${origin}/__sandbox/sessions/default/advance`, { method: 'POST' })).status).toBe(405);
    show.child.kill(signal);
    expect(await show.exit).toEqual({ code: 0, signal: null });
    expect(show.stderr).toBe('');
  });

  it('runs as a failed test prints it, and stops when the process that started it ends without passing SIGTERM on (npx)', async () => {
    // The line a failed test prints when SVC_SANDBOX_BIN names the executable in use, run by a
    // shell that, like npx's `sh -c`, dies on SIGTERM and passes nothing on to its child.
    const line = showCommandLine(write('printed file.json', JSON.stringify(snapshot)), CLI);
    expect(line).toBe(`${CLI} show '${join(dir, 'printed file.json')}'`);
    const shell = spawn('sh', ['-c', `${line}; :`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const ended = new Promise<void>((resolve) => shell.stdout.on('end', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      shell.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
        if (out.includes('\n')) resolve();
      });
      shell.once('exit', () => reject(new Error(`the shell ended before show was ready: ${out}`)));
    });
    expect(out).toMatch(/^svc-sandbox showing .*printed file\.json on http:\/\/127\.0\.0\.1:\d+\/__sandbox\/console\n$/);
    const shellEnded = new Promise((resolve) => shell.once('exit', (code, signal) => resolve(signal ?? code)));
    shell.kill('SIGTERM');
    expect(await shellEnded).toBe('SIGTERM');
    // Its stdout closes once every process holding it has ended: show included.
    const bound = new Promise<string>((resolve) => setTimeout(() => resolve('still serving after 10 s'), 10_000).unref());
    expect(await Promise.race([ended.then(() => 'ended'), bound])).toBe('ended');
  }, 60_000);

  it('a busy port is a one-line error and exit code 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const show = run(['show', write('busy.json', JSON.stringify(snapshot)), '--port', String(port)]);
      expect((await show.exit).code).toBe(1);
      expect(show.stderr).toBe(
        `svc-sandbox: Port ${port} on 127.0.0.1 is already in use: pass another port (--port 0 picks a free one).\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
