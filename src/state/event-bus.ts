import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import type { Steps } from '../core/steps.js';
import { iso } from '../core/time.js';
import type { EventData, EventType, SandboxEvent } from './events.js';

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
  /**
   * Each event by id, for lookups that must not walk the log. Filled on the first lookup after
   * events were appended (up to {@link indexed}), not as each is published: only the scripting
   * API and the console look events up, and a request that publishes one then costs no insert
   * into a map that grows with the log.
   */
  private byId = new Map<string, LoggedEvent>();
  /** How many of the log's events {@link byId} holds. */
  private indexed = 0;
  private gen = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly watchers = new Set<() => void>();
  private watchQueued = false;

  constructor(private readonly deps: EventBusDeps) {}

  /** Emits an event of `account` now; `data` is a snapshot of the resource at this instant. */
  publish<K extends EventType>(account: string, type: K, data: EventData[K]): SandboxEvent<K> {
    const event = { id: this.deps.random.id('evt'), type, created_at: iso(this.deps.now()), data } as SandboxEvent<K>;
    const entry: LoggedEvent = { account, event: event as SandboxEvent };
    this.log.push(entry);
    this.deps.events.emit('event:published', entry);
    if (this.listeners.size > 0) this.deps.steps.after(() => this.notify(entry));
    if (this.watchers.size > 0 && !this.watchQueued) {
      this.watchQueued = true;
      this.deps.steps.after(() => this.wakeWatchers());
    }
    return event;
  }

  /** How many events the log holds: the position of the last one (positions count from 1). */
  get length(): number {
    return this.log.length;
  }

  /** Changes at every reset: a position read before it names an event of a log that is gone. */
  get generation(): number {
    return this.gen;
  }

  /**
   * The events after position `after` (0 for the first), at most `limit` of them, as the log
   * holds them: the caller reads them and never changes them. Costs `limit`, whatever the
   * length of the log.
   */
  after(after: number, limit: number): SandboxEvent[] {
    const end = Math.min(this.log.length, after + limit);
    return this.log.slice(Math.max(0, after), end).map((logged) => logged.event);
  }

  /** The event with this id, as the log holds it (read it, never change it). */
  find(id: string): SandboxEvent | undefined {
    return this.lookup(id)?.event;
  }

  /** The account of the event with this id ('' if the log does not hold it). */
  accountOf(id: string): string {
    return this.lookup(id)?.account ?? '';
  }

  private lookup(id: string): LoggedEvent | undefined {
    for (const entry of this.log.slice(this.indexed)) this.byId.set(entry.event.id, entry);
    this.indexed = this.log.length;
    return this.byId.get(id);
  }

  /**
   * Calls `wake` once after each step that appended events, and at each reset (read what
   * changed with {@link length}, {@link generation} and {@link after}). For the server's
   * streams: one call per step, however many events it made. Returns the function that stops it.
   */
  watch(wake: () => void): () => void {
    this.watchers.add(wake);
    return () => void this.watchers.delete(wake);
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
    this.byId = new Map();
    this.indexed = 0;
    this.gen++;
    // Steps forgot the queued wake-up (they stop before parts reset): wake the watchers now.
    this.watchQueued = false;
    this.wakeWatchers();
  }

  private wakeWatchers(): void {
    this.watchQueued = false;
    for (const wake of [...this.watchers]) wake();
  }

  private notify(entry: LoggedEvent): void {
    // A listener removed before this event's step ended does not get it.
    for (const listener of [...this.listeners]) listener(entry.event, entry.account);
  }
}
