import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso } from '../core/time.js';
import type { WebhookSubscription } from './resources.js';
import type { EventType } from './events.js';

/** A webhook subscription as stored. */
export interface SubscriptionRecord extends StoredItem {
  url: string;
  /** The event types it receives, in the order the request named them. */
  events: EventType[];
  secret: string;
}

/** What the subscription store announces (webhook delivery cancels what was pending). */
export interface SubscriptionEvents {
  'subscription:removed': { subscription: SubscriptionRecord };
}

/**
 * Every webhook subscription of one sandbox, per account. Ids and secrets come from the
 * seeded generator, so the same seed and the same requests give the same secrets: the
 * sandbox is for tests, not for keeping anything secret.
 */
export class Subscriptions implements Service {
  readonly store = new Collection<SubscriptionRecord>();

  constructor(private readonly deps: { clock: VirtualClock; random: SeededRandom; events: Channel<SubscriptionEvents> }) {}

  /** Stores a subscription; the caller has validated `url` and `events`. */
  create(account: string, url: string, events: EventType[]): SubscriptionRecord {
    const { random, clock } = this.deps;
    // `whsec_` and 32 characters: two draws of the secret's own id stream.
    const secret = `${random.id('whsec')}${random.id('whsec').slice('whsec_'.length)}`;
    const now = clock.now();
    return this.store.insert({
      id: random.id('wh'),
      account,
      seq: this.store.allocateSeq(),
      createdMs: now,
      createdAt: iso(now),
      url,
      events,
      secret,
    });
  }

  /** Removes a subscription: its pending deliveries are canceled; an attempt in flight ends as it ends. */
  remove(subscription: SubscriptionRecord): void {
    this.store.remove(subscription);
    this.deps.events.emit('subscription:removed', { subscription });
  }

  /** Whether `subscription` is still stored (a dead letter of a removed one cannot be replayed). */
  exists(subscription: SubscriptionRecord): boolean {
    return this.store.find(subscription.id) === subscription;
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

  reset(): void {
    this.store.clear();
  }
}
