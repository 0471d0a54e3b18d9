import type { Service } from '../core/lifecycle.js';
import { iso } from '../core/time.js';

/** One request as the sandbox answered it (`sandbox.requests.list()`; docs/scripting.md, "The request journal"). */
export interface JournalEntry {
  /** The `X-Request-Id` of the answer. */
  requestId: string;
  method: string;
  /**
   * The documented path the request matched, with its parameters as names
   * (`/v1/calls/{id}`); the request's own path when it matched none (a 404, a 405).
   */
  path: string;
  /** The request's own path below the base URL (`/v1/calls/call_…`), without the query. */
  target: string;
  /** The status answered; 0 for an injected network fault (no answer at all). */
  status: number;
  /** `error.code` of an error answer (`network_error` for a network fault); null for a success. */
  errorCode: string | null;
  /** `error.message` of an error answer (what was wrong and how to fix it); null for a success. */
  errorMessage: string | null;
  /** The bearer token the request carried, or null. */
  apiKey: string | null;
  /** Virtual time of the answer, ISO 8601. */
  at: string;
}

/** What a journal record's `status` holds while its request is in flight. */
const PENDING = -1;

/**
 * A request as the journal holds it: opened by the pipeline when the request arrives, so the
 * journal lists requests in the order they came, and filled in as the pipeline answers it (it is
 * the pipeline's own note of the request, not a copy). Until its answer `status` is
 * {@link PENDING} and the listing passes over it; `at` stays epoch milliseconds until read.
 */
export class JournalRecord {
  requestId = '';
  /** The documented path once a row matched; the request's own until then. */
  path = '';
  target = '';
  status = PENDING;
  errorCode: string | null = null;
  errorMessage: string | null = null;
  apiKey: string | null = null;
  /** Virtual time of the answer, epoch ms. */
  at = 0;
  /** What it costs the journal once answered ({@link recordBytes}); 0 while in flight. */
  bytes = 0;

  constructor(
    readonly method: string,
    /** Its place in arrival order; the journal has forgotten it when it is below the journal's first kept place. */
    readonly seq: number,
  ) {}

  get answered(): boolean {
    return this.status !== PENDING;
  }

  /** The public entry (a copy: changing it changes nothing). */
  entry(): JournalEntry {
    return {
      requestId: this.requestId,
      method: this.method,
      path: this.path,
      target: this.target,
      status: this.status,
      errorCode: this.errorCode,
      errorMessage: this.errorMessage,
      apiKey: this.apiKey,
      at: iso(this.at),
    };
  }
}

/** How many requests a journal keeps unless told otherwise (`createSandbox({ maxJournalEntries })`). */
export const JOURNAL_LIMIT = 10_000;

/**
 * How many bytes of answered requests a journal keeps unless told otherwise
 * (`createSandbox({ maxJournalBytes })`), as {@link recordBytes} counts them: 8 MiB holds the
 * default 10,000 entries of a suite (about 300 bytes each, an error message included) with room
 * to spare, so the entry bound is the one a suite meets; the byte bound caps what a full
 * journal costs when each entry is large (a 16 KiB path, a long key), whatever they hold.
 */
export const JOURNAL_BYTES = 8 * 1024 * 1024;

/**
 * What an answered record costs, estimated: its object (with its entry's boxes) and its text at
 * two bytes a character, the worst a JavaScript string takes. Strings shared with other records
 * (a method, a documented path) are counted in each, so the estimate errs high.
 */
function recordBytes(record: JournalRecord): number {
  return (
    RECORD_OVERHEAD +
    2 *
      (record.requestId.length +
        record.method.length +
        record.path.length +
        record.target.length +
        (record.errorCode?.length ?? 0) +
        (record.errorMessage?.length ?? 0) +
        (record.apiKey?.length ?? 0))
  );
}
/** A record's object and the headers of its strings, measured in V8 (heap snapshot of 10,000 records). */
const RECORD_OVERHEAD = 160;

/**
 * The sandbox's request journal: every request the API received, in the order it arrived (not
 * the order the answers left: a request whose body is still arriving waits in its place while
 * later ones are listed). It keeps the latest `limit` (a bounded memory however long a server
 * runs), and `reset()` empties it with the rest of the sandbox's state.
 */
export class Journal implements Service {
  private records: JournalRecord[] = [];
  /** Index in `records` of the oldest kept one: those before it are forgotten, and cut off in batches. */
  private first = 0;
  private nextSeq = 0;
  /** The bytes of the kept answered records ({@link recordBytes}). */
  private bytes = 0;
  private watcher: ((record: JournalRecord) => void) | null = null;

  /**
   * @param limit requests kept at most (0 keeps none).
   * @param forgetting sees every answered record the journal forgets, once: when the limit drops
   * it, or when its answer comes after it was dropped. Coverage, which outlives the journal's
   * window, counts them there (docs/coverage.md).
   */
  constructor(
    readonly limit: number = JOURNAL_LIMIT,
    private readonly forgetting?: (records: readonly JournalRecord[]) => void,
    /** Bytes of answered requests kept at most (see {@link recordBytes}): the oldest go first past it. */
    readonly maxBytes: number = JOURNAL_BYTES,
  ) {}

  /** How many requests it holds, answered or in flight: what it lists, and no fewer. */
  get size(): number {
    return this.records.length - this.first;
  }

  /** Tells `watcher` of every request answered, as stores tell theirs (the sandbox's change feed, state/changes.ts). */
  watch(watcher: (record: JournalRecord) => void): void {
    this.watcher = watcher;
  }

  /** A request arrives: its record, in arrival order, listed once {@link close}d. */
  open(method: string): JournalRecord {
    const record = new JournalRecord(method, this.nextSeq++);
    this.records.push(record);
    if (this.records.length - this.first > this.limit) this.trim();
    return record;
  }

  /** A request was answered at `nowMs` (its record is filled in). */
  close(record: JournalRecord, status: number, nowMs: number): void {
    record.status = status;
    record.at = nowMs;
    const first = this.records[this.first];
    if (first !== undefined && record.seq >= first.seq) {
      record.bytes = recordBytes(record);
      this.bytes += record.bytes;
      // The oldest go first, this one last: a single record larger than the bound is not kept either.
      while (this.bytes > this.maxBytes && this.first < this.records.length) this.trim();
    }
    this.watcher?.(record);
    // Cut off while it was still in flight: counted now, the one time it can be.
    const oldest = this.records[0];
    if (oldest === undefined || record.seq < oldest.seq) this.forgetting?.([record]);
  }

  /**
   * Every record not yet handed to `forgetting`, oldest first, in flight or answered, the dropped
   * ones not yet cut off too: each request once, for coverage (which counts the answered ones).
   */
  held(): readonly JournalRecord[] {
    return this.records;
  }

  /** The answered requests kept, in arrival order (the latest `limit` at most). */
  list(): JournalRecord[] {
    return this.records.slice(this.first).filter((record) => record.answered);
  }

  /**
   * The answered requests of `ids` still kept, each with its entry and the request the listing
   * names just before it (`after`, null for the first), read from the newest down only as far as
   * the oldest of them: what the console's stream asks of each `change` frame, at a cost that
   * does not grow with the journal.
   */
  find(ids: ReadonlySet<string>): Map<string, { entry: JournalEntry; after: string | null }> {
    const found = new Map<string, { entry: JournalEntry; after: string | null }>();
    // A hit whose `after` is the next answered record below it.
    let waiting: { after: string | null } | null = null;
    for (let i = this.records.length - 1; i >= this.first && (waiting || found.size < ids.size); i--) {
      const record = this.records[i]!;
      if (!record.answered) continue;
      if (waiting) {
        waiting.after = record.requestId;
        waiting = null;
      }
      if (ids.has(record.requestId)) {
        waiting = { after: null };
        found.set(record.requestId, Object.assign(waiting, { entry: record.entry() }));
      }
    }
    return found;
  }

  reset(): void {
    this.records = [];
    this.first = 0;
    this.bytes = 0;
  }

  /** Drops the oldest record; the dropped ones are cut off the array a batch at a time, so a request costs O(1). */
  private trim(): void {
    const dropped = this.records[this.first];
    if (dropped !== undefined) this.bytes -= dropped.bytes;
    this.first++;
    if (this.first < Math.max(1024, this.limit >> 2)) return;
    const cut = this.records.slice(0, this.first);
    this.records = this.records.slice(this.first);
    this.first = 0;
    this.forgetting?.(cut.filter((record) => record.answered));
  }
}
