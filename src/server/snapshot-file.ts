import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SandboxError } from '../core/errors.js';
import { MAX_JSON_DEPTH, tooDeepAt } from '../core/json-depth.js';
import { parseSnapshot, type SandboxSnapshot } from '../scripting/snapshots.js';
import { FileRefused, readRegularFile, writeRegularFile } from './files.js';

/**
 * Snapshot files: reading one that may come from anywhere (`svc-sandbox show FILE`: a CI
 * artifact, a file someone sent), and writing the snapshot of a failed test
 * (`SVC_SANDBOX_SNAPSHOTS=DIR`, docs/debugging.md).
 */

/**
 * The largest snapshot file `svc-sandbox show` reads: some 75,000 calls (about 220 bytes of
 * input each), far past any test's session. Show replays the file into a sandbox and an index
 * of every version, which costs a live heap of some 35 times the file's size and about 1.3 s of
 * CPU per MiB (bench/show-limits.mjs: a 12 MiB file is shown in 18 s at 750 MiB resident, one of
 * this size in 25 s under 1 GiB); past this size the replay would outgrow a laptop's memory, so
 * the file is refused up front (exit 2) rather than run out of it halfway (docs/debugging.md,
 * "Bad files"). `svc-sandbox serve --import` replays without the index and reads up to 64 MiB.
 */
export const MAX_SNAPSHOT_FILE_BYTES = 16 * 1024 * 1024;
/** No snapshot nests deeper (a scripting call's arguments are a few levels at most): the one limit of JSON nesting. */
export const MAX_SNAPSHOT_DEPTH = MAX_JSON_DEPTH;

const MIB = 1024 * 1024;

/**
 * Reads and checks a snapshot file, or throws a SandboxError (`param: 'file'`, or the
 * snapshot's field) whose message says what is wrong with it and what to give instead, without
 * naming the file (the caller does). Nothing but a regular file is opened for reading (a FIFO
 * would block, a device would never end); it is read no further than
 * {@link MAX_SNAPSHOT_FILE_BYTES}; its JSON is refused before anything uses it when it nests
 * deeper than {@link MAX_SNAPSHOT_DEPTH} or has a `__proto__` key; then it is checked as
 * `createSandbox({ snapshot })` checks one (its instants included).
 */
export function readSnapshotFile(file: string): SandboxSnapshot {
  const text = readBounded(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refusal(`it is not JSON (${(error as Error).message}); give the file a snapshot was written to.`);
  }
  checkShape(value);
  return parseSnapshot(value);
}

/** The file's text: a regular file (server/files.ts, which never opens anything else), UTF-8, at most MAX_SNAPSHOT_FILE_BYTES. */
function readBounded(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, MAX_SNAPSHOT_FILE_BYTES);
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    if (error.reason === 'missing')
      throw refusal('there is no such file; give the path of a snapshot (a failed test prints it: svc-sandbox show DIR/<test>.json).');
    if (error.reason === 'size') throw tooBig(error.bytes ?? MAX_SNAPSHOT_FILE_BYTES + 1);
    throw refusal(`it ${error.message}; give the .json file a snapshot was written to.`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refusal('it is not UTF-8 text, so it is no JSON snapshot; give the .json file a snapshot was written to.');
  }
}

function tooBig(bytes: number): SandboxError {
  return refusal(
    `it is ${(bytes / MIB).toFixed(1)} MiB, larger than the ${MAX_SNAPSHOT_FILE_BYTES / MIB} MiB a snapshot may be here (show keeps every ` +
      `version of the session in memory; a test's snapshot is a few KiB). Start a server from it with svc-sandbox serve --import FILE instead.`,
  );
}

/**
 * Refuses nesting deeper than MAX_SNAPSHOT_DEPTH (core/json-depth.ts: a recursive reader such as
 * JSON.stringify would overflow its stack), then `__proto__` keys (an object copied with
 * Object.assign would take it as its prototype); neither walk recurses.
 */
function checkShape(value: unknown): void {
  const deep = tooDeepAt(value, 'snapshot', MAX_SNAPSHOT_DEPTH);
  if (deep !== null) throw refusal(`its JSON nests deeper than ${MAX_SNAPSHOT_DEPTH} levels at ${deep}; no snapshot does.`, deep);
  const stack: Array<[unknown, string]> = [[value, 'snapshot']];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const [node, path] = top;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push([node[i], `${path}[${i}]`]);
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key === '__proto__') throw refusal(`it has a "__proto__" key at ${path}; no snapshot has one.`, `${path}.__proto__`);
      stack.push([(node as Record<string, unknown>)[key], `${path}.${key}`]);
    }
  }
}

function refusal(message: string, param = 'file'): SandboxError {
  return new SandboxError(message, { code: 'invalid_parameter', param });
}

/** `text` as one word of a POSIX shell: as it is when it needs no quoting, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that opens a snapshot file, as a failed test prints it, runnable as printed in the
 * user's shell: `npx svc-sandbox show FILE` (a bare `svc-sandbox` is on no PATH outside npm's
 * scripts), or, when `SVC_SANDBOX_BIN` names the executable in use, that executable by its full
 * path. Each word quoted for a POSIX shell where it needs it.
 *
 * @example
 * showCommandLine('snapshots/a test.json'); // "npx svc-sandbox show 'snapshots/a test.json'"
 * showCommandLine('s.json', '/opt/svc-sandbox'); // '/opt/svc-sandbox show s.json'
 */
export function showCommandLine(file: string, bin = process.env.SVC_SANDBOX_BIN): string {
  const command = bin ? shellWord(resolve(bin)) : 'npx svc-sandbox';
  return `${command} show ${shellWord(file)}`;
}

/** Names this process has written a snapshot to: two tests with the same name get two files. */
const written = new Set<string>();
/** A file name's longest stem: a longer test name is cut and ends with a digest of the whole. */
const NAME_MAX = 120;

/**
 * A file name made safe from a test's name: each run of characters outside `[A-Za-z0-9._-]`
 * becomes one `_`, at most 120 characters (a longer name is cut and ends with a digest of the
 * whole), never empty. The same rule as the pytest plugin's.
 *
 * @example
 * snapshotFileName('calls.test.ts > a call > completes'); // 'calls.test.ts_a_call_completes'
 */
export function snapshotFileName(testName: string): string {
  const safe = testName.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._-]+|[._-]+$/g, '') || 'test';
  if (safe.length <= NAME_MAX) return safe;
  const digest = createHash('sha1').update(testName).digest('hex').slice(0, 10);
  return `${safe.slice(0, NAME_MAX - 11)}_${digest}`;
}

/**
 * Writes a failed test's snapshot to `dir/<test name made safe>.json` and answers its path
 * (what `svc-sandbox show` opens; docs/debugging.md). `dir` is created. A name is used once
 * per process (`-2`, `-3`… for a second test of the same name); a file left there by an earlier
 * run is replaced, but only a regular file: a directory, a symbolic link, a FIFO or a device of
 * that name is passed over for the next name, never followed or written into. The JSON goes to
 * a new temporary file in `dir` first, renamed over the name, so the file is whole or absent.
 *
 * @example
 * afterEach((ctx) => {
 *   if (ctx.task.result?.state === 'fail') console.error(`svc-sandbox show ${writeSnapshotFile('snapshots', ctx.task.name, sandbox.snapshot())}`);
 * });
 */
export function writeSnapshotFile(dir: string, testName: string, snapshot: SandboxSnapshot): string {
  mkdirSync(dir, { recursive: true });
  if (!statSync(dir).isDirectory()) throw new SandboxError(`writeSnapshotFile: ${dir} is not a directory.`, { param: 'dir' });
  const stem = snapshotFileName(testName);
  const path = freeName(dir, stem);
  // Whole or absent, and only ever as a regular file: a link or a device put there since is refused, never written through.
  writeRegularFile(path, JSON.stringify(snapshot));
  return path;
}

function freeName(dir: string, stem: string): string {
  for (let n = 1; n < 1000; n++) {
    const path = join(dir, n === 1 ? `${stem}.json` : `${stem}-${n}.json`);
    if (written.has(path)) continue;
    const existing = lstatSync(path, { throwIfNoEntry: false });
    if (existing && !existing.isFile()) continue;
    written.add(path);
    return path;
  }
  throw new SandboxError(`writeSnapshotFile: no free file name for ${stem} in ${dir}.`, { code: 'conflict', param: 'dir' });
}
