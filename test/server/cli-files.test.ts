import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { device as makeDevice, fifo as makeFifo } from '../support/special-files.js';
import { CLI, ensureBuilt } from './built-cli.js';

// Regression: --export-on-exit replaced a character device or a symlink with a regular file, and --import read /dev/zero without bound and hung on a FIFO nobody wrote to.

beforeAll(ensureBuilt, 120_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

const helpers: ChildProcess[] = [];
afterEach(() => {
  for (const child of helpers.splice(0)) child.kill('SIGKILL');
});

/** The CLI run to its end, bounded: its exit code, its stderr and how long it took. */
function cli(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  helpers.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, ms: performance.now() - started })));
}

const fifo = (name: string, otherEnd: 'write' | 'read') => makeFifo(at(name), otherEnd, helpers);
const device = (name: string) => makeDevice(at(name));

describe('files the CLI reads: regular files only, bounded, never waited on', () => {
  it('serve --import of /dev/zero, a FIFO nobody writes to, a directory: exit 2 at once, naming --import', async () => {
    mkdirSync(at('folder'));
    for (const [file, what] of [
      ['/dev/zero', 'is a character device'],
      [fifo('import-pipe', 'write'), 'is a FIFO \\(named pipe\\)'],
      [at('folder'), 'is a directory'],
    ] as const) {
      const { code, stderr, ms } = await cli(['serve', '--port', '0', '--import', file]);
      expect(code, file).toBe(2);
      expect(stderr, file).toMatch(new RegExp(`^svc-sandbox: --import ${file}: it ${what}, not a regular file\\.\\n`));
      expect(ms, file).toBeLessThan(8_000);
    }
  }, 60_000);

  it('run of a FIFO is exit 2 and coverage of one exit 1, at once, each naming the file', async () => {
    const run = await cli(['run', fifo('scenario-pipe', 'write')]);
    expect(run).toMatchObject({ code: 2, stderr: expect.stringContaining('scenario-pipe: cannot read it as a scenario: it is a FIFO') });
    const coverage = await cli(['coverage', fifo('coverage-pipe', 'write')]);
    expect(coverage).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('coverage-pipe is not a coverage report it can read: it is a FIFO'),
    });
    expect(Math.max(run.ms, coverage.ms)).toBeLessThan(8_000);
  }, 30_000);
});

describe('files the CLI writes: regular files only, never replacing anything else', () => {
  it('--export-on-exit of a device, a symlink (to a file or a device), a FIFO or a missing folder: exit 2 at start, naming the flag, all left as they were', async () => {
    const null_ = device('export-null');
    writeFileSync(at('kept.json'), 'kept');
    symlinkSync(at('kept.json'), at('link-to-file'));
    symlinkSync(null_, at('link-to-device'));
    const cases: Array<[string, string]> = [
      [null_, 'is a character device'],
      [at('link-to-file'), 'is a symbolic link'],
      [at('link-to-device'), 'is a symbolic link'],
      [fifo('export-pipe', 'read'), 'is a FIFO \\(named pipe\\)'],
      [at('no/such/out.json'), `is in a folder that does not exist`],
    ];
    for (const command of ['serve', 'exec'] as const) {
      for (const [file, what] of cases) {
        const args = command === 'serve' ? ['serve', '--port', '0'] : ['exec'];
        const tail = command === 'exec' ? ['--', process.execPath, '-e', ''] : [];
        const { code, stderr, ms } = await cli([...args, '--export-on-exit', file, ...tail]);
        expect(code, `${command} ${file}`).toBe(2);
        expect(stderr, `${command} ${file}`).toMatch(new RegExp(`^svc-sandbox: --export-on-exit ${file}: it ${what}`));
        expect(ms).toBeLessThan(8_000);
      }
    }
    expect(statSync(null_).isCharacterDevice()).toBe(true);
    expect(readFileSync(at('kept.json'), 'utf8')).toBe('kept');
    expect(readlinkSync(at('link-to-file'))).toBe(at('kept.json'));
    expect(lstatSync(at('link-to-device')).isSymbolicLink()).toBe(true);
  }, 90_000);

  it('exec --coverage, run --svg and coverage --html refuse a device or a symlink the same way, before any work', async () => {
    const null_ = device('write-null');
    symlinkSync(at('elsewhere.svg'), at('link.svg'));
    const scenario = at('ok.json');
    writeFileSync(scenario, JSON.stringify({ name: 'ok', steps: [{ at: '0s' }] }));
    const exec = await cli(['exec', '--coverage', null_, '--', process.execPath, '-e', '']);
    expect(exec).toMatchObject({ code: 2, stderr: expect.stringMatching(/^svc-sandbox: --coverage \S+: it is a character device/) });
    const run = await cli(['run', scenario, '--svg', at('link.svg')]);
    expect(run).toMatchObject({ code: 2, stderr: expect.stringMatching(/^svc-sandbox: --svg \S+link\.svg: it is a symbolic link/) });
    writeFileSync(at('report.json'), '{}');
    const html = await cli(['coverage', at('report.json'), '--html', null_]);
    expect(html).toMatchObject({ code: 2, stderr: expect.stringMatching(/^svc-sandbox: --html \S+: it is a character device/) });
    expect(statSync(null_).isCharacterDevice()).toBe(true);
    expect(lstatSync(at('link.svg')).isSymbolicLink()).toBe(true);
    expect(() => lstatSync(at('elsewhere.svg'))).toThrow(/ENOENT/);
  }, 60_000);
});
