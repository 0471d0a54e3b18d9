import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import type { Steps } from '../core/steps.js';
import { iso } from '../core/time.js';
import type { EventData, EventType, SandboxEvent } from './resources.js';

/** An event as the bus keeps it: the public envelope plus the account it belongs to. */
export interface LoggedEvent {
  account: string;
  event: SandboxEvent;
}

/** What the bus announces inside the sandbox (webhook delivery listens). */
export interface BusEvents {
  'event:published': LoggedEvent;
}

export type EventListener = (event: SandboxEvent, account: string) => void;

interface EventBusDeps {
  random: SeededRandom;
  now: () => number;
  events: Channel<BusEvents>;
  steps: Steps;
}

/**
 * The platform events of one sandbox: every event is appended to an ordered log and
 * announced at once inside the sandbox (`event.published`: webhook delivery starts its
 * attempts there). The user's listeners (`sandbox.events.subscribe`) are called when the
 * step that emitted the event ends, in emission order, so they always find the sandbox
 * between two steps (core/steps.ts).
 */
export class EventBus implements Service {
  private log: LoggedEvent[] = [];
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly deps: EventBusDeps) {}

  /** Emits an event of `account` now; `data` is a snapshot of the resource at this instant. */
  publish<K extends EventType>(account: string, type: K, data: EventData[K]): SandboxEvent<K> {
    const event = { id: this.deps.random.id('evt'), type, created_at: iso(this.deps.now()), data } as SandboxEvent<K>;
    const entry: LoggedEvent = { account, event: event as SandboxEvent };
    this.log.push(entry);
    this.deps.events.emit('event:published', entry);
    if (this.listeners.size > 0) this.deps.steps.after(() => this.notify(entry));
    return event;
  }

  /** Calls `listener` with each later event, between steps. Returns the function that unsubscribes. */
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

  reset(): void {
    this.log = [];
  }

  private notify(entry: LoggedEvent): void {
    // A listener removed before this event's step ended does not get it.
    for (const listener of [...this.listeners]) listener(entry.event, entry.account);
  }
}
