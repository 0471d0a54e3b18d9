import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  ftruncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, writeSnapshotFile } from '../../src/index.js';
import { MAX_SNAPSHOT_FILE_BYTES, readSnapshotFile, showCommandLine, snapshotFileName } from '../../src/server/snapshot-file.js';

/**
 * Snapshot files (src/server/snapshot-file.ts): what `svc-sandbox show` accepts to read, and how
 * a failed test's snapshot is written (`SVC_SANDBOX_SNAPSHOTS=DIR`, `writeSnapshotFile`).
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sandbox = createSandbox({ seed: 2 });
const snapshot = sandbox.snapshot();
sandbox.close();

/** The refusal of reading `file`: its message and param. */
function refusal(file: string): { message: string; param: string | undefined } {
  try {
    readSnapshotFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    return { message: (error as SandboxError).message, param: (error as SandboxError).param };
  }
  throw new Error(`${file} was read`);
}
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('reading a snapshot file', () => {
  it('reads a snapshot as snapshot() made it', () => {
    expect(readSnapshotFile(file('good.json', JSON.stringify(snapshot)))).toEqual(JSON.parse(JSON.stringify(snapshot)));
  });

  it('opens nothing but a regular file, and reads no further than the limit', () => {
    expect(refusal(join(dir, 'absent.json')).message).toMatch(/^there is no such file; give the path of a snapshot/);
    expect(refusal(dir).message).toBe('it is a directory, not a regular file; give the .json file a snapshot was written to.');
    expect(refusal('/dev/null').message).toMatch(/^it is a character device, not a regular file/);
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    // No writer ever comes: the FIFO is refused at once instead of being waited on.
    expect(refusal(fifo).message).toMatch(/^it is a FIFO \(named pipe\), not a regular file/);
    const huge = join(dir, 'huge.json');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, MAX_SNAPSHOT_FILE_BYTES + 1024 * 1024); // sparse: nothing is written
    closeSync(fd);
    expect(refusal(huge).message).toMatch(
      /^it is 17\.0 MiB, larger than the 16 MiB a snapshot may be here \(show keeps every version of the session in memory; .* svc-sandbox serve --import FILE instead\.$/,
    );
  });

  it('names what is wrong with a file that is no snapshot', () => {
    expect(refusal(file('bytes.json', Buffer.from([0xff, 0xfe, 0x7b]))).message).toMatch(/^it is not UTF-8 text/);
    expect(refusal(file('text.json', '{"format": "svc-sandbox-snapshot",')).message).toMatch(
      /^it is not JSON \(.+\); give the file a snapshot was written to\.$/,
    );
    expect(refusal(file('list.json', '[]')).message).toMatch(/^`snapshot` must be a snapshot taken with sandbox\.snapshot\(\)/);
    expect(refusal(file('other.json', '{"format": "har"}'))).toMatchObject({ param: 'snapshot.format' });
    const old = refusal(file('old.json', JSON.stringify({ ...snapshot, version: '0.0.1' })));
    expect(old.param).toBe('snapshot.version');
    expect(old.message).toMatch(/this snapshot was taken by svc-sandbox 0\.0\.1/);
  });

  it('refuses hostile JSON before anything reads it: deep nesting, __proto__ keys', () => {
    const deep = refusal(file('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`));
    expect(deep.message).toMatch(/^its JSON nests deeper than 64 levels at snapshot(\[0\]){64}; no snapshot does\.$/);
    const inArgs = {
      ...snapshot,
      inputs: [
        {
          kind: 'call',
          at: Date.parse(snapshot.now),
          name: 'network.setBehavior',
          args: [JSON.parse(`${'['.repeat(80)}1${']'.repeat(80)}`)],
        },
      ],
    };
    expect(refusal(file('deep-args.json', JSON.stringify(inArgs))).message).toMatch(
      /nests deeper than 64 levels at snapshot\.inputs\[0\]\.args\[0\]/,
    );
    const proto = refusal(file('proto.json', JSON.stringify(snapshot).replace('"options":{', '"options":{"__proto__":{"polluted":true},')));
    expect(proto).toEqual({
      message: 'it has a "__proto__" key at snapshot.options; no snapshot has one.',
      param: 'snapshot.options.__proto__',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses instants no session could have: an input after the snapshot was taken, or before its start', () => {
    const now = Date.parse(snapshot.now);
    const later = { ...snapshot, inputs: [{ kind: 'advance', at: now + 1000, ms: 5 }] };
    expect(refusal(file('later.json', JSON.stringify(later)))).toEqual({
      message:
        '`snapshot.inputs[0].at` is 2026-01-01T00:00:01.000Z, after the instant the snapshot was taken (2026-01-01T00:00:00.000Z); ' +
        'give the snapshot as sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot) wrote it.',
      param: 'snapshot.inputs[0].at',
    });
    const earlier = { ...snapshot, now: '2026-01-01T00:01:00.000Z', inputs: [{ kind: 'advance', at: now - 1, ms: 5 }] };
    expect(refusal(file('earlier.json', JSON.stringify(earlier))).message).toMatch(
      /^`snapshot\.inputs\[0\]\.at` is 2025-12-31T23:59:59\.999Z, before the session's start/,
    );
    expect(refusal(file('backwards.json', JSON.stringify({ ...snapshot, now: '2025-01-01T00:00:00Z' }))).message).toMatch(
      /^`snapshot\.now` is 2025-01-01T00:00:00\.000Z, before the session's start/,
    );
  });
});

describe('the command a failed test prints', () => {
  it('runs as printed in a shell: npx svc-sandbox show, or the executable in use by its full path, each word quoted where needed', () => {
    expect(showCommandLine('snapshots/a.test.ts_works.json', '')).toBe('npx svc-sandbox show snapshots/a.test.ts_works.json');
    expect(showCommandLine("snapshots/it's here.json", '')).toBe(`npx svc-sandbox show 'snapshots/it'\\''s here.json'`);
    expect(showCommandLine('s.json', '/opt/svc sandbox/svc-sandbox')).toBe("'/opt/svc sandbox/svc-sandbox' show s.json");
    expect(showCommandLine('s.json', 'bin/svc-sandbox')).toBe(`${join(process.cwd(), 'bin/svc-sandbox')} show s.json`);
  });
});

describe('writing a failed test’s snapshot', () => {
  it('makes a safe file name of a test’s name, short and whole', () => {
    expect(snapshotFileName('calls.test.ts > a call > completes')).toBe('calls.test.ts_a_call_completes');
    expect(snapshotFileName('tests / calls.test.ts > completes')).toBe('tests_calls.test.ts_completes');
    expect(snapshotFileName('../../etc/passwd')).toBe('etc_passwd');
    expect(snapshotFileName('☎️ 📞')).toBe('test');
    const long = snapshotFileName(`x > ${'a very long describe block '.repeat(10)}`);
    expect(long).toHaveLength(120);
    expect(long).toMatch(/^x_a_very_long_describe_block_.*_[0-9a-f]{10}$/);
    expect(snapshotFileName(`x > ${'a very long describe block '.repeat(10)}!`)).not.toBe(long);
  });

  it('writes DIR/<name>.json (making DIR), a new name for a second test of the same name', () => {
    const out = join(dir, 'made', 'deeper');
    const first = writeSnapshotFile(out, 'calls.test.ts > completes', snapshot);
    expect(first).toBe(join(out, 'calls.test.ts_completes.json'));
    expect(JSON.parse(readFileSync(first, 'utf8'))).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(writeSnapshotFile(out, 'calls.test.ts > completes', snapshot)).toBe(join(out, 'calls.test.ts_completes-2.json'));
    expect(readdirSync(out).sort()).toEqual(['calls.test.ts_completes-2.json', 'calls.test.ts_completes.json']); // no temporary file left
  });

  it('replaces a regular file an earlier run left, and passes over a link, a FIFO or a directory of that name', () => {
    const out = join(dir, 'old-run');
    mkdirSync(out);
    writeFileSync(join(out, 'replaced.json'), 'from an earlier run');
    expect(writeSnapshotFile(out, 'replaced', snapshot)).toBe(join(out, 'replaced.json'));
    expect(readFileSync(join(out, 'replaced.json'), 'utf8')).toBe(JSON.stringify(snapshot));

    const target = join(dir, 'not-yours.txt');
    writeFileSync(target, 'keep me');
    symlinkSync(target, join(out, 'linked.json'));
    expect(writeSnapshotFile(out, 'linked', snapshot)).toBe(join(out, 'linked-2.json'));
    expect(readFileSync(target, 'utf8')).toBe('keep me');

    execFileSync('mkfifo', [join(out, 'piped.json')]);
    expect(writeSnapshotFile(out, 'piped', snapshot)).toBe(join(out, 'piped-2.json'));
    mkdirSync(join(out, 'folder.json'));
    expect(writeSnapshotFile(out, 'folder', snapshot)).toBe(join(out, 'folder-2.json'));
  });

  it('refuses a DIR that is a file', () => {
    const notDir = file('plain-file', 'x');
    expect(() => writeSnapshotFile(notDir, 'x', snapshot)).toThrow(/EEXIST|ENOTDIR|not a directory/);
  });
});
