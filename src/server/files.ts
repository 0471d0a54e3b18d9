import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { tooDeepAt, tooDeepText } from '../core/json-depth.js';

/**
 * Every file the CLI reads or writes goes through here (docs/server.md, "Files"): it reads only
 * regular files, and no more than {@link MAX_FILE_BYTES}; it writes only regular files, whole or
 * not at all, and never replaces anything else. A server run as root in a CI container must not
 * turn `/dev/null` into a file, follow a symlink to somewhere else, or wait forever on a FIFO.
 */

/** The most the CLI reads of one file: a snapshot (`--import`), a scenario, a coverage report. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A file the CLI will not read or write. The message says what is wrong with it (`is a FIFO
 * (named pipe), not a regular file`); the caller names the file (and the flag), and may word a
 * `reason` its own way.
 */
export class FileRefused extends Error {
  override readonly name = 'FileRefused';

  constructor(
    message: string,
    readonly reason: 'missing' | 'kind' | 'size' | 'other' = 'other',
    /** The file's size, for `size`. */
    readonly bytes?: number,
  ) {
    super(message);
  }
}

/** What a file that is not a regular file is, in words. */
function kind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A failed system call as a refusal: what it means for the user, not the errno alone. */
function refusal(error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof FileRefused) throw error;
  if (code === 'ENOENT') throw new FileRefused('does not exist', 'missing');
  if (code === 'EACCES' || code === 'EPERM') throw new FileRefused('is not accessible: permission denied');
  if (code === 'ENOTDIR') throw new FileRefused('is not below a directory');
  if (code === 'ELOOP') throw new FileRefused('is a loop of symbolic links');
  throw new FileRefused(`cannot be used (${code ?? (error as Error).message})`);
}

/** A size as a person reads it: bytes below a MiB, else MiB to one decimal. */
const size = (bytes: number) => (bytes < 1024 * 1024 ? `${bytes} bytes` : `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`);

/**
 * The bytes of the regular file at `path` (a symbolic link to one is followed: reading through it
 * writes nothing), at most `limit` of them. Anything else is refused before it is read: a
 * directory, a device (`/dev/zero` would never end), a FIFO (which would wait for a writer
 * forever), a socket, and a file over the limit.
 *
 * It looks with `stat` first, so a device or a FIFO is never even opened (opening one can block,
 * or act: a tape drive rewinds). What is opened is then checked again with `fstat` on the open
 * descriptor, so a file swapped for a FIFO between the two is caught too; `O_NONBLOCK` makes that
 * open return at once even then, and `O_NOCTTY` keeps a terminal from becoming the process's.
 * Reading stops at `limit + 1` bytes, so a file that grows while it is read costs no more.
 */
export function readRegularFile(path: string, limit = MAX_FILE_BYTES): Buffer {
  const check = (stats: Stats) => {
    if (!stats.isFile()) throw new FileRefused(`is ${kind(stats)}, not a regular file`, 'kind');
    if (stats.size > limit) throw new FileRefused(`is ${size(stats.size)}, over the limit of ${size(limit)}`, 'size', stats.size);
  };
  let fd: number;
  try {
    check(statSync(path));
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    refusal(error);
  }
  try {
    check(fstatSync(fd));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > limit) throw new FileRefused(`grew past the limit of ${size(limit)} while it was read`, 'size', total);
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    refusal(error);
  } finally {
    closeSync(fd);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON value of the regular file at `path` ({@link readRegularFile}), refused when it is no UTF-8, no JSON, or nested past the limit. */
export function readJsonFile(path: string, limit = MAX_FILE_BYTES): unknown {
  const bytes = readRegularFile(path, limit);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new FileRefused('is not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FileRefused(`is not JSON (${(error as Error).message})`);
  }
  const deep = tooDeepAt(value);
  if (deep !== null) throw new FileRefused(tooDeepText(deep));
  return value;
}

/**
 * What is at `path` now, when it may be written over: `null` when nothing is, a regular file's
 * stats; anything else is refused (a directory, a device, a FIFO, a socket, and a symbolic link
 * whatever it points to: replacing the link would not write where it points, and following it
 * would write somewhere the user did not name). `lstat` never follows a link.
 */
function replaceable(path: string): Stats | null {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    refusal(error);
  }
  if (!stats.isFile()) throw new FileRefused(`is ${kind(stats)}: give the path of a regular file, or of none yet`, 'kind');
  return stats;
}

/**
 * Checks, before any work is done, that `path` may be written later: absent or a regular file,
 * in an existing directory unless `makeFolders` (then the folders are made when it is written).
 */
export function checkWritable(path: string, { makeFolders = false }: { makeFolders?: boolean } = {}): void {
  if (replaceable(path) !== null || makeFolders) return;
  let folder: Stats;
  try {
    folder = statSync(dirname(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new FileRefused(`is in a folder that does not exist (${dirname(path)})`);
    refusal(error);
  }
  if (!folder.isDirectory()) throw new FileRefused(`is below ${dirname(path)}, which is ${kind(folder)}`);
}

/**
 * Writes `data` to `path`, whole or not at all, and only ever as a regular file: into a new
 * temporary file beside it (created with `wx`, O_CREAT|O_EXCL, so it is never something that was
 * already there, nor a link), then renamed over `path`, which is looked at with `lstat` once more
 * right before: the rename happens only while `path` is still absent or a regular file. A file
 * replaced keeps its permission bits. On any failure the temporary file is removed and `path` is
 * as it was.
 */
export function writeRegularFile(path: string, data: string | Uint8Array, { makeFolders = false }: { makeFolders?: boolean } = {}): void {
  let temporary: string | undefined;
  try {
    if (makeFolders) mkdirSync(dirname(path), { recursive: true });
    const existing = replaceable(path);
    temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const fd = openSync(temporary, 'wx', 0o666);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at);
      if (existing) fchmodSync(fd, existing.mode & 0o7777);
    } finally {
      closeSync(fd);
    }
    replaceable(path);
    renameSync(temporary, path);
    temporary = undefined;
  } catch (error) {
    refusal(error);
  } finally {
    if (temporary !== undefined) {
      try {
        unlinkSync(temporary);
      } catch {
        // Nothing was made, or it is gone already.
      }
    }
  }
}
