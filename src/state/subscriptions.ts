import type { VirtualClock } from '../core/clock.js';
import type { SeededRandom } from '../core/random.js';
import { Collection, type StoredItem } from '../core/collection.js';
import { iso } from '../core/time.js';
import type { EventType } from './event-types.js';

/** A webhook subscription as stored. */
export interface SubscriptionRecord extends StoredItem {
  url: string;
  /** The event types it receives, in the order the request named them. */
  events: EventType[];
  secret: string;
}

/**
 * The subscription resource as the API shows it (CONTRACT §5). `secret` appears only in
 * the create response (see docs/webhooks.md).
 */
export interface WebhookSubscription {
  id: string;
  url: string;
  events: EventType[];
  secret?: string;
  created_at: string;
}

/**
 * Every webhook subscription of one sandbox, per account. Ids and secrets come from the
 * seeded generator, so the same seed and the same requests give the same secrets: the
 * sandbox is for tests, not for keeping anything secret.
 */
export class Subscriptions {
  readonly store = new Collection<SubscriptionRecord>();

  constructor(private readonly deps: { clock: VirtualClock; random: SeededRandom }) {}

  /** Stores a subscription; the caller has validated `url` and `events`. */
  create(account: string, url: string, events: EventType[]): SubscriptionRecord {
    const { random, clock } = this.deps;
    // `whsec_` and 32 characters: two draws of the secret's own id stream.
    const secret = `${random.id('whsec')}${random.id('whsec').slice('whsec_'.length)}`;
    const now = clock.now();
    return this.store.insert({ id: random.id('wh'), account, seq: this.store.allocateSeq(), createdMs: now, createdAt: iso(now), url, events, secret });
  }

  /** The account's subscriptions that receive `type`, oldest first. */
  matching(account: string, type: EventType): SubscriptionRecord[] {
    const { items } = this.store.page(account, { limit: Number.MAX_SAFE_INTEGER, where: (s) => s.events.includes(type) });
    return items.reverse();
  }

  toJson(record: SubscriptionRecord, withSecret = false): WebhookSubscription {
    return {
      id: record.id,
      url: record.url,
      events: [...record.events],
      ...(withSecret ? { secret: record.secret } : {}),
      created_at: record.createdAt,
    };
  }
}
