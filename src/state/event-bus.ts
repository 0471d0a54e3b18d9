import type { SeededRandom } from '../core/random.js';
import { iso } from '../core/time.js';
import type { EventType, SandboxEvent } from './event-types.js';

/** An event as the bus keeps it: the public envelope plus the account it belongs to. */
export interface LoggedEvent {
  account: string;
  event: SandboxEvent;
}

export type EventListener = (event: SandboxEvent, account: string) => void;

/**
 * The sandbox's event bus: every emitted event is appended to an ordered log and handed,
 * synchronously and in emission order, to each subscriber (webhook delivery, the user's
 * own listeners). A subscriber that throws is reported to `onError` and never stops the
 * others or the simulation.
 */
export class EventBus {
  private readonly log: LoggedEvent[] = [];
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly random: SeededRandom,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Emits an event of `account` now; `data` is a snapshot of the resource at this instant. */
  publish(account: string, type: EventType, data: Record<string, unknown>): SandboxEvent {
    const event: SandboxEvent = {
      id: this.random.id('evt'),
      type,
      created_at: iso(this.now()),
      data,
    };
    this.log.push({ account, event });
    for (const listener of this.listeners) {
      try {
        listener(event, account);
      } catch (error) {
        this.onError(error);
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The log in emission order, optionally narrowed to one account and/or type. */
  entries(filter: { account?: string; type?: EventType } = {}): LoggedEvent[] {
    return this.log.filter(
      (entry) =>
        (filter.account === undefined || entry.account === filter.account) &&
        (filter.type === undefined || entry.event.type === filter.type),
    );
  }

  clear(): void {
    this.log.length = 0;
  }
}
