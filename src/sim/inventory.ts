import { readFixture } from '../core/fixtures.js';
import type { SeededRandom } from '../core/random.js';

/** The kinds of number the service sells (spec: local, toll-free and international). */
export const NUMBER_KINDS = ['local', 'toll_free', 'international'] as const;
export type NumberKind = (typeof NUMBER_KINDS)[number];

/** What a number can carry. Numbers outside the US and Canada take no MMS (fixtures/number-inventory.json). */
export interface NumberCapabilities {
  voice: boolean;
  sms: boolean;
  mms: boolean;
}

/** One number of the pool, provisioned or not. */
export interface InventoryEntry {
  number: string;
  kind: NumberKind;
  /** ISO 3166 alpha-2. */
  country: string;
  areaCode: string;
  capabilities: NumberCapabilities;
  /** Its place in the pool's fixed order; search cursors remember it. */
  position: number;
}

/** Narrows a scan to whole area codes before any number is looked at. */
export interface BlockFilter {
  kind?: NumberKind;
  country?: string;
  areaCode?: string;
}

/** The numbers of one area code of one kind in one country. */
interface Block {
  country: string;
  callingCode: string;
  kind: NumberKind;
  areaCode: string;
  subscriberDigits: number;
  firstDigitMin: number;
  exclude: string[];
  capabilities: NumberCapabilities;
  /** Position of the block's first number in the pool. */
  offset: number;
  /** Its index among the pool's blocks: the per-sandbox drawn numbers are kept by it. */
  index: number;
}

/**
 * The pool of numbers a sandbox can provision (see docs/numbers.md). Its shape (countries,
 * kinds, area codes, capabilities, size) is data in `fixtures/number-inventory.json`;
 * the numbers themselves are drawn per area code from the sandbox's seeded generator, so
 * one seed always gives one pool. Each area code's numbers are drawn the first time it
 * is searched and kept as a small typed array; the pool never changes, and who holds
 * which number is the number service's business.
 */
/** A fixture's blocks, laid out once per process (they are immutable data; the numbers drawn are per sandbox). */
const layouts = new WeakMap<object, { blocks: readonly Block[]; perBlock: number }>();

function layout(fixture: unknown): { blocks: readonly Block[]; perBlock: number } {
  const cached = layouts.get(fixture as object);
  if (cached) return cached;
  const data = fixture as {
    numbers_per_area_code: number;
    countries: Array<{
      country: string;
      calling_code: string;
      kinds: Array<{
        kind: NumberKind;
        area_codes: string[];
        national_digits: number;
        first_digit_min: number;
        exclude_prefixes: string[];
        capabilities: NumberCapabilities;
      }>;
    }>;
  };
  const perBlock = data.numbers_per_area_code;
  const blocks: Block[] = [];
  const seen = new Set<string>();
  for (const country of data.countries) {
    for (const kind of country.kinds) {
      if (!NUMBER_KINDS.includes(kind.kind)) throw new Error(`number-inventory.json: unknown kind ${kind.kind}`);
      for (const areaCode of kind.area_codes) {
        const prefix = `+${country.calling_code}${areaCode}`;
        if (seen.has(prefix)) throw new Error(`number-inventory.json: ${prefix} appears twice`);
        seen.add(prefix);
        const subscriberDigits = kind.national_digits - areaCode.length;
        if (subscriberDigits < 4 || subscriberDigits > 9)
          throw new Error(`number-inventory.json: ${prefix} needs 4 to 9 subscriber digits`);
        // A leading 0 would make two spellings of one number; 1..9 keeps lookup exact.
        if (!(kind.first_digit_min >= 1 && kind.first_digit_min <= 9))
          throw new Error(`number-inventory.json: ${prefix} first_digit_min must be 1 to 9`);
        blocks.push(
          Object.freeze({
            country: country.country,
            callingCode: country.calling_code,
            kind: kind.kind,
            areaCode,
            subscriberDigits,
            firstDigitMin: kind.first_digit_min,
            exclude: kind.exclude_prefixes,
            capabilities: Object.freeze({ ...kind.capabilities }),
            offset: blocks.length * perBlock,
            index: blocks.length,
          }),
        );
      }
    }
  }
  const result = { blocks, perBlock };
  layouts.set(fixture as object, result);
  return result;
}

export class NumberInventory {
  private readonly blocks: readonly Block[];
  /** Subscriber parts per block, ascending: 4 bytes a number, drawn on first use. */
  private readonly drawn: Array<Uint32Array | undefined> = [];
  readonly size: number;
  private readonly perBlock: number;

  constructor(
    private readonly random: SeededRandom,
    fixture: unknown = readFixture('number-inventory.json'),
  ) {
    ({ blocks: this.blocks, perBlock: this.perBlock } = layout(fixture));
    this.size = this.blocks.length * this.perBlock;
  }

  /**
   * Entries at `from` or after in pool order (the fixture's order, then ascending
   * numbers within an area code) whose area code passes `filter`.
   */
  *scan(filter: BlockFilter, from = 0): Generator<InventoryEntry> {
    for (const block of this.blocks) {
      if (block.offset + this.perBlock <= from) continue;
      if (filter.kind !== undefined && block.kind !== filter.kind) continue;
      if (filter.country !== undefined && block.country !== filter.country) continue;
      if (filter.areaCode !== undefined && block.areaCode !== filter.areaCode) continue;
      const subscribers = this.subscribersOf(block);
      for (let i = Math.max(0, from - block.offset); i < subscribers.length; i++) yield this.entry(block, i);
    }
  }

  /** The pool's entry for `number`, or undefined when the pool does not hold it. */
  lookup(number: string): InventoryEntry | undefined {
    for (const block of this.blocks) {
      const prefix = `+${block.callingCode}${block.areaCode}`;
      if (!number.startsWith(prefix) || number.length !== prefix.length + block.subscriberDigits) continue;
      const subscriber = Number(number.slice(prefix.length));
      const index = lowerBound(this.subscribersOf(block), subscriber);
      if (this.subscribersOf(block)[index] === subscriber) return this.entry(block, index);
    }
    return undefined;
  }

  private entry(block: Block, index: number): InventoryEntry {
    return {
      number: `+${block.callingCode}${block.areaCode}${this.drawn[block.index]![index]}`,
      kind: block.kind,
      country: block.country,
      areaCode: block.areaCode,
      capabilities: { ...block.capabilities },
      position: block.offset + index,
    };
  }

  /** Draws the block's numbers from its own seeded stream, so blocks never shift each other. */
  private subscribersOf(block: Block): Uint32Array {
    const drawn = this.drawn[block.index];
    if (drawn) return drawn;
    const next = this.random.stream(`inventory:+${block.callingCode}${block.areaCode}`);
    const low = block.firstDigitMin * 10 ** (block.subscriberDigits - 1);
    const span = 10 ** block.subscriberDigits - low;
    const chosen = new Set<number>();
    while (chosen.size < this.perBlock) {
      const value = low + Math.floor((next() / 4294967296) * span);
      const text = String(value);
      if (!block.exclude.some((prefix) => text.startsWith(prefix))) chosen.add(value);
    }
    const subscribers = Uint32Array.from(chosen).sort();
    this.drawn[block.index] = subscribers;
    return subscribers;
  }
}

function lowerBound(list: Uint32Array, value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
