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

/** What the pipeline learns while it answers a request, for its journal entry. */
export interface JournalNote {
  requestId: string;
  template: string | null;
  target: string;
  code: string | null;
  message: string | null;
  apiKey: string | null;
}

/**
 * The sandbox's request journal: every request the API answered, oldest first. It keeps the
 * latest {@link JOURNAL_LIMIT} (a suite's worth; a bounded memory however long a server runs),
 * and `reset()` empties it with the rest of the sandbox's state.
 */
export class Journal implements Service {
  private entries: JournalEntry[] = [];
  private watcher: ((entry: JournalEntry) => void) | null = null;

  /**
   * @param forgetting sees the entries a trim is about to drop, so coverage (which outlives the
   * journal's window) counts them before they go (docs/coverage.md).
   */
  constructor(private readonly forgetting?: (entries: readonly JournalEntry[]) => void) {}

  /** Tells `watcher` of every entry recorded, as stores tell theirs (the sandbox's change feed, state/changes.ts). */
  watch(watcher: (entry: JournalEntry) => void): void {
    this.watcher = watcher;
  }

  record(method: string, status: number, note: JournalNote, nowMs: number): void {
    const entry: JournalEntry = {
      requestId: note.requestId,
      method,
      path: note.template ?? note.target,
      target: note.target,
      status,
      errorCode: note.code,
      errorMessage: note.message,
      apiKey: note.apiKey,
      at: iso(nowMs),
    };
    this.entries.push(entry);
    this.watcher?.(entry);
    // Trimmed in batches, so a request costs O(1) however full the journal is.
    if (this.entries.length >= 2 * JOURNAL_LIMIT) {
      this.forgetting?.(this.entries.slice(0, this.entries.length - JOURNAL_LIMIT));
      this.entries = this.entries.slice(-JOURNAL_LIMIT);
    }
  }

  /** Every entry held, the not yet trimmed ones beyond the limit too: each request once, for coverage. */
  held(): readonly JournalEntry[] {
    return this.entries;
  }

  /** The kept entries, oldest first (the latest {@link JOURNAL_LIMIT} at most). */
  list(): readonly JournalEntry[] {
    return this.entries.length > JOURNAL_LIMIT ? this.entries.slice(-JOURNAL_LIMIT) : this.entries;
  }

  reset(): void {
    this.entries = [];
  }
}

/** How many requests the journal keeps. */
export const JOURNAL_LIMIT = 10_000;
