import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { device as makeDevice, fifo as makeFifo } from '../../test/support/special-files.js';
import { checkWritable, FileRefused, readJsonFile, readRegularFile, writeRegularFile } from './files.js';

// Regression: --export-on-exit replaced a character device or a symlink with a regular file, and --import read
// /dev/zero without bound (1.8 GB in 1.5 s) and hung on a FIFO nobody wrote to.

let dir: string;
const helpers: ChildProcess[] = [];
const servers: Server[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-files-'));
});
afterEach(async () => {
  for (const child of helpers.splice(0)) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const at = (name: string) => join(dir, name);
function refusedWith(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(FileRefused);
    return (error as Error).message;
  }
  throw new Error('it was not refused');
}

const fifo = (name: string, otherEnd: 'write' | 'read') => makeFifo(at(name), otherEnd, helpers);
const device = () => makeDevice(at('null'));

async function socket(): Promise<string> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at('sock'), resolve));
  return at('sock');
}

describe('readRegularFile', () => {
  it('reads a regular file, and one behind a symbolic link', () => {
    writeFileSync(at('a.json'), '{"ok": true}');
    symlinkSync(at('a.json'), at('link.json'));
    expect(readRegularFile(at('a.json')).toString()).toBe('{"ok": true}');
    expect(readRegularFile(at('link.json')).toString()).toBe('{"ok": true}');
  });

  it('refuses /dev/zero and a FIFO nobody writes to at once, without reading them', () => {
    const started = performance.now();
    const before = process.memoryUsage().rss;
    expect(refusedWith(() => readRegularFile('/dev/zero'))).toBe('is a character device, not a regular file');
    expect(refusedWith(() => readRegularFile(fifo('pipe', 'write')))).toBe('is a FIFO (named pipe), not a regular file');
    symlinkSync('/dev/zero', at('zero'));
    expect(refusedWith(() => readRegularFile(at('zero')))).toBe('is a character device, not a regular file');
    // A bound no machine load decides: three refusals take a millisecond or so, well over 20 times
    // less; reading /dev/zero into memory until the RSS check below fails takes seconds.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * 1024 * 1024);
  });

  it('refuses a directory, a socket, a missing file and one over the limit', async () => {
    mkdirSync(at('folder'));
    writeFileSync(at('big'), Buffer.alloc(1001));
    const sock = await socket();
    expect(refusedWith(() => readRegularFile(at('folder')))).toBe('is a directory, not a regular file');
    expect(refusedWith(() => readRegularFile(sock))).toBe('is a socket, not a regular file');
    expect(refusedWith(() => readRegularFile(at('none')))).toBe('does not exist');
    expect(refusedWith(() => readRegularFile(at('big'), 1000))).toBe('is 1001 bytes, over the limit of 1000 bytes');
    expect(readRegularFile(at('big'), 1001)).toHaveLength(1001);
  });

  it('readJsonFile: no UTF-8, no JSON and nesting past the limit are refused, saying which', () => {
    writeFileSync(at('latin1'), Buffer.from([0x7b, 0xe9, 0x7d]));
    writeFileSync(at('text'), 'hello');
    writeFileSync(at('deep'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(refusedWith(() => readJsonFile(at('latin1')))).toBe('is not UTF-8 text');
    expect(refusedWith(() => readJsonFile(at('text')))).toMatch(/^is not JSON \(Unexpected token/);
    expect(refusedWith(() => readJsonFile(at('deep')))).toMatch(
      /^`\[0\]\[0\].*` nests deeper than 64 levels of arrays and objects, the limit of a JSON input: flatten it\.$/,
    );
  });
});

describe('writeRegularFile', () => {
  it('writes a new file, and replaces a regular one whole, keeping its permissions and leaving no temporary file', () => {
    writeRegularFile(at('out.json'), 'first');
    expect(readFileSync(at('out.json'), 'utf8')).toBe('first');
    chmodSync(at('out.json'), 0o600);
    writeRegularFile(at('out.json'), 'second');
    expect(readFileSync(at('out.json'), 'utf8')).toBe('second');
    expect(statSync(at('out.json')).mode & 0o777).toBe(0o600);
    writeRegularFile(at('deeper/still/out.json'), 'made', { makeFolders: true });
    expect(readFileSync(at('deeper/still/out.json'), 'utf8')).toBe('made');
    expect(readdirSync(dir).sort()).toEqual(['deeper', 'out.json']);
  });

  it('never replaces a device, a symbolic link (to a file or to a device), a FIFO, a socket or a directory', async () => {
    const null_ = device();
    writeFileSync(at('target'), 'untouched');
    symlinkSync(at('target'), at('link-to-file'));
    symlinkSync(null_, at('link-to-device'));
    mkdirSync(at('folder'));
    const cases: Array<[string, string]> = [
      [null_, 'is a character device'],
      [at('link-to-file'), 'is a symbolic link'],
      [at('link-to-device'), 'is a symbolic link'],
      [fifo('pipe', 'read'), 'is a FIFO (named pipe)'],
      [await socket(), 'is a socket'],
      [at('folder'), 'is a directory'],
    ];
    const started = performance.now();
    for (const [path, why] of cases) {
      const kind = lstatSync(path).mode & 0o170000;
      expect(
        refusedWith(() => writeRegularFile(path, 'replaced')),
        path,
      ).toBe(`${why}: give the path of a regular file, or of none yet`);
      expect(
        refusedWith(() => checkWritable(path)),
        path,
      ).toBe(`${why}: give the path of a regular file, or of none yet`);
      expect(lstatSync(path).mode & 0o170000, `${path} is what it was`).toBe(kind);
    }
    // A generous bound (the refusals take milliseconds): writing into a device or a FIFO would block or run on.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(readFileSync(at('target'), 'utf8')).toBe('untouched');
    expect(statSync(null_).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('checkWritable: an absent file in an existing folder is fine; a missing folder is refused unless folders are made', () => {
    expect(() => checkWritable(at('new.json'))).not.toThrow();
    expect(refusedWith(() => checkWritable(at('no/such/new.json')))).toBe(`is in a folder that does not exist (${at('no/such')})`);
    expect(() => checkWritable(at('no/such/new.json'), { makeFolders: true })).not.toThrow();
  });
});
