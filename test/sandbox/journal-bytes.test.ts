import { describe, expect, it } from 'vitest';
import { createSandbox, SandboxError } from '../../src/index.js';

/**
 * A session's journal bounded in bytes as well as entries: 10,000 entries of 16 KiB paths cost
 * hundreds of MB where 10,000 of a suite cost about 3 MB. `maxJournalBytes` (default 8 MiB)
 * forgets the oldest past it, as `maxJournalEntries` does, so a full journal costs a known amount.
 */

describe('the request journal, bounded in bytes', () => {
  it('keeps the newest entries whose estimated bytes fit, forgets the oldest, and coverage still counts every request', async () => {
    const sandbox = createSandbox({ seed: 1, maxJournalBytes: 200_000 });
    const long = 'x'.repeat(4_000);
    for (let i = 0; i < 100; i++) {
      const res = await sandbox.fetch(`/v1/calls/call_${i}${long}`, { headers: { authorization: 'Bearer SVC_TEST_a' } });
      expect(res.status).toBe(404);
    }
    const listed = sandbox.requests.list();
    // Each entry holds its 4 KB path twice (its target and its path) at two bytes a character: about 16 KB.
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.length).toBeLessThan(15);
    expect(listed.at(-1)?.target).toBe(`/v1/calls/call_99${long}`);
    const covered = sandbox.coverage();
    expect(JSON.stringify(covered)).toContain('"not_found"');
    // A restore lists the same entries: the bound is part of the options a snapshot keeps.
    const copy = createSandbox({ snapshot: sandbox.snapshot() });
    expect(copy.requests.list()).toEqual(listed);
    copy.close();
    sandbox.close();
  });

  it('under the default byte bound a suite journal is bounded by entries: 2,000 error answers kept of 2,100', async () => {
    const sandbox = createSandbox({ seed: 1, maxJournalEntries: 2_000 });
    for (let i = 0; i < 2_100; i++) await sandbox.fetch(`/v1/calls/call_${i}`, { headers: { authorization: 'Bearer SVC_TEST_a' } });
    expect(sandbox.requests.list()).toHaveLength(2_000);
    sandbox.close();
  });

  it('refuses a bound that is no whole number of bytes, naming it', () => {
    expect(() => createSandbox({ maxJournalBytes: -1 })).toThrow(SandboxError);
    expect(() => createSandbox({ maxJournalBytes: -1 })).toThrow(/maxJournalBytes/);
  });
});
