import type { AnsweredRow, ElidedInput } from './snapshots.js';

/**
 * What the request journal notes of an answered request (state/journal.ts `JournalRecord`), and
 * all that coverage counts of it: the snapshot log keeps a reference to it until the request is
 * elided, so an `elided` input can say what its requests were answered with.
 */
export interface AnsweredRecord {
  readonly method: string;
  /** The documented path it matched (`/v1/calls/{id}`), or its own when it matched none. */
  readonly path: string;
  readonly status: number;
  readonly errorCode: string | null;
}

/** Whether two requests were answered alike, as coverage tells them apart. */
export function answeredAlike(a: AnsweredRecord | undefined, b: AnsweredRecord | undefined): boolean {
  return (
    a === b ||
    (a !== undefined &&
      b !== undefined &&
      a.status === b.status &&
      a.errorCode === b.errorCode &&
      a.path === b.path &&
      a.method === b.method)
  );
}

const keyOf = (method: string, path: string, status: number, errorCode: string | null) => `${method} ${status} ${errorCode} ${path}`;

/**
 * An `elided` input of the snapshot log as compaction gathers requests into it (scripting/recorder.ts
 * `compact`): their count, and their rows for coverage (`answered`), one per method, path, status
 * and error code, so a long run of one read is one row. It changes the log's own input in place;
 * the log hands out copies only.
 */
export class Elision {
  /** Its rows by what they count: made when a request first joins it. */
  private rows: Map<string, AnsweredRow> | null = null;

  constructor(readonly input: ElidedInput) {}

  static startingAt(at: number): Elision {
    return new Elision({ kind: 'elided', at, requests: 0 });
  }

  /** `times` requests answered as `record` says; without a record they are counted but have no row. */
  add(times: number, record: AnsweredRecord | undefined): void {
    this.input.requests += times;
    if (record) this.count(record.method, record.path, record.status, record.errorCode, times);
  }

  /** Another `elided` input that came next: one input counts both, their rows merged. */
  merge(other: ElidedInput): void {
    this.input.requests += other.requests;
    for (const [method, path, status, errorCode, n] of other.answered ?? []) this.count(method, path, status, errorCode, n);
  }

  private count(method: string, path: string, status: number, errorCode: string | null, n: number): void {
    if (this.rows === null) {
      this.rows = new Map();
      for (const row of this.input.answered ?? []) this.rows.set(keyOf(row[0], row[1], row[2], row[3]), row);
    }
    const key = keyOf(method, path, status, errorCode);
    const row = this.rows.get(key);
    if (row) row[4] += n;
    else {
      const added: AnsweredRow = [method, path, status, errorCode, n];
      this.rows.set(key, added);
      (this.input.answered ??= []).push(added);
    }
  }
}
