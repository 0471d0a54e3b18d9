import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from './built-cli.js';

/** `serve --import FILE --export-on-exit FILE` and the same on exec (docs/snapshots.md), run as a user runs the bin. */
beforeAll(ensureBuilt, 120_000);

const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-snapshots-'));
const KEY = 'SVC_TEST_me';

function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const line = /^svc-sandbox listening on (\S+)/m.exec(stdout);
      if (line) resolve(line[1]!);
    });
    void exit.then(() => reject(new Error(`exited before listening: ${stderr}`)));
  });
  return { child, url, exit, stderr: () => stderr };
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, id: res.headers.get('x-request-id'), body: text ? JSON.parse(text) : null };
}

/** What the default session shows: its now, calls and events. */
async function state(url: string) {
  return {
    now: (await call(url, 'GET', '/__sandbox/sessions/default')).body.now,
    calls: (await call(url, 'GET', '/v1/calls')).body,
    events: (await call(url, 'GET', '/__sandbox/sessions/default/events')).body,
  };
}

/** The same requests after an import: their answers (URLs name the server's own base URL, its port this run's). */
async function goOn(url: string) {
  const answers = [
    await call(url, 'POST', '/v1/calls', { to: '+14155550124', from: '+14155550100' }),
    await call(url, 'POST', '/__sandbox/sessions/default/advance', { duration: '2m' }),
    await call(url, 'GET', '/v1/calls?limit=5'),
  ];
  return JSON.parse(JSON.stringify(answers).replaceAll(url, 'BASE')) as typeof answers;
}

describe('serve --import / --export-on-exit', () => {
  it('exports the default session on SIGTERM; a server started from the file is that session, and continues the same way each time', async () => {
    const first = start(['serve', '--port', '0', '--seed', '9', '--export-on-exit', join(dir, 'a.json')]);
    const url = await first.url;
    await call(url, 'PUT', '/__sandbox/sessions/default/network/+14155550111', { outcome: 'busy' });
    await call(url, 'POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await call(url, 'POST', '/v1/calls', { to: '+14155550111', from: '+14155550100' });
    await call(url, 'POST', '/__sandbox/sessions/default/advance', { duration: '3s' });
    const before = await state(url);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'));
    expect(file).toMatchObject({ format: 'svc-sandbox-snapshot', now: '2026-01-01T00:00:03.000Z' });

    const answers: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const again = start(['serve', '--port', '0', '--import', join(dir, 'a.json')]);
      const restored = await again.url;
      expect(await state(restored)).toEqual(before);
      answers.push(await goOn(restored));
      again.child.kill('SIGINT');
      expect(await again.exit).toBe(0);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect((answers[0] as Array<{ status: number }>).map((a) => a.status)).toEqual([201, 200, 200]);
  });

  it('exec --import --export-on-exit: the command sees the imported session, and what it did is in the exported file', async () => {
    writeFileSync(
      join(dir, 'empty.json'),
      JSON.stringify(
        JSON.parse(
          execFileSync(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `import { createSandbox } from '${ROOT}dist/index.js'; console.log(JSON.stringify(createSandbox({ seed: 4 }).snapshot()))`,
            ],
            { encoding: 'utf8' },
          ),
        ),
      ),
    );
    const script = `const r = await fetch(process.env.SVC_API_BASE_URL + '/v1/calls', { method: 'POST', headers: { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' }, body: '{"to":"+14155550123","from":"+14155550100"}' }); process.exit(r.status === 201 ? 0 : 3);`;
    const run = spawn(
      process.execPath,
      [
        CLI,
        'exec',
        '--import',
        join(dir, 'empty.json'),
        '--export-on-exit',
        join(dir, 'b.json'),
        '--',
        process.execPath,
        '--input-type=module',
        '-e',
        script,
      ],
      { stdio: 'ignore' },
    );
    expect(await new Promise((resolve) => run.once('exit', resolve))).toBe(0);
    const exported = JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8'));
    expect(exported.options.seed).toBe(4);
    expect(
      exported.inputs.filter((i: { kind: string; path?: string }) => i.kind === 'request').map((i: { path?: string }) => i.path),
    ).toEqual(['/v1/calls']);
  });

  it("regression: exec --seed N --import FILE hands its command the exporting run's SVC_API_KEY, on the same account (it crashed, then hung)", async () => {
    const exec = (args: string[], script: string) =>
      new Promise((resolve) =>
        spawn(process.execPath, [CLI, 'exec', '--seed', '4', ...args, '--', process.execPath, '--input-type=module', '-e', script], {
          stdio: 'ignore',
        }).once('exit', resolve),
      );
    const call = `const r = await fetch(process.env.SVC_API_BASE_URL + '/v1/calls', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY, 'content-type': 'application/json' }, body: '{"to":"+14155550123","from":"+14155550100"}' }); process.exit(r.status === 201 ? 0 : 3);`;
    expect(await exec(['--export-on-exit', join(dir, 'seeded.json')], call)).toBe(0);
    const count = `const r = await fetch(process.env.SVC_API_BASE_URL + '/v1/calls', { headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY } }); process.exit((await r.json()).data.length === 1 ? 0 : 4);`;
    expect(await exec(['--import', join(dir, 'seeded.json')], count)).toBe(0);
  }, 30_000);

  it('a file that is no snapshot, or of another version, is a bad argument naming --import', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"format": "svc-sandbox-snapshot", "version": "0.0.1"}');
    writeFileSync(join(dir, 'text.json'), 'not json');
    for (const [file, message] of [
      ['bad.json', /--import .*bad\.json: `snapshot\.version`: this snapshot was taken by svc-sandbox 0\.0\.1/],
      ['text.json', /--import .*text\.json: it is not JSON/],
      ['missing.json', /--import .*missing\.json: it does not exist\./],
    ] as const) {
      const bad = start(['serve', '--port', '0', '--import', join(dir, file)]);
      bad.url.catch(() => undefined);
      expect(await bad.exit).toBe(2);
      expect(bad.stderr()).toMatch(message);
    }
  });

  it('regression: a snapshot input no sandbox recorded (a call named constructor exited 1; a CONNECT, a path //evil.example/x, an advance of 1e16 ms were taken) exits 2 naming --import and the input, and show refuses it the same way', async () => {
    const snapshot = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createSandbox } from '${ROOT}dist/index.js'; const s = createSandbox({ seed: 4 }); ` +
            `await s.fetch('/v1/calls', { method: 'POST', headers: { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' }, body: '{"to":"+14155550123","from":"+14155550100"}' }); ` +
            `await s.advance('1s'); console.log(JSON.stringify(s.snapshot()))`,
        ],
        { encoding: 'utf8' },
      ),
    );
    const spoil = (file: string, change: (s: any) => void) => {
      const copy = structuredClone(snapshot);
      change(copy);
      writeFileSync(join(dir, file), JSON.stringify(copy));
      return join(dir, file);
    };
    const cases: Array<[string, RegExp]> = [
      [
        spoil('constructor.json', (s) => s.inputs.push({ kind: 'call', at: s.inputs[1].at, name: 'constructor', args: [] })),
        /`snapshot\.inputs\[2\]\.name` "constructor" is not a scripting call a snapshot records: one of calls\.answer/,
      ],
      [spoil('connect.json', (s) => (s.inputs[0].method = 'CONNECT')), /`snapshot\.inputs\[0\]\.method` must be a method .*got "CONNECT"/],
      [spoil('evil.json', (s) => (s.inputs[0].path = '//evil.example/x')), /`snapshot\.inputs\[0\]\.path` must be a path under \/v1/],
      [spoil('far.json', (s) => (s.inputs[1].ms = 1e16)), /`snapshot\.inputs\[1\]\.ms` is 10000000000000000: an advance begun at/],
    ];
    const refused = (args: string[]) => {
      const run = start(args);
      run.url.catch(() => undefined); // it exits before listening
      return run;
    };
    const serves = cases.map(([file]) => refused(['serve', '--port', '0', '--import', file]));
    const shows = cases.map(([file]) => refused(['show', '--port', '0', file]));
    for (const [i, [file, problem]] of cases.entries()) {
      for (const [run, prefix] of [
        [serves[i]!, `svc-sandbox: --import ${file}: `],
        [shows[i]!, `svc-sandbox: show ${file}: `],
      ] as const) {
        expect(await run.exit, prefix).toBe(2);
        const [line] = run.stderr().split('\n');
        expect(line!.startsWith(prefix), line).toBe(true);
        expect(line!.slice(prefix.length)).toMatch(problem);
      }
    }
  }, 60_000);

  it('regression: a 221-byte snapshot counting 2^53-1 requests froze show and --import for good; both exit 2 within 5 s naming the file and the field', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    const file = join(dir, 'frozen.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'svc-sandbox-snapshot',
        version,
        options: { seed: 1 },
        now: '2026-01-01T00:00:00.000Z',
        inputs: [{ kind: 'elided', at: '2026-01-01T00:00:00.000Z', requests: 9007199254740991 }],
        attempts: [],
      }),
    );
    const began = performance.now();
    const refused = (args: string[]) => {
      const run = start(args);
      run.url.catch(() => undefined); // it exits before listening
      return run;
    };
    const runs: Array<[ReturnType<typeof start>, string]> = [
      [refused(['serve', '--port', '0', '--import', file]), `svc-sandbox: --import ${file}: `],
      [refused(['show', '--port', '0', file]), `svc-sandbox: show ${file}: `],
    ];
    for (const [run, prefix] of runs) {
      expect(await run.exit, prefix).toBe(2);
      const [line] = run.stderr().split('\n');
      expect(line!.startsWith(prefix), line).toBe(true);
      expect(line!.slice(prefix.length)).toMatch(
        /`snapshot\.inputs\[0\]\.requests` is 9007199254740991, .*more than the 1000000 a snapshot may count/,
      );
    }
    expect(performance.now() - began).toBeLessThan(5_000);
  }, 30_000);

  it('regression: a snapshot whose scripting call no longer replays was restored as another sandbox without a word; show and --import exit 2 naming the file and snapshot.inputs[N]', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    const file = join(dir, 'diverged.json');
    const at = '2026-01-01T00:00:00.000Z';
    writeFileSync(
      file,
      JSON.stringify({
        format: 'svc-sandbox-snapshot',
        version,
        options: { seed: 1 },
        now: at,
        inputs: [
          { kind: 'call', at, name: 'network.setBehavior', args: ['+14155550111', { outcome: 'busy' }] },
          { kind: 'call', at, name: 'network.setBehavior', args: ['+14155550111', { outcome: 'bussy' }] },
        ],
        attempts: [],
      }),
    );
    const refused = (args: string[]) => {
      const run = start(args);
      run.url.catch(() => undefined); // it exits before listening
      return run;
    };
    const runs: Array<[ReturnType<typeof start>, string]> = [
      [refused(['serve', '--port', '0', '--import', file]), `svc-sandbox: --import ${file}: `],
      [refused(['show', '--port', '0', file]), `svc-sandbox: show ${file}: `],
    ];
    for (const [run, prefix] of runs) {
      expect(await run.exit, prefix).toBe(2);
      const [line] = run.stderr().split('\n');
      expect(line!.startsWith(prefix), line).toBe(true);
      expect(line!.slice(prefix.length)).toMatch(/`snapshot\.inputs\[1\]` \(network\.setBehavior\) does not replay as it was recorded/);
    }
  }, 30_000);
});
