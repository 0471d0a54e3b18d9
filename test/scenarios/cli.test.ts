import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, startServer, type EventType, type SandboxServer } from '../../src/index.js';
import { CLI, ensureBuilt, ROOT } from '../server/built-cli.js';

/**
 * `svc-sandbox run` and `svc-sandbox trigger` (docs/scenarios.md), run as a user
 * runs them: the built bin in a child process.
 */
const EXAMPLES = `${ROOT}examples/scenarios/`;
const EXAMPLE = `${EXAMPLES}busy-then-answered.json`;
const tmp = mkdtempSync(join(tmpdir(), 'svc-scenarios-'));

// The bin is built once for every CLI test file, under a lock (test/server/built-cli.ts).
beforeAll(ensureBuilt, 120_000);

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, cwd: tmp }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('svc-sandbox run', () => {
  it('runs every example of examples/scenarios/ in one command, each on a fresh sandbox, and exits 0', async () => {
    const files = readdirSync(EXAMPLES).filter((name) => name.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const { code, stdout, stderr } = await cli(['run', ...files.map((name) => EXAMPLES + name)]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const name of files) expect(stdout).toContain(JSON.parse(readFileSync(EXAMPLES + name, 'utf8')).name);
  });

  it("prints the timeline in the demo's format, draws it with --svg and exits 0 when every expectation holds", async () => {
    const out = join(tmp, 'busy.svg');
    const { code, stdout, stderr } = await cli(['run', EXAMPLE, '--svg', out]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^scenario: Busy, then answered on the retry \(.*busy-then-answered\.json, seed 7\)$/m);
    expect(stdout).toMatch(/^\+ {4}1s {2}call\.completed {4}call_\w+ completed disposition=busy duration=0s$/m);
    expect(stdout).toMatch(/^\+ {3}60s {2}# the app retries a minute later$/m);
    expect(stdout).toMatch(/^PASS {2}Busy, then answered on the retry: \d+ expectations held$/m);
    expect(stdout).toMatch(/^1 scenario passed$/m);
    expect(readFileSync(out, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('--seed gives the same ids on every run, and another seed other ids', async () => {
    const ids = (text: string) => text.match(/call_\w+/g);
    const [a, b, c] = await Promise.all([
      cli(['run', EXAMPLE, '--seed', '42']),
      cli(['run', EXAMPLE, '--seed', '42']),
      cli(['run', EXAMPLE, '--seed', '43']),
    ]);
    expect(ids(a.stdout)).toEqual(ids(b.stdout));
    expect(ids(a.stdout)).not.toEqual(ids(c.stdout));
  });

  it('exits 1 naming the first expectation that failed and what was seen', async () => {
    const scenario = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    scenario.steps[3].expect.resources[0].fields.duration = 50;
    const file = join(tmp, 'wrong.json');
    writeFileSync(file, JSON.stringify(scenario));
    const { code, stdout, stderr } = await cli(['run', EXAMPLE, file]);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^FAIL {2}Busy, then answered on the retry: steps\[3\]\.expect\.resources\[0\]\.fields\.duration: expected 50, saw 45\.$/m,
    );
    expect(stderr).toContain(`${file}: steps[3].expect.resources[0].fields.duration failed: expected 50, saw 45`);
  });

  it('exits 2 for a file that is not a valid scenario, naming the JSON path and the fix', async () => {
    const file = join(tmp, 'invalid.json');
    writeFileSync(file, JSON.stringify({ name: 'x', steps: [{ at: '1m', request: { method: 'POST', path: '/v1/calls' } }, { at: '5s' }] }));
    const { code, stderr } = await cli(['run', file]);
    expect(code).toBe(2);
    expect(stderr).toContain('not a valid scenario: `steps[1].at` ("5s") is earlier than the step before it');
    const missing = await cli(['run', join(tmp, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: cannot read it as a scenario: it does not exist\./);
    expect((await cli(['run'])).stderr).toMatch(/run needs at least one scenario file/);
  });
});

describe('svc-sandbox trigger', () => {
  let server: SandboxServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, seed: 3 });
  });
  afterAll(() => server.close());

  it('makes one event on a running server and prints it', async () => {
    const { code, stdout, stderr } = await cli(['trigger', 'call.completed', '--url', server.url, '--data', '{"disposition":"busy"}']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const event = JSON.parse(stdout);
    expect(event).toMatchObject({ type: 'call.completed', data: { disposition: 'busy' } });
    expect(server.sandbox.calls.get(event.data.id)).toEqual(event.data);
  });

  /** The event's resource as the API shows it to the session's key (a message has no GET by id: the list). */
  async function read(type: EventType, id: string): Promise<unknown> {
    const get = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.apiKey}` } });
      expect(res.status).toBe(200);
      return res.json();
    };
    if (type.startsWith('message.')) return (await get('/v1/messages?limit=100')).data.find((m: { id: string }) => m.id === id);
    return get(
      type.startsWith('call.') ? `/v1/calls/${id}` : type === 'recording.ready' ? `/v1/recordings/${id}` : `/v1/transcripts/${id}`,
    );
  }

  it.for(EVENT_TYPES)(
    'makes one %s in the account of $SVC_API_KEY (as exec sets it): the printed event is the one the session logged, and its resource reads as its data',
    async (type) => {
      const { code, stdout, stderr } = await cli(['trigger', type], { SVC_API_BASE_URL: server.url, SVC_API_KEY: server.apiKey });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const event = JSON.parse(stdout);
      expect(event.type).toBe(type);
      expect(server.sandbox.events.list({ type }).at(-1)).toEqual(event);
      expect(await read(type, event.data.id)).toEqual(event.data);
    },
  );

  it('takes the server from SVC_API_BASE_URL, as exec sets it', async () => {
    const { code, stdout } = await cli(['trigger', 'message.received'], { SVC_API_BASE_URL: server.url });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ type: 'message.received', data: { status: 'received' } });
  });

  it('refuses a bad type (2), a refused field (1) and no server (1), each saying why', async () => {
    const type = await cli(['trigger', 'call.complete', '--url', server.url]);
    expect(type).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("'call.complete' is not an event type; did you mean call.completed?"),
    });
    const field = await cli(['trigger', 'call.completed', '--url', server.url, '--data', '{"dispositon":"busy"}']);
    expect(field).toMatchObject({ code: 1, stderr: expect.stringContaining('answered 400: invalid_parameter (data.dispositon)') });
    const none = await cli(['trigger', 'call.started', '--url', 'http://127.0.0.1:9']);
    expect(none).toMatchObject({ code: 1, stderr: expect.stringContaining('no svc-sandbox server answers at http://127.0.0.1:9') });
  });
});
