import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

/**
 * Files that are not regular files, for the tests of what the CLI reads and writes
 * (src/server/files.ts). Each helper process a FIFO starts is pushed on `helpers`: kill them after
 * the test.
 */

/**
 * A FIFO at `path`, and a helper that opens its other end after 8 s: code under test that waited
 * on the FIFO ends its wait then, and fails its test's timing instead of hanging it.
 */
export function fifo(path: string, otherEnd: 'write' | 'read', helpers: ChildProcess[]): string {
  execFileSync('mkfifo', [path]);
  const open = otherEnd === 'write' ? ': > "$1"' : 'cat "$1" > /dev/null';
  helpers.push(spawn('/bin/sh', ['-c', `sleep 8; ${open}`, 'sh', path], { stdio: 'ignore' }));
  return path;
}

/**
 * A character device at `path` with /dev/null's numbers when this user may make one (root, as in a
 * CI container), else /dev/null itself (which a user who is not root cannot replace anyway).
 */
export function device(path: string): string {
  try {
    execFileSync('mknod', [path, 'c', '1', '3'], { stdio: 'ignore' });
    return path;
  } catch {
    return '/dev/null';
  }
}
