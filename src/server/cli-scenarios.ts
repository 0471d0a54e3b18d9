import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTimeline, type ScenarioResult } from '../scenarios/result.js';
import { parseScenario } from '../scenarios/schema.js';
import { timelineSvg } from '../scenarios/timeline-svg.js';
import { EVENT_TYPES } from '../scripting/json-schemas.js';
import { SandboxError, saidBy } from '../core/errors.js';
import { nearest } from '../core/suggest.js';
import { createSandbox, type Sandbox } from '../sandbox.js';
import { checkWritable, FileRefused, readJsonFile, writeRegularFile } from './files.js';

/**
 * `svc-sandbox run` and `svc-sandbox trigger` (docs/scenarios.md). Each returns the exit
 * code: `run` 0 when every expectation of every file held, 1 when one failed, 2 for a bad
 * argument or a file that is not a valid scenario; `trigger` 0 with the event on stdout, 1
 * when the server refused or could not be reached, 2 for a bad argument.
 */

export const RUN_HELP = `Usage: svc-sandbox run FILE... [--seed N] [--svg OUT]

Runs each scenario file (docs/scenarios.md) on a fresh sandbox, prints its
timeline, and exits 0 when every expectation holds, 1 naming the first that
failed with what was seen instead, 2 when a file is not a valid scenario.

Options:
      --seed <n>    Seed of each fresh sandbox (default: the file's seed, else 0)
      --svg <out>   Also draw the timeline to <out> (with several files,
                    <out> with the file's name added: out-busy.svg)
  -h, --help        Show this help`;

export const TRIGGER_HELP = `Usage: svc-sandbox trigger TYPE [--url URL] [--session S] [--data JSON] [--key KEY]

Makes one event of TYPE on a running server through a real state change
(POST /__sandbox/sessions/S/trigger) and prints it as JSON. TYPE is one of
${EVENT_TYPES.join(', ')}.

Options:
      --url <url>       The server (default: $SVC_API_BASE_URL, else http://127.0.0.1:12111)
      --session <id>    The session (default: default)
      --data <json>     Fields of the event's data to set, e.g. '{"disposition":"busy"}'
      --key <key>       The account's key (default: $SVC_API_KEY for the default session,
                        as exec sets it; else the session's)
  -h, --help            Show this help`;

/** A bad argument: the message, then the usage line (exit 2). */
function usage(message: string, command: 'run' | 'trigger'): number {
  const synopsis =
    command === 'run'
      ? 'svc-sandbox run FILE... [--seed N] [--svg OUT]'
      : 'svc-sandbox trigger TYPE [--url URL] [--session S] [--data JSON]';
  console.error(`svc-sandbox: ${message}\nUsage: ${synopsis}  (svc-sandbox ${command} --help)`);
  return 2;
}

type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;
/** What {@link parse} gives for `options`: the values and the positionals. */
type Parsed<O extends Options> = ReturnType<typeof parse<O>>;

const RUN_OPTIONS = { seed: { type: 'string' }, svg: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
const TRIGGER_OPTIONS = {
  url: { type: 'string' },
  session: { type: 'string' },
  data: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse<O extends Options>(args: string[], options: O, command: 'run' | 'trigger') {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']*)'/.exec(message)?.[1] ?? '';
      const near = flag.startsWith('--') ? nearest(flag.slice(2), Object.keys(options)) : undefined;
      throw new Error(`Unknown option '${flag}'${near ? `; did you mean --${near}?` : '.'}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new Error(`${/(--[\w-]+)/.exec(message)?.[1] ?? 'an option'} needs a value.`);
    throw new Error(message);
  } finally {
    void command;
  }
}

/** `svc-sandbox run FILE... [--seed N] [--svg OUT]`. */
export async function runCommand(args: string[]): Promise<number> {
  let parsed: Parsed<typeof RUN_OPTIONS>;
  try {
    parsed = parse(args, RUN_OPTIONS, 'run');
  } catch (error) {
    return usage((error as Error).message, 'run');
  }
  const { values, positionals: files } = parsed;
  if (values.help) {
    console.log(RUN_HELP);
    return 0;
  }
  if (files.length === 0)
    return usage('run needs at least one scenario file, e.g. svc-sandbox run examples/scenarios/busy-then-answered.json.', 'run');
  if (values.seed !== undefined && (!/^-?\d+$/.test(values.seed) || !Number.isSafeInteger(Number(values.seed))))
    return usage(`--seed must be an integer, got '${values.seed}'.`, 'run');

  const svgOf = (file: string) =>
    values.svg === undefined || files.length === 1
      ? values.svg
      : values.svg.replace(/(\.svg)?$/i, `-${basename(file).replace(/\.json$/i, '')}.svg`);
  // Every picture's path is checked before any scenario runs: a device or a link there is refused, not replaced.
  for (const out of new Set(files.map(svgOf))) {
    try {
      if (out !== undefined) checkWritable(out);
    } catch (error) {
      if (error instanceof FileRefused) return usage(`--svg ${out}: it ${error.message}.`, 'run');
      throw error;
    }
  }
  const results: Array<{ file: string; result: ScenarioResult }> = [];
  for (const file of files) {
    let scenario: { seed?: unknown; startTime?: unknown; name?: unknown };
    try {
      scenario = readJsonFile(file) as typeof scenario;
    } catch (error) {
      if (error instanceof FileRefused) return usage(`${file}: cannot read it as a scenario: it ${error.message}.`, 'run');
      throw error;
    }
    const seed = values.seed !== undefined ? Number(values.seed) : typeof scenario?.seed === 'number' ? scenario.seed : 0;
    let sandbox: Sandbox;
    try {
      sandbox = createSandbox({ seed, ...(typeof scenario?.startTime === 'string' ? { startTime: scenario.startTime } : {}) });
    } catch (error) {
      return usage(`${file}: \`startTime\`: ${(error as Error).message}`, 'run');
    }
    try {
      const parsed = parseScenario(scenario); // an invalid file says so before anything is printed
      console.log(`scenario: ${parsed.name} (${file}, seed ${seed})`);
      const result = await sandbox.run(parsed);
      console.log(formatTimeline(result));
      console.log(
        result.failure === null
          ? `PASS  ${result.name}: ${result.held} ${result.held === 1 ? 'expectation' : 'expectations'} held\n`
          : `FAIL  ${result.name}: ${result.failure.message}\n`,
      );
      results.push({ file, result });
      const out = svgOf(file);
      if (out !== undefined) {
        try {
          writeRegularFile(out, timelineSvg(result));
        } catch (error) {
          if (!(error instanceof FileRefused)) throw error;
          console.error(`svc-sandbox: --svg ${out}: the picture was not written: it ${error.message}.`);
          return 1;
        }
        console.log(`timeline picture: ${out}\n`);
      }
    } catch (error) {
      if (error instanceof SandboxError && (error.code === 'invalid_parameter' || error.code === 'missing_parameter')) {
        return usage(`${file}: not a valid scenario: ${saidBy(error, 'run')}`, 'run');
      }
      throw error;
    } finally {
      sandbox.close();
    }
  }
  const failed = results.find((r) => !r.result.passed);
  const failure = failed?.result.failure;
  if (failed && failure) {
    console.error(
      `svc-sandbox: ${failed.file}: ${failure.path} failed: expected ${JSON.stringify(failure.expected)}, saw ` +
        `${JSON.stringify(failure.seen)} (${failure.message})`,
    );
    return 1;
  }
  console.log(`${results.length} ${results.length === 1 ? 'scenario' : 'scenarios'} passed`);
  return 0;
}

/** `svc-sandbox trigger TYPE [--url URL] [--session S] [--data JSON] [--key KEY]`. */
export async function triggerCommand(args: string[]): Promise<number> {
  let parsed: Parsed<typeof TRIGGER_OPTIONS>;
  try {
    parsed = parse(args, TRIGGER_OPTIONS, 'trigger');
  } catch (error) {
    return usage((error as Error).message, 'trigger');
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(TRIGGER_HELP);
    return 0;
  }
  const [type, ...extra] = positionals;
  if (type === undefined) return usage(`trigger needs an event type: one of ${EVENT_TYPES.join(', ')}.`, 'trigger');
  if (extra.length > 0) return usage(`Unexpected argument '${extra[0]}': trigger takes one event type.`, 'trigger');
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    const near = nearest(type, EVENT_TYPES);
    return usage(
      `'${type}' is not an event type${near ? `; did you mean ${near}?` : `: use one of ${EVENT_TYPES.join(', ')}.`}`,
      'trigger',
    );
  }
  let data: unknown;
  if (values.data !== undefined) {
    try {
      data = JSON.parse(values.data);
    } catch (error) {
      return usage(`--data must be a JSON object, e.g. '{"disposition":"busy"}' (${(error as Error).message}).`, 'trigger');
    }
  }
  const base = (values.url ?? process.env.SVC_API_BASE_URL ?? 'http://127.0.0.1:12111').replace(/\/+$/, '').replace(/\/__sandbox$/, '');
  const session = values.session ?? 'default';
  // Under exec, the command's key: its trigger acts in the account the command itself uses.
  const key = values.key ?? (values.session === undefined ? process.env.SVC_API_KEY : undefined);
  const target = `${base}/__sandbox/sessions/${encodeURIComponent(session)}/trigger`;
  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type, ...(data === undefined ? {} : { data }), ...(key === undefined ? {} : { apiKey: key }) }),
    });
  } catch (error) {
    console.error(
      `svc-sandbox: no svc-sandbox server answers at ${base} ` +
        `(${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}): start one with 'svc-sandbox serve', or ` +
        `pass --url.`,
    );
    return 1;
  }
  const text = await response.text();
  if (response.status !== 201) {
    let message = text;
    try {
      const { error } = JSON.parse(text) as { error: { code: string; message: string; param?: string } };
      message = `${error.code}${error.param ? ` (${error.param})` : ''}: ${error.message}`;
    } catch {
      // not the error envelope: show the text as it came
    }
    console.error(`svc-sandbox: POST ${target} answered ${response.status}: ${message}`);
    return 1;
  }
  console.log(JSON.stringify(JSON.parse(text), null, 2));
  return 0;
}
