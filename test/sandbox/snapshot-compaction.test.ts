import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxSnapshot } from '../../src/index.js';
import { closedAfterEach } from '../support/made.js';
import { soakSize } from '../support/soak.js';

/**
 * The snapshot log keeps what a byte-identical continuation needs, not every request (docs/snapshots.md,
 * "Cost"): the same request repeated at one instant is one input with `times`, and requests that
 * changed nothing but their request ids (reads, refusals), once the request journal no longer lists
 * them and their rate window has passed, are one `elided` count. Property: after any mix of reads,
 * writes, refusals and advances, a sandbox restored from the snapshot shows what the original shows,
 * and the same continuation gets the same answers (headers included: request ids, rate windows) from both.
 */

const make = closedAfterEach();

const KEYS = ['SVC_TEST_a', 'SVC_TEST_b'] as const;
type Command =
  | { kind: 'reads'; n: number; path: string; key: string | null }
  | { kind: 'post'; to: string; key: string }
  | { kind: 'advance'; ms: number }
  | { kind: 'get-call'; which: number; key: string }
  | { kind: 'options' };

const key = fc.constantFrom<string>(...KEYS);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('reads' as const),
      n: fc.integer({ min: 1, max: 150 }),
      path: fc.constantFrom('/v1/calls?limit=1', '/v1/calls', '/v1/numbers?limit=2', '/v1/nope'),
      key: fc.option(key, { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('post' as const), to: fc.constantFrom('+14155550123', '+15005550001'), key }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2500 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('get-call' as const), which: fc.nat(), key }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'options' as const }) },
);

/** Runs `commands` on `sandbox`; every answer, headers included, as text. */
async function drive(sandbox: Sandbox, commands: readonly Command[]): Promise<{ answers: string[]; requests: number }> {
  const answers: string[] = [];
  let requests = 0;
  const send = async (path: string, init: RequestInit = {}) => {
    requests++;
    const res = await sandbox.fetch(path, init);
    answers.push(JSON.stringify([res.status, [...res.headers], await res.text()]));
  };
  const auth = (k: string | null): Record<string, string> => (k === null ? {} : { authorization: `Bearer ${k}` });
  for (const c of commands) {
    if (c.kind === 'reads') for (let i = 0; i < c.n; i++) await send(c.path, { headers: auth(c.key) });
    else if (c.kind === 'post') {
      await send('/v1/calls', {
        method: 'POST',
        headers: { ...auth(c.key), 'content-type': 'application/json' },
        body: JSON.stringify({ to: c.to, from: '+14155550100' }),
      });
    } else if (c.kind === 'advance') await sandbox.advance(c.ms);
    else if (c.kind === 'get-call') {
      const calls = sandbox.calls.list();
      await send(`/v1/calls/${calls.length === 0 ? 'call_0000000000000000' : calls[c.which % calls.length]!.id}`, { headers: auth(c.key) });
    } else await send('/v1/calls', { method: 'OPTIONS', headers: { origin: 'http://localhost:3000' } });
  }
  return { answers, requests };
}

/** What a sandbox shows, as JSON text. */
function observed(sandbox: Sandbox): string {
  return JSON.stringify({
    now: sandbox.now(),
    requests: sandbox.requests.list(),
    calls: sandbox.calls.list(),
    events: sandbox.events.list(),
    keys: sandbox.keys.list(),
    coverage: sandbox.coverage(),
  });
}

/** Every request a snapshot stands for: kept ones with their repeats, and the counted ones. */
function represented(snapshot: SandboxSnapshot): number {
  let n = 0;
  for (const input of snapshot.inputs) {
    if (input.kind === 'request') n += input.times ?? 1;
    else if (input.kind === 'elided') n += input.requests;
  }
  return n;
}

describe('the snapshot log, compacted', () => {
  it('a snapshot taken after any mix of reads, writes, refusals and advances continues byte for byte as the original', async () => {
    let elided = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.nat(1000),
          limit: fc.constantFrom(0, 5, 50, 2000),
          before: fc.array(command, { minLength: 25, maxLength: 60 }),
          after: fc.array(command, { minLength: 1, maxLength: 8 }),
        }),
        async ({ seed, limit, before, after }) => {
          const original = createSandbox({ seed, maxJournalEntries: limit });
          let copy: Sandbox | undefined;
          try {
            const { requests } = await drive(original, before);
            const snapshot = JSON.parse(JSON.stringify(original.snapshot())) as SandboxSnapshot;
            expect(represented(snapshot)).toBe(requests);
            if (snapshot.inputs.some((input) => input.kind === 'elided')) elided++;
            copy = createSandbox({ snapshot });
            expect(observed(copy)).toBe(observed(original));
            const fromOriginal = await drive(original, after);
            const fromCopy = await drive(copy, after);
            expect(fromCopy.answers).toEqual(fromOriginal.answers);
            expect(observed(copy)).toBe(observed(original));
            expect(copy.internalErrors()).toEqual([]);
          } finally {
            original.close();
            copy?.close();
          }
        },
      ),
      {
        seed: 20261127,
        numRuns: soakSize(8, 60),
        examples: [
          // Reads counted while later requests of their rate window are still listed: those count on them (the 429s).
          [
            {
              seed: 0,
              limit: 5,
              before: [
                ...Array.from({ length: 6 }, (): Command[] => [
                  { kind: 'reads', n: 150, path: '/v1/calls', key: 'SVC_TEST_b' },
                  { kind: 'advance', ms: 1000 },
                ]).flat(),
                { kind: 'reads', n: 80, path: '/v1/calls?limit=1', key: 'SVC_TEST_a' },
                { kind: 'reads', n: 80, path: '/v1/calls', key: 'SVC_TEST_a' },
              ],
              after: [{ kind: 'reads', n: 3, path: '/v1/calls', key: 'SVC_TEST_a' }],
            },
          ],
          // The clock never moves: reads past the journal's window are counted, with their rate windows, while later ones share them.
          [
            {
              seed: 2,
              limit: 5,
              before: [
                { kind: 'post', to: '+14155550123', key: 'SVC_TEST_a' },
                ...Array.from(
                  { length: 9 },
                  (_, i): Command => ({ kind: 'reads', n: 150, path: '/v1/calls', key: i % 3 ? 'SVC_TEST_a' : null }),
                ),
                { kind: 'options' },
                { kind: 'get-call', which: 0, key: 'SVC_TEST_b' },
                { kind: 'reads', n: 100, path: '/v1/nope', key: 'SVC_TEST_b' },
              ],
              after: [
                { kind: 'reads', n: 3, path: '/v1/calls', key: 'SVC_TEST_a' },
                { kind: 'reads', n: 2, path: '/v1/calls', key: null },
              ],
            },
          ],
          // Counted just after reads of a past window that the journal still lists: those stay.
          [
            {
              seed: 1,
              limit: 50,
              before: [
                ...Array.from({ length: 6 }, (): Command[] => [
                  { kind: 'reads', n: 150, path: '/v1/calls', key: 'SVC_TEST_b' },
                  { kind: 'advance', ms: 1000 },
                ]).flat(),
                ...Array.from(
                  { length: 100 },
                  (_, i): Command => ({ kind: 'reads', n: 1, path: i % 2 ? '/v1/calls' : '/v1/numbers?limit=2', key: 'SVC_TEST_a' }),
                ),
                { kind: 'advance', ms: 1000 },
                { kind: 'reads', n: 24, path: '/v1/calls', key: 'SVC_TEST_a' },
              ],
              after: [{ kind: 'options' }],
            },
          ],
        ],
      },
    );
    // The property held where counting mattered, not only where nothing was counted.
    expect(elided).toBeGreaterThan(0);
  });

  it('reads while the clock stands still are counted past the journal, and the copy goes on in the same rate windows', async () => {
    const sandbox = make({ seed: 3, maxJournalEntries: 100 });
    const auth = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
    // 40 reads of one key, then a flood of another's (past its 100 a second: 429s, which change nothing either).
    for (let i = 0; i < 40; i++) await sandbox.fetch(`/v1/calls/call_missing${i}`, auth('SVC_TEST_few'));
    const flood = soakSize(3_000, 30_000);
    for (let i = 0; i < flood; i++) await sandbox.fetch(`/v1/calls/call_missing${i}`, auth('SVC_TEST_flood'));
    const snapshot = JSON.parse(JSON.stringify(sandbox.snapshot())) as SandboxSnapshot;
    expect(represented(snapshot)).toBe(40 + flood);
    // At most the journal's last 100 and the requests since the last compaction (every 1,024) kept; the rest
    // counted, each count with what each rate window counted of it.
    expect(snapshot.inputs.length).toBeLessThan(100 + 1024 + 10);
    const windows = new Map<string, number>();
    for (const input of snapshot.inputs)
      if (input.kind === 'elided') for (const [bucket, n] of input.windows ?? []) windows.set(bucket, (windows.get(bucket) ?? 0) + n);
    expect(windows.get('SVC_TEST_few')).toBe(40);
    expect(windows.get('SVC_TEST_flood')).toBeGreaterThan(flood - 100 - 1024);
    const copy = make({ snapshot });
    expect(observed(copy)).toBe(observed(sandbox));
    // The same windows on both: what is left of each key's second, and the flood's refused.
    const next = async (s: Sandbox, key: string) => {
      const res = await s.fetch('/v1/calls?limit=1', auth(key));
      return [res.status, res.headers.get('x-ratelimit-remaining')];
    };
    expect(await next(copy, 'SVC_TEST_few')).toEqual([200, '59']);
    expect(await next(sandbox, 'SVC_TEST_few')).toEqual([200, '59']);
    expect(await next(copy, 'SVC_TEST_flood')).toEqual([429, '0']);
    expect(await next(sandbox, 'SVC_TEST_flood')).toEqual([429, '0']);
  });

  it('a flood of distinct keys in one second is counted past the journal too, and the copy has the same windows', async () => {
    const sandbox = make({ seed: 4, maxJournalEntries: 100 });
    const auth = (i: number) => ({ headers: { authorization: `Bearer SVC_TEST_k${i}` } });
    const read = (i: number) => sandbox.fetch('/v1/calls?limit=1', auth(i));
    // Past the 10,000 windows a second keeps: the keys after them are not counted until the next second.
    const keys = 10_050;
    for (let i = 0; i < keys; i++) await read(i);
    for (let i = 0; i < 2_100; i++) await read(i % 200);
    const snapshot = JSON.parse(JSON.stringify(sandbox.snapshot())) as SandboxSnapshot;
    expect(represented(snapshot)).toBe(keys + 2_100);
    expect(snapshot.inputs.length).toBeLessThan(100 + 1024 + 10);
    // One count per window kept: the 10,000 of the second, no more.
    const windows = snapshot.inputs.flatMap((input) => (input.kind === 'elided' ? (input.windows ?? []) : []));
    expect(new Set(windows.map(([bucket]) => bucket)).size).toBe(10_000);
    const copy = make({ snapshot });
    expect(observed(copy)).toBe(observed(sandbox));
    const next = async (s: Sandbox, i: number) => (await s.fetch('/v1/calls?limit=1', auth(i))).headers.get('x-ratelimit-remaining');
    for (const i of [0, 1, 150, 199, 5_000, 9_999, keys - 1]) expect(await next(copy, i), `SVC_TEST_k${i}`).toBe(await next(sandbox, i));
    expect(await next(sandbox, 0)).toBe(String(100 - 1 - 11 - 2));
    expect(await next(sandbox, keys - 1)).toBe('99');
  });

  it('100,000 reads with one key are a handful of inputs, and the copy lists the same journal', async () => {
    const sandbox = make({ seed: 1 });
    const headers = { authorization: 'Bearer SVC_TEST_reader' };
    const reads = soakSize(3_000, 100_000);
    for (let i = 0; i < reads; i++) {
      await sandbox.fetch('/v1/calls?limit=1', { headers });
      if (i % 100 === 99) await sandbox.advance('1s');
    }
    const snapshot = sandbox.snapshot();
    expect(represented(snapshot)).toBe(reads);
    // The advances (one a second) and, for the reads, a count and the journal's window in runs of 100.
    expect(snapshot.inputs.length).toBeLessThan(reads / 100 + 10_000 / 100 + 10);
    const copy = make({ snapshot: JSON.parse(JSON.stringify(snapshot)) });
    expect(observed(copy)).toBe(observed(sandbox));
  });
});

/**
 * Regression: a restored sandbox's coverage() left out the requests its snapshot kept only as an
 * `elided` count (3,000 reads in the original, 1,000 after restore). An `elided` input now carries
 * what coverage counts of them (`answered`: method, documented path, status, error code, count),
 * and the replay folds those rows into the restored sandbox's coverage.
 */
describe('coverage of a sandbox restored from a compacted snapshot', () => {
  const reader = { authorization: 'Bearer SVC_TEST_reader' };
  const burster = { authorization: 'Bearer SVC_TEST_burst' };

  /** `seconds` seconds of reads of several kinds, the clock moved a second after each: 200s, 404s, 401s and 429s. */
  async function reads(sandbox: Sandbox, callId: string, seconds: number): Promise<void> {
    for (let s = 0; s < seconds; s++) {
      for (let i = 0; i < 40; i++) expect((await sandbox.fetch('/v1/calls?limit=1', { headers: reader })).status).toBe(200);
      for (let i = 0; i < 10; i++) expect((await sandbox.fetch(`/v1/calls/${callId}`, { headers: reader })).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await sandbox.fetch('/v1/calls/call_0000000000000000', { headers: reader })).status).toBe(404);
      for (let i = 0; i < 5; i++) expect((await sandbox.fetch('/v1/numbers?limit=2')).status).toBe(401);
      if (s % 10 === 0) {
        // One key past its 100 requests of this second: 429 rate_limited.
        const statuses = new Set<number>();
        for (let i = 0; i < 103; i++) statuses.add((await sandbox.fetch('/v1/calls', { headers: burster })).status);
        expect([...statuses].sort()).toEqual([200, 429]);
      }
      await sandbox.advance('1s');
    }
  }

  async function post(sandbox: Sandbox, to = '+14155550123'): Promise<string> {
    const res = await sandbox.fetch('/v1/calls', {
      method: 'POST',
      headers: { ...reader, 'content-type': 'application/json' },
      body: JSON.stringify({ to, from: '+14155550100' }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  /** What a restore must give back: the coverage report and the request journal. */
  const seen = (sandbox: Sandbox) => ({ coverage: sandbox.coverage(), requests: sandbox.requests.list() });

  it('counts the elided requests as the original did, through JSON too, and again after the copy goes on', async () => {
    const original = make({ seed: 7, maxJournalEntries: 20 });
    const callId = await post(original);
    await reads(original, callId, 25);
    await post(original, '+15005550002');
    await original.advance('2m');
    await post(original, '+15005550001').catch(() => undefined);

    const snapshot = original.snapshot();
    const elided = snapshot.inputs.filter((input) => input.kind === 'elided');
    expect(elided.length).toBeGreaterThan(0);
    const before = seen(original);
    expect(before.coverage.endpoints['GET /v1/calls']![200]).toBeGreaterThan(1000);
    const copy = make({ snapshot });
    expect(seen(copy)).toEqual(before);
    const parsed = make({ snapshot: JSON.parse(JSON.stringify(snapshot)) as SandboxSnapshot });
    expect(seen(parsed)).toEqual(before);

    // Every elided request is counted by one row, and a long run of one read is one row.
    for (const input of elided) {
      expect(input.answered!.reduce((sum, row) => sum + row[4], 0)).toBe(input.requests);
      const kinds = input.answered!.map(([method, path, status, code]) => `${method} ${path} ${status} ${code}`);
      expect(new Set(kinds).size).toBe(kinds.length);
      expect(kinds.length).toBeLessThanOrEqual(6);
    }
    const rows = elided.flatMap((input) => input.answered!);
    expect(rows.map(([method, path, status, code]) => [method, path, status, code])).toEqual(
      expect.arrayContaining([
        ['GET', '/v1/calls', 200, null],
        ['GET', '/v1/calls/{id}', 200, null],
        ['GET', '/v1/calls/{id}', 404, 'not_found'],
        ['GET', '/v1/numbers', 401, 'invalid_api_key'],
        ['GET', '/v1/calls', 429, 'rate_limited'],
      ]),
    );

    // The copy compacts its own log as it goes on: the requests it replayed are counted when elided there too.
    for (const sandbox of [original, parsed]) {
      await reads(sandbox, callId, 25);
      await post(sandbox);
    }
    expect(seen(parsed)).toEqual(seen(original));
    const again = make({ snapshot: JSON.parse(JSON.stringify(parsed.snapshot())) as SandboxSnapshot });
    expect(seen(again)).toEqual(seen(original));
  });

  it('an older snapshot, its elided inputs without `answered`, still restores: the same journal, those requests uncounted', async () => {
    const original = make({ seed: 8, maxJournalEntries: 20 });
    const callId = await post(original);
    await reads(original, callId, 20);
    await post(original);
    const snapshot = JSON.parse(JSON.stringify(original.snapshot())) as SandboxSnapshot;
    let uncounted = 0;
    for (const input of snapshot.inputs) {
      if (input.kind !== 'elided') continue;
      uncounted += input.requests;
      delete input.answered;
    }
    expect(uncounted).toBeGreaterThan(500);
    const copy = make({ snapshot });
    expect(copy.requests.list()).toEqual(original.requests.list());
    const total = (sandbox: Sandbox) => Object.values(sandbox.coverage().errors).reduce((sum, n) => sum + n, 0);
    const endpoints = (sandbox: Sandbox) =>
      Object.values(sandbox.coverage().endpoints)
        .flatMap((statuses) => Object.values(statuses))
        .reduce((sum, n) => sum + n, 0);
    expect(endpoints(copy) + total(copy)).toBeLessThan(endpoints(original) + total(original));
    expect(copy.internalErrors()).toEqual([]);
  });
});
