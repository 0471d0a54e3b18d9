#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ClockMode } from '../core/clock.js';
import { SandboxError } from '../core/errors.js';
import { startServer, type SandboxServer } from './server.js';

/**
 * `svc-sandbox`: the standalone server from a shell (CONTRACT §8).
 *
 *   svc-sandbox serve [--port 12111] [--host 127.0.0.1] [--seed 0] [--start-time ISO]
 *   svc-sandbox exec [serve options] -- <command> [args...]
 *
 * Arguments are parsed with `util.parseArgs` (built in). Exit codes: 0 after SIGINT/SIGTERM,
 * 1 when the server cannot start (a busy port), 2 for bad arguments; `exec` exits with its
 * command's code (128 + the signal number when the command was killed by a signal).
 */

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  seed: { type: 'string' },
  'start-time': { type: 'string' },
  clock: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

const HELP: Record<string, string> = {
  main: `Usage: svc-sandbox <command> [options]

Commands:
  serve   Serve the sandbox over HTTP until SIGINT or SIGTERM
  exec    Serve on a free port while a command runs, then exit with its exit code

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
      --clock <mode>      manual: virtual time moves only when advanced (default);
                          realtime: it also flows with the wall clock
  -h, --help              Show this help
  -v, --version           Show the version`,
  exec: `Usage: svc-sandbox exec [options] -- <command> [args...]

Starts the server on a free port, runs <command> with these in its environment:
  SVC_API_BASE_URL  http://HOST:PORT
  SVC_SANDBOX_URL   http://HOST:PORT/__sandbox
  SVC_API_KEY       a test key of the default session
then stops the server when the command ends and exits with its exit code.
SIGINT and SIGTERM are passed to the command's whole process group.

Options:
  -p, --port <n>          TCP port (default 0: a free one)
      --host <address>    Address to listen on (default 127.0.0.1)
      --seed <n>          Seed of the default session and of new sessions (default 0)
      --start-time <iso>  Virtual start time (default 2026-01-01T00:00:00Z)
  -h, --help              Show this help`,
};

class Usage extends Error {}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function integer(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new Usage(`--${name} must be an integer from ${min} to ${max}, got '${text}'.`);
  return Number(text);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    console.log(version());
    return 0;
  }
  if (command !== 'serve' && command !== 'exec') throw new Usage(`unknown command '${command}'; use 'serve' or 'exec' (svc-sandbox --help).`);
  const split = rest.indexOf('--');
  const own = command === 'exec' && split >= 0 ? rest.slice(0, split) : rest;
  const child = command === 'exec' && split >= 0 ? rest.slice(split + 1) : [];
  let values;
  try {
    ({ values } = parseArgs({ args: own, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new Usage((error as Error).message);
  }
  if (values.help) {
    console.log(HELP[command]);
    return 0;
  }
  if (values.version) {
    console.log(version());
    return 0;
  }
  const options = {
    port: integer(values.port, 'port', 0, 65535) ?? (command === 'exec' ? 0 : 12111),
    host: values.host ?? '127.0.0.1',
    seed: integer(values.seed, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) ?? 0,
    ...(values['start-time'] === undefined ? {} : { startTime: values['start-time'] }),
    ...(values.clock === undefined ? {} : { clock: values.clock as ClockMode }),
  };
  if (command === 'exec' && child.length === 0) throw new Usage("exec needs a command after '--', e.g. svc-sandbox exec -- python3 -m unittest.");

  let server: SandboxServer;
  try {
    server = await startServer(options);
  } catch (error) {
    // A bad --seed or --start-time is a bad argument (2); a busy port, or any other failure to start, 1.
    if (error instanceof SandboxError && error.code === 'invalid_options') throw new Usage(error.message.replace(/^createSandbox: /, ''));
    console.error(`svc-sandbox: ${(error as Error).message}`);
    return 1;
  }
  return command === 'serve' ? serve(server) : exec(server, child);
}

function serve(server: SandboxServer): Promise<number> {
  console.log(`svc-sandbox listening on ${server.url}`);
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function exec(server: SandboxServer, [command, ...args]: string[]): Promise<number> {
  const env = {
    ...process.env,
    SVC_API_BASE_URL: server.url,
    SVC_SANDBOX_URL: `${server.url}/__sandbox`,
    SVC_API_KEY: server.sandbox.keys.create().key,
  };
  return new Promise((resolve) => {
    // Its own process group, so a signal to us reaches everything the command started.
    const child = spawn(command!, args, { stdio: 'inherit', env, detached: true });
    const forward = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const finish = (code: number) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      void server.close().then(() => resolve(code));
    };
    child.once('error', (error) => {
      console.error(`svc-sandbox: cannot run '${command}': ${error.message}`);
      finish(127);
    });
    child.once('exit', (code, signal) => finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof Usage) {
      console.error(`svc-sandbox: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    console.error(error);
    process.exitCode = 1;
  },
);
