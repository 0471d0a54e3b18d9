import type { VirtualClock } from '../core/clock.js';
import { RuleViolation } from '../core/errors.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso } from '../core/time.js';
import type { BlockFilter, InventoryEntry, NumberCapabilities, NumberInventory, NumberKind } from '../sim/inventory.js';
import type { Network } from './network.js';
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
  network: Network;
}

/**
 * The number to provision: one by its E.164 text, or the first free pool entry that passes a
 * search (`describe` says the criteria in words, `param` names the first of them).
 */
export type WantedNumber =
  | { number: string }
  | { filter: BlockFilter; matches: (number: string) => boolean; describe: string; param: string };

/** Where a routing's target is given, for the refusals that name it. */
const TARGET = 'routing.target';

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

  /**
   * Gives the wanted number to `account`, configured. Refused, changing nothing, when it is
   * held or not in the pool, when no free number matches, or when the configuration breaks a
   * routing rule (see {@link checkConfig}); the configuration is checked before any number
   * is looked for.
   */
  provision(account: string, wanted: WantedNumber, config: NumberConfig): NumberRecord {
    this.checkConfig(config, 'number' in wanted ? wanted.number : null);
    const entry = this.take(wanted);
    this.checkConfig(config, entry.number);
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

  /** Replaces the aspects `config` names (refused, changing nothing, if it breaks a routing rule). */
  configure(record: NumberRecord, config: NumberConfig): void {
    this.checkConfig(config, record.number);
    if (config.routing !== undefined) record.routing = config.routing && { ...config.routing };
    if (config.callerIdName !== undefined) record.callerIdName = config.callerIdName;
    if (config.smsEnabled !== undefined) record.smsEnabled = config.smsEnabled;
    this.store.touched(record);
  }

  /**
   * The routing rules that depend on more than the request's shape: a number may not forward
   * to itself (400), nor to a destination no carrier serves (422 `unreachable_destination`).
   * `own` is the number being configured, or null while it is not known yet.
   */
  checkConfig(config: NumberConfig, own: string | null): void {
    const routing = config.routing;
    if (routing?.type !== 'forward' || routing.target === null) return;
    if (routing.target === own)
      throw new RuleViolation('invalid_parameter', `\`${TARGET}\` cannot be ${own} itself: forward to another number.`, TARGET);
    this.deps.network.assertReachable(routing.target, TARGET, 'Forward to another number');
  }

  /** The free pool entry `wanted` names; a held number is refused exactly as an unknown one is, so nobody learns who holds what. */
  private take(wanted: WantedNumber): InventoryEntry {
    if ('number' in wanted) {
      const entry = this.deps.inventory.lookup(wanted.number);
      if (!entry || this.held.has(wanted.number)) {
        const why = entry ? 'is already provisioned' : "is not in the sandbox's number pool";
        throw new RuleViolation('number_unavailable', `${wanted.number} ${why}: pick an available number from GET /v1/numbers.`, 'number');
      }
      return entry;
    }
    const first = this.available(wanted.filter, wanted.matches).next();
    if (first.done)
      throw new RuleViolation(
        'number_unavailable',
        `No available number matches ${wanted.describe}: widen the criteria, or search GET /v1/numbers.`,
        wanted.param,
      );
    return first.value;
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
