import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { FileRefused, writeRegularFile } from './files.js';
import type { SandboxServer } from './server.js';

/**
 * What `svc-sandbox serve` and `exec` do once the server is up (docs/server.md): wait for a
 * signal or the end of stdin, or run a command with the server in its environment and own it;
 * and write the default session's snapshot on the way out (`--export-on-exit`).
 */

/**
 * `--export-on-exit FILE`: the default session's snapshot, written whole or not at all, and only
 * as a regular file (files.ts: never over a device, a link or anything else that is not a regular
 * file). False, with the reason on stderr, when it could not be.
 */
export function exportSnapshot(server: SandboxServer, file: string | undefined): boolean {
  if (file === undefined) return true;
  try {
    // With the key the default session's client used (made now if none was): a server started
    // from this file with --import hands its command that same key, on the same account.
    const apiKey = server.apiKey;
    writeRegularFile(file, JSON.stringify({ ...server.sandbox.snapshot(), apiKey }));
    return true;
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    console.error(`svc-sandbox: --export-on-exit ${file}: the snapshot was not written: it ${error.message}.`);
    return false;
  }
}

/**
 * Serves until SIGINT or SIGTERM, and with `--exit-on-stdin-close` until stdin ends too. That
 * flag is how a process that starts a server of its own (the language helpers) keeps it from
 * outliving it: it holds the only write end of the server's stdin, and the kernel closes that
 * end however the process ends (a SIGKILLed pytest-xdist worker, a panicking Go test binary),
 * so no server is left behind. Nothing is read from stdin but its end.
 */
export function serve(server: SandboxServer, exportTo: string | undefined, exitOnStdinClose: boolean): Promise<number> {
  return new Promise((resolve) => {
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (exitOnStdinClose) process.stdin.destroy();
      const exported = exportSnapshot(server, exportTo);
      void server.close().then(() => resolve(exported ? 0 : 1));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (exitOnStdinClose) {
      process.stdin.on('end', stop);
      process.stdin.on('error', stop);
      process.stdin.resume();
    }
    // Only once the handlers are in place: a SIGTERM sent the moment the ready line arrives
    // stops the server cleanly (exit 0), never kills it by the signal.
    console.log(`svc-sandbox listening on ${server.url}`);
  });
}

/** Grace between passing a signal on to exec's command and killing it with SIGKILL (`--kill-after`). */
export const DEFAULT_KILL_AFTER_MS = 5_000;

/**
 * The one place the CLI waits on real time: the grace of `--kill-after`, which is about how
 * long a process may take to stop on the wall clock, not about the sandbox's virtual clock.
 */
function afterRealTime(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
}

/**
 * Runs the command with the server in its environment and owns it (docs/server.md, "exec"):
 *
 * - Without a terminal on stdin (CI, a pipe) the command gets a process group of its own, and
 *   SIGINT, SIGTERM and SIGHUP to exec are passed on to that whole group, so they reach
 *   everything the command started. With a terminal, the command stays in exec's group, the
 *   terminal's foreground group, so it keeps the terminal (reads stdin, gets Ctrl-C and
 *   SIGHUP from it directly): SIGTERM and SIGHUP are passed on to the command, SIGINT is not
 *   (the terminal already sent it to the whole group; a second one would interrupt the
 *   command's own cleanup, and a command that ignores Ctrl-C, such as a shell, means to).
 * - A command still running `killAfterMs` after the first signal passed on is killed with SIGKILL.
 * - If exec dies without a chance to pass anything on (SIGKILL, a crash), a watchdog kills the
 *   command: see {@link startWatchdog}.
 */
export function exec(
  server: SandboxServer,
  [command, ...args]: string[],
  killAfterMs: number,
  exportTo: string | undefined,
  coverageFile?: string,
  writeCoverage?: typeof import('./cli-coverage.js').writeCoverage,
): Promise<number> {
  const env = {
    ...process.env,
    SVC_API_BASE_URL: server.url,
    SVC_SANDBOX_URL: `${server.url}/__sandbox`,
    SVC_API_KEY: server.apiKey,
  };
  const ownGroup = !process.stdin.isTTY;
  return new Promise((resolve) => {
    // The handlers come first: a signal that arrives while the command starts (it may print
    // before exec has done anything more, on a busy machine) is passed on, never fatal to exec.
    let child: ChildProcess | undefined;
    const early: NodeJS.Signals[] = [];
    const signal = (name: NodeJS.Signals) => {
      if (!child) return void early.push(name);
      try {
        if (ownGroup && child.pid !== undefined) process.kill(-child.pid, name);
        else child.kill(name);
      } catch {
        child.kill(name);
      }
    };
    let cancelKill: (() => void) | null = null;
    const forward = (name: NodeJS.Signals) => {
      // With a terminal, Ctrl-C already reached the command, which decides what it means (an
      // interactive shell ignores it): exec only stays alive.
      if (!ownGroup && name === 'SIGINT') return;
      signal(name);
      cancelKill ??= afterRealTime(killAfterMs, () => signal('SIGKILL'));
    };
    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const name of SIGNALS) process.on(name, forward);
    const started = spawn(command ?? '', args, { stdio: 'inherit', env, detached: ownGroup });
    child = started;
    const watchdog = started.pid === undefined ? null : startWatchdog(ownGroup ? -started.pid : started.pid);
    for (const name of early.splice(0)) signal(name);
    const finish = (code: number) => {
      for (const name of SIGNALS) process.off(name, forward);
      cancelKill?.();
      watchdog?.release();
      const exported = exportSnapshot(server, exportTo);
      // A report or a snapshot asked for and not written fails the run (its reason is printed).
      void server.close().then(() => {
        const covered = coverageFile === undefined || writeCoverage === undefined || writeCoverage(server.coverage(), coverageFile);
        resolve(exported && covered ? code : code || 1);
      });
    };
    started.once('error', (error) => {
      console.error(`svc-sandbox: cannot run '${command}': ${error.message}`);
      finish(127);
    });
    started.once('exit', (code, signal) => finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

/**
 * For when exec dies with no chance to pass a signal on (SIGKILL, a crash): a tiny `/bin/sh`
 * in a session of its own (so a kill of exec's process group spares it) blocks reading a pipe
 * whose other end only exec holds. However exec dies, the kernel closes its end; `read` then
 * fails and the shell kills `target` (the command's process group when negative) with SIGKILL.
 * When exec ends normally it first writes a line, and the shell exits without killing.
 * About 2 MB of memory and a few ms per exec (docs/server.md). None on Windows, which has no process groups.
 */
function startWatchdog(target: number): { release(): void } | null {
  if (process.platform === 'win32') return null;
  try {
    const dog = spawn('/bin/sh', ['-c', 'read -r _ || kill -s KILL -- "$1" 2>/dev/null', 'svc-sandbox-watchdog', String(target)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    const { stdin } = dog;
    dog.once('error', () => undefined);
    stdin.once('error', () => undefined);
    dog.unref();
    return { release: () => stdin.end('done\n') };
  } catch {
    return null;
  }
}
