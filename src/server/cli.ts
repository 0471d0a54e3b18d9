#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseDuration } from '../core/duration.js';
import { packageVersion } from '../core/package-version.js';
import type { ClockMode } from '../core/clock.js';
import { LIBRARY_NAMING, SandboxError, saidBy } from '../core/errors.js';
import { nearest } from '../core/suggest.js';
// The library is loaded only by the commands that use it, so `--help` and a bad argument answer
// at once (a node process that loads the whole sandbox takes some 0.2 s more to start).
import type { startServer, SandboxServer } from './server.js';
import { DEFAULT_KILL_AFTER_MS, exec, serve } from './cli-run.js';
import { checkWritable, FileRefused, readJsonFile } from './files.js';
import { terminalText } from './terminal-text.js';

/**
 * `svc-sandbox`: the standalone server from a shell (docs/server.md).
 *
 *   svc-sandbox serve [--port 12111] [--host 127.0.0.1] [--seed 0] [--start-time ISO] [--clock manual|realtime]
 *                     [--webhook-timeout 10s] [--max-journal-entries N] [--public-url URL] [--allowed-host NAME]... [--import FILE]
 *                     [--export-on-exit FILE]
 *   svc-sandbox exec [serve options] [--kill-after 5s] [--coverage FILE] -- <command> [args...]
 *   svc-sandbox coverage FILE... [--html OUT]
 *   svc-sandbox show FILE [--port N]
 *
 * Arguments are parsed with `util.parseArgs` (built in). Exit codes: 0 after SIGINT/SIGTERM
 * (1 when `--export-on-exit` could not write its snapshot; docs/snapshots.md),
 * 1 when the server cannot start (a busy port), 2 for bad arguments (the message ends with
 * the command's usage line); `exec` exits with its command's code (128 + the signal number
 * when the command was killed by a signal). How exec owns its command (signals, the
 * terminal, a watchdog for when exec itself is killed): docs/server.md, "exec".
 */

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  seed: { type: 'string' },
  'start-time': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'webhook-timeout': { type: 'string' },
  'max-journal-entries': { type: 'string' },
  'public-url': { type: 'string' },
  'kill-after': { type: 'string' },
  coverage: { type: 'string' },
  clock: { type: 'string' },
  import: { type: 'string' },
  'export-on-exit': { type: 'string' },
  'exit-on-stdin-close': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

const HELP: Record<string, string> = {
  main: `Usage: svc-sandbox <command> [options]

Commands:
  serve   Serve the sandbox over HTTP until SIGINT or SIGTERM
  exec    Serve on a free port while a command runs, then exit with its exit code
  run     Run scenario files on fresh sandboxes; print their timelines (docs/scenarios.md)
  trigger Make one event of a type on a running server
  coverage
          Print what a coverage report (exec --coverage FILE) never exercised
  check-receiver  Send your webhook endpoint signed, forged and duplicate deliveries; check its answers
  show    Serve the console over a snapshot file, read-only, at any instant of its session

Run 'svc-sandbox <command> --help' for the options of a command.
Docs: docs/server.md in the package.`,
  serve: `Usage: svc-sandbox serve [options]

Serves the Voice and Messaging API at http://HOST:PORT/v1, the control API at
http://HOST:PORT/__sandbox and the console at http://HOST:PORT/__sandbox/console.
The first line on stdout is 'svc-sandbox listening on http://HOST:PORT'.

Options:
  -p, --port <n>          TCP port; 0 picks a free one (default 12111)
      --host <address>    Address to listen on (default 127.0.0.1: loopback only,
                          as the control API has no authentication)
      --seed <n>          Seed of the default session and of new sessions (default 0)
      --start-time <iso>  Virtual start time (default 2026-01-01T00:00:00Z)
      --allowed-host <name>
                          Also accept requests whose Host is <name> (repeatable);
                          IP addresses and localhost are always accepted
      --allowed-origin <origin>
                          Let browser pages of <origin> (http://localhost:3000)
                          call /v1 (repeatable); other pages get 403
      --webhook-timeout <d>
                          Real time a webhook attempt may take (default 10s); 2s or
                          200ms keeps a hanging receiver from holding advance long
      --max-journal-entries <n>
                          Requests each session's journal keeps (default 10000;
                          0 keeps none; coverage counts them all either way)
      --public-url <url>  What absolute URLs in answers and webhook bodies (a
                          recording's url) start with (default: this server's
                          URL, or http://127.0.0.1:12111 with --port 0, so runs
                          on any port give the same bytes)
      --clock <mode>      manual: virtual time moves only when advanced (default);
                          realtime: it also flows with the wall clock
      --import <file>     Start the default session from a snapshot file
                          (docs/snapshots.md)
      --export-on-exit <file>
                          On SIGINT or SIGTERM, write the default session's
                          snapshot to <file> before exiting
      --exit-on-stdin-close
                          Also stop (as on SIGTERM) when standard input reaches
                          its end: a process that starts the server with a pipe
                          as its stdin takes the server with it however it ends
                          (the Python, Go and Ruby helpers do)
  -h, --help              Show this help
  -v, --version           Show the version`,
  exec: `Usage: svc-sandbox exec [options] -- <command> [args...]

Starts the server on a free port, runs <command> with these in its environment:
  SVC_API_BASE_URL  http://HOST:PORT
  SVC_SANDBOX_URL   http://HOST:PORT/__sandbox
  SVC_API_KEY       a test key of the default session
then stops the server when the command ends and exits with its exit code.
SIGINT, SIGTERM and SIGHUP are passed on to the command's whole process group
(with a terminal on stdin, the command keeps the terminal, shares exec's group
and gets Ctrl-C from it directly); a command still running --kill-after later
is killed (SIGKILL). If exec itself is killed, a watchdog kills the command.
Details: docs/server.md, "exec owns its command".

Options:
  -p, --port <n>          TCP port (default 0: a free one)
      --host <address>    Address to listen on (default 127.0.0.1)
      --seed <n>          Seed of the default session and of new sessions (default 0)
      --start-time <iso>  Virtual start time (default 2026-01-01T00:00:00Z)
      --clock <mode>      manual (default) or realtime: virtual time also flows
                          with the wall clock
      --allowed-host <name>
                          Also accept requests whose Host is <name> (repeatable)
      --allowed-origin <origin>
                          Let browser pages of <origin> call /v1 (repeatable)
      --webhook-timeout <d>
                          Real time a webhook attempt may take (default 10s)
      --max-journal-entries <n>
                          Requests each session's journal keeps (default 10000)
      --public-url <url>  What absolute URLs in answers and webhook bodies start
                          with (default http://127.0.0.1:12111 on a free port)
      --kill-after <d>    Grace after passing on a signal before SIGKILL (default 5s)
      --import <file>     Start the default session from a snapshot file
      --export-on-exit <file>
                          When the command ends, write the default session's
                          snapshot to <file>
      --coverage <file>   When the command ends, write the coverage of every
                          session (deleted ones too) to <file> as JSON, and print
                          what was never exercised (docs/coverage.md)
  -h, --help              Show this help`,
};

type Command = 'main' | 'serve' | 'exec';

/** The usage line that ends every message about a bad argument. */
const USAGE: Record<Command, string> = {
  main: 'svc-sandbox <serve|exec|run|trigger|coverage|check-receiver|show> [options]  (svc-sandbox --help)',
  serve: 'svc-sandbox serve [options]  (svc-sandbox serve --help lists them)',
  exec: 'svc-sandbox exec [options] -- <command> [args...]  (svc-sandbox exec --help lists them)',
};

/** Options of one command only. */
const ONLY: Partial<Record<keyof typeof OPTIONS, Command>> = { 'kill-after': 'exec', coverage: 'exec', 'exit-on-stdin-close': 'serve' };

/** The flag behind each option of startServer, to name it in its errors. */
const FLAGS: Record<string, string> = {
  port: '--port',
  host: '--host',
  seed: '--seed',
  startTime: '--start-time',
  webhookTimeout: '--webhook-timeout',
  maxJournalEntries: '--max-journal-entries',
  publicUrl: '--public-url',
  clock: '--clock',
  allowedHosts: '--allowed-host',
  allowedOrigins: '--allowed-origin',
  snapshot: '--import',
};

/** A bad argument: exit code 2, the message, then the command's usage line. */
class Usage extends Error {
  constructor(
    message: string,
    readonly command: Command = 'main',
  ) {
    super(message);
  }
}

/** `args` as one would type them in a POSIX shell. */
function shellWords(args: string[]): string {
  return args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The command's own options, or a {@link Usage} error in the user's words. */
function parseOptions(command: 'serve' | 'exec', own: string[], forgotSplit: boolean) {
  if (forgotSplit) {
    // `svc-sandbox exec python3 -m unittest`: everything from the first argument that is no option is the command.
    const { tokens } = parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
    const first = tokens.find((t) => t.kind === 'positional');
    if (first) throw new Usage(`put '--' before the command: svc-sandbox exec [options] -- ${shellWords(own.slice(first.index))}`, command);
  }
  try {
    const { values } = parseArgs({ args: own, options: OPTIONS, allowPositionals: false, strict: true });
    for (const name of Object.keys(values) as Array<keyof typeof OPTIONS>) {
      const only = ONLY[name];
      if (only && only !== command) throw new Usage(`--${name} is an option of '${only}', not of '${command}'.`, command);
    }
    return values;
  } catch (error) {
    if (error instanceof Usage) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']*)'/.exec(message)?.[1] ?? '';
      const known = Object.keys(OPTIONS).filter(
        (name) => !ONLY[name as keyof typeof OPTIONS] || ONLY[name as keyof typeof OPTIONS] === command,
      );
      const near = flag.startsWith('--') ? nearest(flag.slice(2), known) : undefined;
      throw new Usage(`Unknown option '${flag}'${near ? `; did you mean --${near}?` : '.'}`, command);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const word = /'([^']*)'/.exec(message)?.[1] ?? '';
      throw new Usage(`Unexpected argument '${word}': '${command}' takes options only.`, command);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const missing = /(--[\w-]+) <value>'? argument missing/.exec(message);
      if (missing) throw new Usage(`${missing[1]} needs a value.`, command);
      const flag = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message)?.[1];
      const next = flag === undefined ? undefined : own[own.indexOf(flag) + 1];
      if (flag && next) throw new Usage(`${flag} needs a value; one starting with '-' goes as ${flag}=${next}.`, command);
    }
    throw new Usage(message, command);
  }
}

/** A duration flag in milliseconds, from `min` to `max`. */
function duration(text: string | undefined, name: string, min: number, max: number, command: Command): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === null || !/[a-z]$/.test(text) || ms < min || ms > max) {
    throw new Usage(
      `--${name} must be a duration such as '5s', '200ms', '2m' or '1m30s', from ${min} ms to 24 days, got '${text}'.`,
      command,
    );
  }
  return ms;
}

function integer(text: string | undefined, name: string, min: number, max: number, command: Command): number | undefined {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new Usage(`--${name} must be an integer from ${min} to ${max}, got '${text}'.`, command);
  return Number(text);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    console.log(packageVersion());
    return 0;
  }
  if (command === 'run') return (await import('./cli-scenarios.js')).runCommand(rest);
  if (command === 'trigger') return (await import('./cli-scenarios.js')).triggerCommand(rest);
  if (command === 'coverage') return (await import('./cli-coverage.js')).coverageCommand(rest);
  if (command === 'check-receiver') return (await import('./cli-check-receiver.js')).checkReceiverCommand(rest);
  if (command === 'show') return (await import('./cli-show.js')).showCommand(rest);
  if (command !== 'serve' && command !== 'exec')
    throw new Usage(`unknown command '${command}'; use 'serve', 'exec', 'run', 'trigger', 'coverage', 'check-receiver' or 'show'.`);
  const split = rest.indexOf('--');
  const own = command === 'exec' && split >= 0 ? rest.slice(0, split) : rest;
  const child = command === 'exec' && split >= 0 ? rest.slice(split + 1) : [];
  const values = parseOptions(command, own, command === 'exec' && split < 0);
  if (values.help) {
    console.log(HELP[command]);
    return 0;
  }
  if (values.version) {
    console.log(packageVersion());
    return 0;
  }
  const options = {
    port: integer(values.port, 'port', 0, 65535, command) ?? (command === 'exec' ? 0 : 12111),
    host: values.host ?? '127.0.0.1',
    // Left out unless given: with no seed, session ids and exec's key are secret (docs/server.md).
    ...(values.seed === undefined ? {} : { seed: integer(values.seed, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, command) }),
    ...(values['start-time'] === undefined ? {} : { startTime: values['start-time'] }),
    ...(values['allowed-host'] === undefined ? {} : { allowedHosts: values['allowed-host'] }),
    ...(values['allowed-origin'] === undefined ? {} : { allowedOrigins: values['allowed-origin'] }),
    ...(values['webhook-timeout'] === undefined
      ? {}
      : { webhookTimeout: duration(values['webhook-timeout'], 'webhook-timeout', 1, 2 ** 31 - 1, command)! }),
    ...(values['max-journal-entries'] === undefined
      ? {}
      : { maxJournalEntries: integer(values['max-journal-entries'], 'max-journal-entries', 0, Number.MAX_SAFE_INTEGER, command)! }),
    ...(values['public-url'] === undefined ? {} : { publicUrl: values['public-url'] }),
    ...(values.clock === undefined ? {} : { clock: values.clock as ClockMode }),
    ...(values.import === undefined ? {} : { snapshot: readSnapshot(values.import, command) }),
  };
  const exportTo = values['export-on-exit'];
  writableAtExit(exportTo, '--export-on-exit', command);
  writableAtExit(values.coverage, '--coverage', command, true);
  const killAfterMs = duration(values['kill-after'], 'kill-after', 0, 2 ** 31 - 1, command) ?? DEFAULT_KILL_AFTER_MS;
  if (command === 'exec' && child.length === 0)
    throw new Usage("exec needs a command after '--', e.g. svc-sandbox exec -- python3 -m unittest.", command);

  if (options.host === '0.0.0.0' || options.host === '::') {
    console.error(
      `svc-sandbox: warning: --host ${options.host} serves every network this machine is on, and the control API has no authentication: ` +
        `anyone who can reach port ${options.port || '(the chosen port)'} can reset or drive it. Prefer the default 127.0.0.1 ` +
        `(docs/server.md, "Security model").`,
    );
  }
  let server: SandboxServer;
  try {
    server = await (await import('./server.js')).startServer(options);
  } catch (error) {
    // A bad --seed or --start-time is a bad argument (2); a busy port, or any other failure to start, 1.
    if (error instanceof SandboxError && error.param?.startsWith('snapshot'))
      throw new Usage(`--import ${values.import}: ${saidBy(error, 'createSandbox')}`, command);
    if (error instanceof SandboxError && error.code === 'invalid_options') {
      const flag = (path: string) => FLAGS[path] ?? LIBRARY_NAMING.field(path);
      throw new Usage(saidBy(error, ['createSandbox', 'startServer'], { field: flag }), command);
    }
    console.error(`svc-sandbox: ${terminalText((error as Error).message)}`);
    return 1;
  }
  try {
    const writeCoverage = values.coverage === undefined ? undefined : (await import('./cli-coverage.js')).writeCoverage;
    return await (command === 'serve'
      ? serve(server, exportTo, values['exit-on-stdin-close'] === true)
      : exec(server, child, killAfterMs, exportTo, values.coverage, writeCoverage));
  } catch (error) {
    // Whatever failed after the server started, the server must not outlive it (a listening
    // socket would keep this process alive, the command never run).
    await server.close();
    throw error;
  }
}

/**
 * `--import FILE`: the snapshot it holds. A file that is not a regular one (a FIFO, a device), is
 * over the size limit, cannot be read or is no JSON is a bad argument (files.ts).
 */
function readSnapshot(file: string, command: Command): NonNullable<Parameters<typeof startServer>[0]>['snapshot'] {
  try {
    return readJsonFile(file) as NonNullable<Parameters<typeof startServer>[0]>['snapshot'];
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    throw new Usage(`--import ${file}: it ${error.message}.`, command);
  }
}

/** A file the command writes on its way out (`--export-on-exit`, `--coverage`), checked before anything starts. */
function writableAtExit(file: string | undefined, flag: string, command: Command, makeFolders = false): void {
  if (file === undefined) return;
  try {
    checkWritable(file, { makeFolders });
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    throw new Usage(`${flag} ${file}: it ${error.message}.`, command);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof Usage) {
      console.error(`svc-sandbox: ${terminalText(error.message)}\nUsage: ${USAGE[error.command]}`);
      process.exitCode = 2;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  },
);
