import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, verifyWebhook } from '../../src/index.js';
import { closeReceivers, type Received, startReceiver } from '../webhooks/receivers.js';
import { CLI, ensureBuilt } from './built-cli.js';

/**
 * `svc-sandbox check-receiver` (docs/webhooks.md, "Check your receiver") run as a user runs it:
 * the built bin in a child process, against `node:http` receivers in this process.
 */
beforeAll(ensureBuilt, 120_000);
afterEach(closeReceivers);

const SECRET = 'whsec_cli0check0secret00000000000';
const CASES = [
  ...EVENT_TYPES.map((type) => `signed/${type}`),
  'signed/spaced-json',
  'forged/no-signature',
  'forged/wrong-signature',
  'forged/other-body',
  'forged/other-secret',
  'duplicate',
];
const FORGED = CASES.filter((name) => name.startsWith('forged/'));
const USAGE = 'Usage: svc-sandbox check-receiver URL --secret SECRET [--timeout D] [--json]';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'check-receiver', ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const correct = (request: Received) =>
  verifyWebhook(request.raw, String(request.headers['x-service-signature'] ?? ''), SECRET) ? 204 : 401;

describe('svc-sandbox check-receiver', () => {
  it('exits 0 for a receiver that verifies and accepts duplicates, one line per case', async () => {
    const receiver = await startReceiver(correct);
    const { code, stdout, stderr } = await cli([receiver.url, '--secret', SECRET]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`check-receiver ${receiver.url} (timeout 10s)`);
    expect(lines.slice(1, -1)).toHaveLength(CASES.length);
    CASES.forEach((name, i) => {
      const [expected, got] = name.startsWith('forged/') ? ['not 2xx', '401'] : ['2xx    ', '204'];
      expect(lines[i + 1]).toMatch(new RegExp(`^PASS  ${name.replace(/\./g, '\\.')} +expected ${expected}  got ${got} +\\d+ ms$`));
    });
    expect(lines.at(-1)).toBe(`${CASES.length} of ${CASES.length} cases passed`);
    expect(receiver.received).toHaveLength(CASES.length);
  });

  it('exits 1 for a receiver that answers 200 to everything, naming each forged case on stderr', async () => {
    const receiver = await startReceiver(() => 200);
    const { code, stdout, stderr } = await cli([receiver.url, '--secret', SECRET]);
    expect(code).toBe(1);
    for (const name of FORGED) expect(stdout).toMatch(new RegExp(`^FAIL  ${name} +expected not 2xx  got 200 +\\d+ ms$`, 'm'));
    expect(stdout).toMatch(/^9 of 13 cases passed$/m);
    const named = stderr
      .trimEnd()
      .split('\n')
      .map((line) => /^svc-sandbox: check-receiver: ([\w/.-]+): answered HTTP 200/.exec(line)?.[1]);
    expect(named).toEqual(FORGED);
  });

  it('--json prints the cases as a JSON array, and exits as the human form does', async () => {
    const receiver = await startReceiver(() => 200);
    const { code, stdout } = await cli([receiver.url, '--secret', SECRET, '--json']);
    expect(code).toBe(1);
    const cases = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(cases.map((c) => c.case)).toEqual(CASES);
    for (const c of cases) {
      expect(Object.keys(c)).toEqual(['case', 'expected', 'status', 'ok', 'ms', 'error']);
      expect(c).toMatchObject({ status: 200, ok: !FORGED.includes(c.case as string), ms: expect.any(Number) });
    }
  });

  it('--timeout bounds a hanging receiver: one timeout, then the rest are not run', async () => {
    const receiver = await startReceiver(() => 'hang');
    const started = performance.now();
    const { code, stdout, stderr } = await cli([receiver.url, '--secret', SECRET, '--timeout', '1s']);
    expect(code).toBe(1);
    // Twelve timeouts would be 12 s; starting a process that loads the package takes some of the rest.
    expect(performance.now() - started).toBeLessThan(8000);
    expect(stdout).toMatch(/^FAIL {2}signed\/call\.started +expected 2xx {6}got no answer +\d+ ms$/m);
    expect(stdout).toMatch(/^FAIL {2}duplicate +expected 2xx {6}got not run +-$/m);
    expect(stderr).toContain('signed/call.started: no answer within 1000 ms (timed out)');
    expect(stderr).toContain('12 cases not run (signed/call.answered, ');
  });

  it('exits 1 against a receiver that verifies JSON.stringify(JSON.parse(raw)), saying so on stderr', async () => {
    const receiver = await startReceiver((request) =>
      verifyWebhook(JSON.stringify(JSON.parse(request.raw.toString('utf8'))), String(request.headers['x-service-signature'] ?? ''), SECRET)
        ? 200
        : 400,
    );
    const { code, stdout, stderr } = await cli([receiver.url, '--secret', SECRET]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL {2}signed\/spaced-json +expected 2xx {6}got 400 +\d+ ms$/m);
    expect(stderr).toMatch(
      /^svc-sandbox: check-receiver: signed\/spaced-json: answered HTTP 400 .*most likely verifies re-serialized JSON/m,
    );
    expect(stderr).toMatch(
      /^svc-sandbox: check-receiver: signed\/call\.started: .*verifies re-serialized JSON \(JSON\.stringify\(JSON\.parse\(body\)\)\) fails here/m,
    );
  });

  it('exits 2 with the usage line for a bad argument, sending nothing', async () => {
    const receiver = await startReceiver(correct);
    const runs = await Promise.all([
      cli([]),
      cli([receiver.url]),
      cli([receiver.url, '--secret', SECRET, '--timeout', '10']),
      cli(['http://169.254.169.254/latest', '--secret', SECRET]),
      cli([receiver.url.replace('//', '//user:pw@'), '--secret', SECRET]),
      cli([receiver.url, '--secret', SECRET, '--timout', '1s']),
    ]);
    const messages = runs.map(({ code, stdout, stderr }) => {
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(USAGE);
      return stderr.split('\n')[0];
    });
    expect(messages).toEqual([
      'svc-sandbox: check-receiver needs the URL of your webhook endpoint, e.g. http://127.0.0.1:3000/webhooks.',
      'svc-sandbox: --secret is required: the webhook secret your endpoint verifies with.',
      `svc-sandbox: --timeout must be a duration such as '10s' or '300ms', from 1 ms to 10 minutes (got "10").`,
      'svc-sandbox: URL points at a link-local or cloud-metadata address (169.254.169.254), which svc-sandbox never calls; give the address of your own receiver.',
      expect.stringMatching(/^svc-sandbox: URL must not carry credentials \(user:password@\)/),
      "svc-sandbox: Unknown option '--timout'; did you mean --timeout?",
    ]);
    expect(receiver.received).toHaveLength(0);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc-sandbox check-receiver URL --secret SECRET/);
  });
});
