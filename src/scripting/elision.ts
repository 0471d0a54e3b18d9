import type { AnsweredRow, ElidedInput } from './snapshots.js';

/**
 * What the request journal notes of an answered request (state/journal.ts `JournalRecord`), and
 * all that coverage counts of it: the snapshot log keeps a reference to it until the request is
 * elided, so an `elided` input can say what its requests were answered with.
 */
export interface AnsweredRecord {
  readonly method: string;
  /** The documented path it matched (`/v1/calls/{id}`); the request's own, or `/` once the log holds it, when it matched none. */
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

/** What tells answers apart as coverage counts them: one text of method, status, error code and path. */
export const answerKey = (method: string, path: string, status: number, errorCode: string | null) =>
  `${method} ${status} ${errorCode} ${path}`;

/**
 * An `elided` input of the snapshot log as compaction gathers requests into it (scripting/recorder.ts
 * `compact`): their count, their rows for coverage (`answered`), one per method, path, status
 * and error code, so a long run of one read is one row, and, for requests of the rate window
 * that later requests share ({@link inWindow}), how many each window counted (`windows`). It
 * changes the log's own input in place; the log hands out copies only.
 */
export class Elision {
  /** Its rows by what they count: made when a request first joins it. */
  private rows: Map<string, AnsweredRow> | null = null;
  /** Its windows' counts by window: made when a request first counts in one. */
  private windows: Map<string, [string, number]> | null = null;

  constructor(
    readonly input: ElidedInput,
    /** Its requests share the rate window of the requests kept after them: each one's window is counted. */
    readonly inWindow = input.windows !== undefined,
  ) {}

  static startingAt(at: number, inWindow: boolean): Elision {
    return new Elision({ kind: 'elided', at, requests: 0 }, inWindow);
  }

  /**
   * `times` requests answered as `record` says (without a record they are counted but have no
   * row), counted in the rate window `bucket` (null: in none, or in a window that is over).
   */
  add(times: number, record: AnsweredRecord | undefined, bucket: string | null): void {
    this.input.requests += times;
    if (record) this.count(record.method, record.path, record.status, record.errorCode, times);
    if (bucket !== null && this.inWindow) this.countIn(bucket, times);
  }

  /** Another `elided` input that came next, of the same kind ({@link inWindow} or not): one input counts both, their rows merged. */
  merge(other: ElidedInput): void {
    this.input.requests += other.requests;
    for (const [method, path, status, errorCode, n] of other.answered ?? []) this.count(method, path, status, errorCode, n);
    for (const [bucket, n] of other.windows ?? []) this.countIn(bucket, n);
  }

  private count(method: string, path: string, status: number, errorCode: string | null, n: number): void {
    if (this.rows === null) {
      this.rows = new Map();
      for (const row of this.input.answered ?? []) this.rows.set(answerKey(row[0], row[1], row[2], row[3]), row);
    }
    const key = answerKey(method, path, status, errorCode);
    const row = this.rows.get(key);
    if (row) row[4] += n;
    else {
      const added: AnsweredRow = [method, path, status, errorCode, n];
      this.rows.set(key, added);
      (this.input.answered ??= []).push(added);
    }
  }

  private countIn(bucket: string, n: number): void {
    if (this.windows === null) this.windows = new Map((this.input.windows ?? []).map((window) => [window[0], window]));
    const window = this.windows.get(bucket);
    if (window) window[1] += n;
    else {
      const added: [string, number] = [bucket, n];
      this.windows.set(bucket, added);
      (this.input.windows ??= []).push(added);
    }
  }
}
