import { getHeapStatistics } from 'node:v8';

/**
 * How many sessions the server's heap can hold (docs/server.md, "Limits"). A session is a whole
 * sandbox whose journal fills as its client works, so the server counts each session at what it
 * may come to, not at what it holds when made: a new session is refused (409) once the sessions
 * already made could not all grow to that within the heap. Running out of heap would end the
 * process, and every session with it; a 409 ends one test's setup, with the fix in its message.
 */

/** What a session holds beside its journal, at most in a busy test: its sandbox's parts and stores. */
export const SESSION_BASE_BYTES = 1024 * 1024;

/**
 * What one kept request of a session's journal holds at most: its journal record and the
 * snapshot log's input for it. Measured: a session whose journal kept 10,000 distinct 404 reads
 * held 11.7 MB of heap, about 1,070 bytes a request beside the session's base (the journal's own
 * byte bound, `maxJournalBytes`, 8 MiB of estimated text, stops longer requests from costing more).
 * The one number the admission reads: change it here when the journal's records change.
 */
export const JOURNAL_ENTRY_BYTES = 1100;

/** The heap the server keeps for itself and for the work in flight (answers being written, a scenario's timeline): a quarter of the heap, at most 512 MiB. */
export function reserveOf(heapLimit: number): number {
  return Math.min(512 * 1024 * 1024, Math.floor(heapLimit / 4));
}

/** What a session whose journal keeps `maxJournalEntries` requests may come to. */
export function sessionBytes(maxJournalEntries: number): number {
  return SESSION_BASE_BYTES + maxJournalEntries * JOURNAL_ENTRY_BYTES;
}

/** The heap as {@link admission} reads it: its limit and what is used now, in bytes. */
export interface HeapReading {
  limit: number;
  used: number;
}

/** Reads the heap; the server's is V8's own ({@link nodeHeap}), a test hands another (the internal option {@link HEAP}). */
export type HeapGauge = () => HeapReading;

/** The process's heap, as V8 reports it. */
export const nodeHeap: HeapGauge = () => {
  const stats = getHeapStatistics();
  return { limit: stats.heap_size_limit, used: stats.used_heap_size };
};

/** The key of an internal option of `startServer`: another {@link HeapGauge}, so a test can give the server a small heap. */
export const HEAP: unique symbol = Symbol('svc-sandbox heap gauge');

/** How many sessions, each at `perSession` bytes, a heap of `heapLimit` bytes holds beside the server's reserve. */
export function heapCapacity(heapLimit: number, perSession: number): number {
  return Math.max(1, Math.floor((heapLimit - reserveOf(heapLimit)) / perSession));
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${Math.round(bytes / MIB)} MiB`;

/**
 * Whether a server with `live` sessions (the default one included) may make one more: null when it
 * may, else why not and what to do, as the 409's message. Three bounds: `maxSessions`; the heap's
 * capacity at `perSession` bytes a session; and the heap in use now, which must leave room for one
 * more session beside the reserve (sessions made from large snapshots hold more than a journal).
 *
 * @example
 * admission(600, 1000, sessionBytes(10_000), { limit: 4096 * 2 ** 20, used: 900 * 2 ** 20 });
 * // 'The server holds 600 sessions, as many as its heap (4096 MiB) can hold ...'
 */
export function admission(live: number, maxSessions: number, perSession: number, heap: HeapReading): string | null {
  const deleteFinished = 'delete the ones a finished test left (DELETE /__sandbox/sessions/{s}) before making more';
  if (live >= maxSessions) return `The server holds ${maxSessions} sessions, its limit: ${deleteFinished}.`;
  const capacity = heapCapacity(heap.limit, perSession);
  const larger =
    'or start the server with a smaller --max-journal-entries (each session counts at its journal full) or a larger heap ' +
    '(node --max-old-space-size=MiB)';
  if (live >= capacity) {
    return (
      `The server holds ${live} sessions, as many as its heap (${mib(heap.limit)}) can hold with every journal full ` +
      `(${mib(perSession)} a session, ${mib(reserveOf(heap.limit))} kept for the server): ${deleteFinished}, ${larger}.`
    );
  }
  const room = heap.limit - reserveOf(heap.limit) - heap.used;
  if (room < perSession) {
    return (
      `The server's heap is nearly full (${mib(heap.used)} of ${mib(heap.limit)} used, ${mib(reserveOf(heap.limit))} kept for the server), ` +
      `too little for one more session (${mib(perSession)}): ${deleteFinished}, ${larger}.`
    );
  }
  return null;
}
