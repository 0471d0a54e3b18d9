import { checkReceiver } from '../sandbox.js';
import { checkReceiverInput, NOT_RUN, type ReceiverCase } from '../webhooks/check-receiver.js';
import { parseCommand } from './cli-args.js';

/**
 * `svc-sandbox check-receiver URL --secret SECRET [--timeout D] [--json]`: a printer over
 * {@link checkReceiver} (docs/webhooks.md, "Check your receiver").
 * Exit codes: 0 when every case passed, 1 naming each that fell short, 2 for a bad argument.
 */

export const CHECK_RECEIVER_USAGE =
  'svc-sandbox check-receiver URL --secret SECRET [--timeout D] [--json]  (svc-sandbox check-receiver --help)';

export const CHECK_RECEIVER_HELP = `Usage: svc-sandbox check-receiver URL --secret SECRET [--timeout D] [--json]

Tests your webhook endpoint at URL as the service would call it: a correctly
signed delivery of each of the seven event types and one with its JSON spaced
otherwise (each must be answered 2xx), four forged ones (no signature, a wrong
one, the signature of another body, one made with another secret: each must be
refused, answered with anything but 2xx), and a duplicate of the first event
(same event id: it must be answered 2xx again). Bodies are pretty-printed, as
the sandbox delivers them, so an endpoint that verifies re-serialized JSON
(JSON.stringify(JSON.parse(body))) fails, each case saying so. Each case is
decided by its status as soon as it arrives. Prints one line per case and
exits 0 when every case passed, 1 naming each one that fell short.

Options:
      --secret <secret>  The webhook secret your endpoint verifies with (required)
      --timeout <d>      Real time each delivery may take to be answered
                         (default 10s, as the service waits; at most 10m). Once
                         one goes unanswered, the cases after it are not run
      --json             Print the cases as a JSON array of
                         {case, expected, status, ok, ms, error} instead
  -h, --help             Show this help
Details: docs/webhooks.md in the package, "Check your receiver".`;

const OPTIONS = {
  secret: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The argument behind each parameter of checkReceiver, to name it in its refusals. */
const ARGUMENTS = { url: 'URL', secret: '--secret', timeout: '--timeout' } as const;

function usage(message: string): number {
  console.error(`svc-sandbox: ${message}\nUsage: ${CHECK_RECEIVER_USAGE}`);
  return 2;
}

/** `svc-sandbox check-receiver URL --secret SECRET [--timeout D] [--json]`. */
export async function checkReceiverCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(CHECK_RECEIVER_HELP);
    return 0;
  }
  const [url, ...extra] = positionals;
  if (url === undefined) return usage('check-receiver needs the URL of your webhook endpoint, e.g. http://127.0.0.1:3000/webhooks.');
  if (extra.length > 0) return usage(`Unexpected argument '${extra[0]}': check-receiver takes one URL.`);
  if (values.secret === undefined) return usage('--secret is required: the webhook secret your endpoint verifies with.');
  const options = { secret: values.secret, ...(values.timeout === undefined ? {} : { timeout: values.timeout }) };
  // Checked here first, so a refusal names the command's own argument (`--secret`, not `secret`).
  const input = checkReceiverInput(url, options);
  if (!('url' in input)) return usage(`${ARGUMENTS[input.param]} ${input.text}`);
  const result = await checkReceiver(url, options);
  if (values.json) console.log(JSON.stringify(result.cases, null, 2));
  else print(url, values.timeout ?? '10s', result.cases);
  const short = result.cases.filter((c) => !c.ok);
  for (const line of shortfalls(short)) console.error(`svc-sandbox: check-receiver: ${line}`);
  return result.ok ? 0 : 1;
}

/** One line per case (`PASS  case  expected …  got …  time`), then the count. */
function print(url: string, timeout: string, cases: ReceiverCase[]): void {
  console.log(`check-receiver ${url} (timeout ${timeout})`);
  const width = Math.max(...cases.map((c) => c.case.length));
  for (const c of cases) {
    const got = c.status !== null ? String(c.status) : c.error?.startsWith(NOT_RUN) ? NOT_RUN : 'no answer';
    const time = c.error?.startsWith(NOT_RUN) ? '-' : `${c.ms} ms`;
    console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.case.padEnd(width)}  expected ${c.expected.padEnd(7)}  got ${got.padEnd(9)}  ${time}`);
  }
  const passed = cases.filter((c) => c.ok).length;
  console.log(`${passed} of ${cases.length} cases passed`);
}

/** Each case that fell short with why; the cases not run after a timeout as one line. */
function shortfalls(short: ReceiverCase[]): string[] {
  const skipped = short.filter((c) => c.error?.startsWith(NOT_RUN));
  const lines = short.filter((c) => !skipped.includes(c)).map((c) => `${c.case}: ${c.error}`);
  if (skipped.length > 0) {
    lines.push(
      `${skipped.length} ${skipped.length === 1 ? 'case' : 'cases'} not run (${skipped.map((c) => c.case).join(', ')}): the endpoint stopped answering`,
    );
  }
  return lines;
}
