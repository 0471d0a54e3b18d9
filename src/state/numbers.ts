import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso } from '../core/time.js';
import type { BlockFilter, InventoryEntry, NumberCapabilities, NumberInventory, NumberKind } from '../sim/inventory.js';
import type { AvailableNumber, NumberRouting, PhoneNumber } from './resources.js';

/** A provisioned number as stored. */
export interface NumberRecord extends StoredItem {
  number: string;
  kind: NumberKind;
  country: string;
  areaCode: string;
  capabilities: NumberCapabilities;
  routing: NumberRouting | null;
  callerIdName: string | null;
  smsEnabled: boolean;
}

/** The aspects PUT /v1/numbers/{id} (or POST) sets; an absent one is left as it is. */
export interface NumberConfig {
  routing?: NumberRouting | null;
  callerIdName?: string | null;
  smsEnabled?: boolean;
}

interface NumberServiceDeps {
  clock: VirtualClock;
  random: SeededRandom;
  inventory: NumberInventory;
}

/**
 * The numbers accounts hold. The pool is shared by every account of the sandbox: a
 * number held by one is unavailable to all others until released, and a released
 * number is forgotten (its id is 404) and back in the pool.
 */
export class NumberService implements Service {
  readonly store = new Collection<NumberRecord>();
  /** Every held number, by its E.164 text. */
  private readonly held = new Map<string, NumberRecord>();

  constructor(private readonly deps: NumberServiceDeps) {}

  get inventory(): NumberInventory {
    return this.deps.inventory;
  }

  /** The record of whoever holds `number`, if anyone does. */
  holderOf(number: string): NumberRecord | undefined {
    return this.held.get(number);
  }

  /** Pool entries from `from` on that nobody holds and that pass the filters. */
  *available(filter: BlockFilter, matches: (number: string) => boolean, from = 0): Generator<InventoryEntry> {
    for (const entry of this.deps.inventory.scan(filter, from)) {
      if (!this.held.has(entry.number) && matches(entry.number)) yield entry;
    }
  }

  /** Gives `entry` (which nobody holds) to `account`. */
  provision(account: string, entry: InventoryEntry, config: NumberConfig): NumberRecord {
    const record = this.store.insert({
      id: this.deps.random.id('num'),
      account,
      seq: this.store.allocateSeq(),
      createdMs: this.deps.clock.now(),
      createdAt: iso(this.deps.clock.now()),
      number: entry.number,
      kind: entry.kind,
      country: entry.country,
      areaCode: entry.areaCode,
      capabilities: entry.capabilities,
      routing: null,
      callerIdName: null,
      smsEnabled: entry.capabilities.sms,
    });
    this.held.set(record.number, record);
    this.configure(record, config);
    return record;
  }

  /** Replaces the aspects `config` names. */
  configure(record: NumberRecord, config: NumberConfig): void {
    if (config.routing !== undefined) record.routing = config.routing && { ...config.routing };
    if (config.callerIdName !== undefined) record.callerIdName = config.callerIdName;
    if (config.smsEnabled !== undefined) record.smsEnabled = config.smsEnabled;
  }

  /** Releases the number for good: the record is gone and the number is back in the pool. */
  release(record: NumberRecord): void {
    this.store.remove(record);
    this.held.delete(record.number);
  }

  toJson(record: NumberRecord): PhoneNumber {
    return {
      id: record.id,
      number: record.number,
      kind: record.kind,
      country: record.country,
      area_code: record.areaCode,
      capabilities: { ...record.capabilities },
      routing: record.routing && { ...record.routing },
      caller_id: record.callerIdName === null ? null : { name: record.callerIdName },
      sms: { enabled: record.smsEnabled },
      status: 'provisioned',
      created_at: record.createdAt,
    };
  }

  availableJson(entry: InventoryEntry): AvailableNumber {
    return {
      number: entry.number,
      kind: entry.kind,
      country: entry.country,
      area_code: entry.areaCode,
      capabilities: { ...entry.capabilities },
      status: 'available',
    };
  }

  reset(): void {
    this.store.clear();
    this.held.clear();
  }
}
