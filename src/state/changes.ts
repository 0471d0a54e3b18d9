import type { Collection, StoredItem } from '../core/collection.js';
import type { Service } from '../core/lifecycle.js';
import type { Steps } from '../core/steps.js';

/** What a change record is about: a resource of an account, a key, a request the API answered (its journal entry, by request id), or the clock. */
export type ChangeKind =
  | 'call'
  | 'message'
  | 'number'
  | 'recording'
  | 'transcript'
  | 'subscription'
  | 'delivery'
  | 'key'
  | 'request'
  | 'clock';

/** One thing that changed in a step: its kind and id (the reader looks its current state up). */
export interface ChangeRecord {
  kind: ChangeKind;
  id: string;
  /** The account it belongs to ('' for keys, requests and the clock). */
  account: string;
  /** It is gone (a released number, a removed subscription, a revoked key). */
  removed: boolean;
}

/** A batch of records after a step, or `reset`: everything is gone, read it all again. */
export type ChangeBatch = { kind: 'changes'; records: ChangeRecord[] } | { kind: 'reset' };

/**
 * The sandbox's changes as they happen, for readers that mirror its state (the server's
 * console stream, docs/console.md): each part marks what it changed (`touch`), the stores
 * through {@link Collection.watch}, and at the end of the outermost step the marks go out as
 * one batch, each id once. The records carry no copy of the resource: a reader reads the
 * current state of the few ids it is told about, so a step costs what it changed, never the
 * size of the stores. Internal: not part of the public `Sandbox` surface.
 */
export class Changes implements Service {
  private pending = new Map<string, ChangeRecord>();
  private listeners: Array<(batch: ChangeBatch) => void> = [];

  constructor(private readonly steps: Steps) {}

  /** Marks `id` changed in the step in progress (or now, between steps). */
  touch(kind: ChangeKind, id: string, account = '', removed = false): void {
    if (this.listeners.length === 0) return;
    const first = this.pending.size === 0;
    this.pending.set(`${kind}:${id}`, { kind, id, account, removed });
    if (first) this.steps.after(() => this.flush());
  }

  /** Follows a store: every insert and removal, and every `touched` item, is a record of `kind`. */
  follow<T extends StoredItem>(kind: ChangeKind, store: Collection<T>): void {
    store.watch((item, removed) => this.touch(kind, item.id, item.account, removed));
  }

  /** Calls `listener` with each batch; returns the function that stops it. */
  subscribe(listener: (batch: ChangeBatch) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Whatever was pending belongs to the world a reset empties. */
  stop(): void {
    this.pending.clear();
  }

  reset(): void {
    this.pending.clear();
    this.emit({ kind: 'reset' });
  }

  private flush(): void {
    if (this.pending.size === 0) return;
    const records = [...this.pending.values()];
    this.pending.clear();
    this.emit({ kind: 'changes', records });
  }

  private emit(batch: ChangeBatch): void {
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch {
        // A reader's failure is its own: the sandbox goes on.
      }
    }
  }
}
