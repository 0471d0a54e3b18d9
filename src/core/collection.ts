/** What every stored resource carries besides its public fields. */
export interface StoredItem {
  readonly id: string;
  readonly account: string;
  /** Insertion order across the whole collection; the position a cursor remembers. */
  readonly seq: number;
  /** Creation instant, epoch ms of the virtual clock. */
  readonly createdMs: number;
  /**
   * `createdMs` as the API writes it, formatted once: every response and every event
   * snapshot of the item then shares this one string (a list page of 50 no longer formats
   * 50 dates, and the event log does not keep a copy per snapshot).
   */
  readonly createdAt: string;
}

export interface PageQuery<T> {
  limit: number;
  /** Return items strictly older (smaller `seq`) than this. */
  beforeSeq?: number;
  createdAfterMs?: number;
  createdBeforeMs?: number;
  where?: (item: T) => boolean;
}

export interface Page<T> {
  items: T[];
  /** `seq` of the last returned item when more match after it. */
  nextSeq: number | null;
}

/**
 * One resource type's storage: items by id, and per account in insertion order, which
 * is also creation order because the virtual clock never goes back. Listing walks one
 * account's array from the newest end, so a page costs the same with a thousand or a
 * million stored items (binary search to the cursor and the date bound, then `limit`
 * steps, plus any items a `where` filter skips).
 */
export class Collection<T extends StoredItem> {
  private readonly byId = new Map<string, T>();
  private readonly byAccount = new Map<string, T[]>();
  private nextSeq = 1;
  // A method's parameter is bivariant: a Collection<Sub> stays a Collection<StoredItem>.
  private watcher: { notify(item: T, removed: boolean): void } | null = null;

  /** Tells `watcher` of every insert, removal and {@link touched} item (the sandbox's change feed, state/changes.ts). */
  watch(watcher: (item: T, removed: boolean) => void): void {
    this.watcher = { notify: watcher };
  }

  /** An item changed in place (its fields were set): tells the watcher. */
  touched(item: T): void {
    this.watcher?.notify(item, false);
  }

  /** The `seq` the next inserted item must carry. */
  allocateSeq(): number {
    return this.nextSeq++;
  }

  insert(item: T): T {
    this.byId.set(item.id, item);
    let list = this.byAccount.get(item.account);
    if (!list) this.byAccount.set(item.account, (list = []));
    list.push(item);
    this.watcher?.notify(item, false);
    return item;
  }

  /** The item if it exists in `account`; another account's item is as absent as a missing one. */
  get(account: string, id: string): T | undefined {
    const item = this.byId.get(id);
    return item && item.account === account ? item : undefined;
  }

  /** Any account's item: for the simulator and the scripting API, never for a request. */
  find(id: string): T | undefined {
    return this.byId.get(id);
  }

  remove(item: T): void {
    this.byId.delete(item.id);
    const list = this.byAccount.get(item.account);
    const at = list ? lowerBound(list, item.seq, (x) => x.seq) : -1;
    if (list && list[at] === item) list.splice(at, 1);
    this.watcher?.notify(item, true);
  }

  /** Every item of every account, newest first (for the scripting API and the console, never for a request). */
  all(): T[] {
    return [...this.byId.values()].sort((a, b) => b.seq - a.seq);
  }

  /** Newest first. */
  page(account: string, query: PageQuery<T>): Page<T> {
    const list = this.byAccount.get(account) ?? [];
    // Index of the first item that must not be returned, walking down from there.
    let end = list.length;
    if (query.beforeSeq !== undefined)
      end = Math.min(
        end,
        lowerBound(list, query.beforeSeq, (x) => x.seq),
      );
    if (query.createdBeforeMs !== undefined)
      end = Math.min(
        end,
        lowerBound(list, query.createdBeforeMs, (x) => x.createdMs),
      );
    const items: T[] = [];
    for (let i = end - 1; i >= 0; i--) {
      const item = list[i]!;
      if (query.createdAfterMs !== undefined && item.createdMs <= query.createdAfterMs) break;
      if (query.where && !query.where(item)) continue;
      if (items.length === query.limit) return { items, nextSeq: items[items.length - 1]!.seq };
      items.push(item);
    }
    return { items, nextSeq: null };
  }

  /** Forgets every item; positions start over, as in a new collection. */
  clear(): void {
    this.byId.clear();
    this.byAccount.clear();
    this.nextSeq = 1;
  }

  /** Whether `seq` was handed out by this collection since it was made or cleared. */
  issued(seq: number): boolean {
    return seq >= 1 && seq < this.nextSeq;
  }

  /** The item of `account` at position `seq`, if it is still there. */
  atSeq(account: string, seq: number): T | undefined {
    const list = this.byAccount.get(account);
    if (!list) return undefined;
    const item = list[lowerBound(list, seq, (x) => x.seq)];
    return item?.seq === seq ? item : undefined;
  }
}

/** First index whose key is >= `value` in an array sorted by `key`. */
function lowerBound<T>(list: readonly T[], value: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]!) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
