import { describe, expect, it } from 'vitest';
import { admission, heapCapacity, JOURNAL_ENTRY_BYTES, reserveOf, SESSION_BASE_BYTES, sessionBytes } from './capacity.js';

// Regression: maxSessions (1000) x a session with a full journal (7.0 MB) did not fit the default 4.1 GB heap: some 590 busy sessions ended the server and every session with it.

const MIB = 1024 * 1024;
const DEFAULT_HEAP = 4144 * MIB;
const busy = sessionBytes(10_000);

describe('admission of a new session by the heap', () => {
  it('counts a session at its journal full: about 12 MB at the default 10,000 requests, as measured', () => {
    expect(busy).toBe(SESSION_BASE_BYTES + 10_000 * JOURNAL_ENTRY_BYTES);
    expect(busy / 1e6).toBeGreaterThanOrEqual(11.7);
  });

  it('admits no more sessions than the heap holds with every journal full, beside the reserve', () => {
    const capacity = heapCapacity(DEFAULT_HEAP, busy);
    expect(capacity * busy + reserveOf(DEFAULT_HEAP)).toBeLessThanOrEqual(DEFAULT_HEAP);
    expect(capacity).toBeLessThan(590);
    const idle = { limit: DEFAULT_HEAP, used: 200 * MIB };
    expect(admission(capacity - 1, 1000, busy, idle)).toBeNull();
    expect(admission(capacity, 1000, busy, idle)).toMatch(
      /^The server holds \d+ sessions, as many as its heap \(4144 MiB\) can hold with every journal full \(11 MiB a session, 512 MiB kept for the server\): delete .*DELETE \/__sandbox\/sessions\/\{s\}.*--max-journal-entries.*--max-old-space-size/,
    );
  });

  it('a smaller journal or a larger heap admits more; maxSessions stays a bound of its own', () => {
    expect(heapCapacity(DEFAULT_HEAP, sessionBytes(2_000))).toBeGreaterThan(1000);
    expect(heapCapacity(16 * 1024 * MIB, busy)).toBeGreaterThan(1000);
    const roomy = { limit: 16 * 1024 * MIB, used: 200 * MIB };
    expect(admission(999, 1000, busy, roomy)).toBeNull();
    expect(admission(1000, 1000, busy, roomy)).toMatch(/^The server holds 1000 sessions, its limit: delete/);
  });

  it('refuses when the heap in use leaves no room for one more session, however few there are', () => {
    const limit = 1024 * MIB;
    const nearlyFull = { limit, used: limit - reserveOf(limit) - busy + 1 };
    expect(admission(2, 1000, busy, nearlyFull)).toMatch(/^The server's heap is nearly full \(\d+ MiB of 1024 MiB used, 256 MiB kept/);
    expect(admission(2, 1000, busy, { limit, used: limit - reserveOf(limit) - busy })).toBeNull();
  });

  it('a tiny heap still admits one session', () => {
    expect(heapCapacity(16 * MIB, busy)).toBe(1);
  });
});
