import { setFlagsFromString } from 'node:v8';
import { SandboxError, saidBy } from '../core/errors.js';
import { WALL } from '../core/wall-clock.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { parseCommand } from './cli-args.js';
import { type ShowServer, startShow } from './show.js';
import { readSnapshotFile } from './snapshot-file.js';
import { terminalText } from './terminal-text.js';

/**
 * `svc-sandbox show FILE [--port N]`: the console over a snapshot file, with a time control
 * (docs/debugging.md). Prints `svc-sandbox showing FILE on http://127.0.0.1:PORT/__sandbox/console`
 * as its first line on stdout, serves until SIGINT or SIGTERM, or until the process that started
 * it is gone (npx passes no SIGTERM on to it), then exits 0. A file that is no
 * snapshot (not a regular file, too large, not JSON, refused by the snapshot's checks, or one
 * whose replay fails) exits 2, naming the file and what is wrong with it; a bad argument exits 2
 * with the usage line; a busy port exits 1.
 */

export const SHOW_USAGE = 'svc-sandbox show FILE [--port N]  (svc-sandbox show --help)';

export const SHOW_HELP = `Usage: svc-sandbox show FILE [--port N]

Serves the console over a snapshot FILE (from sandbox.snapshot(), GET
/__sandbox/sessions/{s}/snapshot, --export-on-exit, or a failed test's
SVC_SANDBOX_SNAPSHOTS=DIR), read-only, with a time control: the field 'At'
(an ISO 8601 instant; ?at=ISO in the page's address) shows the session as it
was at any instant from its start to the instant the snapshot was taken, and
[ and ] (or Alt+Left and Alt+Right) step from event to event.
The first line on stdout is
'svc-sandbox showing FILE on http://127.0.0.1:PORT/__sandbox/console';
it serves until SIGINT or SIGTERM, or until the process that started it ends.

Options:
  -p, --port <n>  TCP port on 127.0.0.1 (default 0: a free one)
  -h, --help      Show this help
Details: docs/debugging.md in the package.`;

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  help: { type: 'boolean', short: 'h' },
} as const;

function usage(message: string): number {
  console.error(`svc-sandbox: ${terminalText(message)}\nUsage: ${SHOW_USAGE}`);
  return 2;
}

/** `svc-sandbox show FILE [--port N]`. */
export async function showCommand(args: string[]): Promise<number> {
  // Taken first: the starter may end the moment the ready line is out, before show watches it.
  const parent = process.ppid;
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(SHOW_HELP);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) return usage('show needs a snapshot file, e.g. svc-sandbox show snapshots/my-test.json.');
  if (extra.length > 0) return usage(`Unexpected argument '${extra[0]}': show opens one snapshot file.`);
  const port = values.port === undefined ? 0 : /^\d+$/.test(values.port) && Number(values.port) <= 65535 ? Number(values.port) : null;
  if (port === null) return usage(`--port must be an integer from 0 to 65535, got '${values.port}'.`);

  // show holds one large session for as long as it serves, built in one go: the heap grows by a
  // fixed 30% at a time instead of V8's own factor (up to 4x for a heap that grows fast), about
  // half the memory for a few more seconds of collection (bench/show-limits.mjs measures both).
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  let show: ShowServer;
  try {
    // The parsed snapshot is dropped once replayed: only the shown session stays in memory.
    let snapshot: SandboxSnapshot | undefined;
    try {
      snapshot = readSnapshotFile(file);
    } catch (error) {
      return badFile(file, error);
    }
    show = await startShow({ file, snapshot, port });
  } catch (error) {
    if (error instanceof SandboxError && error.param === 'port') {
      console.error(`svc-sandbox: ${terminalText(error.message)}`);
      return 1;
    }
    // A file the checks let through, yet whose replay fails, is still the file's fault.
    const options = error instanceof SandboxError && error.param?.startsWith('snapshot.options');
    return badFile(file, error, options ? 'its options are refused: ' : 'it could not be replayed: ');
  }
  console.log(`svc-sandbox showing ${terminalText(file)} on ${show.consoleUrl}`);
  await new Promise<void>((resolve) => {
    let stopWatching = () => {};
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stopWatching();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    stopWatching = whenOrphaned(parent, stop);
  });
  await show.close();
  return 0;
}

/** How much show's heap grows past what it holds after a full collection, in percent (V8's `--heap-growing-percent`). */
const HEAP_GROWING_PERCENT = 30;

/** How often show looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Calls `stop` once the process that started show is gone: `npx svc-sandbox show` runs it under
 * `sh -c`, and a SIGTERM to npx ends npx and the shell without passing it on, which would leave
 * show serving, orphaned. Whoever starts show, ending that starter ends show (within half a
 * second). `parent` is the starter's pid, taken as show started. Answers the function that stops
 * watching.
 */
function whenOrphaned(parent: number, stop: () => void): () => void {
  let cancel = () => {};
  const check = () => {
    if (process.ppid !== parent) return stop();
    const timer = WALL.setTimeout(check, PARENT_CHECK_MS);
    (timer as { unref?: () => void } | null)?.unref?.();
    cancel = () => WALL.clearTimeout(timer);
  };
  check();
  return () => cancel();
}

/** Exit 2, naming the file and what is wrong with it. */
function badFile(file: string, error: unknown, prefix = ''): number {
  const message = error instanceof SandboxError ? saidBy(error, 'createSandbox') : error instanceof Error ? error.message : String(error);
  // The snapshot's own checks name a field (`snapshot.version`); say it is this file's.
  const field =
    error instanceof SandboxError && error.param?.startsWith('snapshot') && !message.includes(error.param) ? ` (${error.param})` : '';
  console.error(terminalText(`svc-sandbox: show ${file}: ${prefix}${message}${field}`));
  return 2;
}
