import { object, oneOf, optional, string } from '../core/schema.js';
import type { EventBus } from '../state/event-bus.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from '../state/events.js';
import { accountOf, check, type ControlContext, read } from './context.js';

/** For the server's readers of the log (show's index): an event, and the call it belongs to (from the event registry). */
export { callOfEvent } from '../state/events.js';
export type { SandboxEvent } from '../state/events.js';

/** Narrows the log to one type and/or one account (named by any of its keys). */
export interface EventFilter<K extends EventType = EventType> {
  type?: K;
  apiKey?: string;
}

const filterSchema = object(
  {
    type: optional(oneOf(EVENT_TYPES, 'An event type.')),
    apiKey: optional(string({ description: 'An API key of the account', max: 200 })),
  },
  { description: 'Narrows the event log.', label: 'option' },
);

/** `sandbox.events`: the ordered event log, and listeners on it (docs/scripting.md). */
export interface EventLog {
  /** Emitted events in order (deep copies); with `type`, typed as that event. */
  list<K extends EventType = EventType>(filter?: EventFilter<K>): SandboxEvent<K>[];
  /**
   * Calls `listener` with each event, when the step that emitted it has ended (so the
   * listener may script the sandbox, or reset or close it). If it throws, the error is
   * rethrown by the next `advance()`. Returns the function that unsubscribes.
   */
  subscribe<K extends EventType = EventType>(listener: (event: SandboxEvent<K>) => void, filter?: EventFilter<K>): () => void;
}

/**
 * The log by position, for the standalone server (its streams, `advance`'s answer, the
 * paginated event list): what it reads costs what it returns, never the length of the log.
 * Internal: not part of `sandbox.events`. The events are the log's own objects: serialise
 * them, never change them.
 */
export interface EventPositions {
  /** How many events the log holds (positions count from 1, as the stream's `id`s do). */
  readonly length: number;
  /** Changes at every reset: positions read before it belong to a log that is gone. */
  readonly generation: number;
  /** At most `limit` events after position `after`, oldest first. */
  after(after: number, limit: number): readonly SandboxEvent[];
  /** The event with this id, if the log holds it. */
  find(id: string): SandboxEvent | undefined;
  /** Calls `wake` after each step that appended events, and at each reset. Returns the function that stops it. */
  watch(wake: () => void): () => void;
}

/** The positions view of a sandbox's event log (see {@link EventPositions}), for the standalone server. */
export function eventPositions(bus: EventBus): EventPositions {
  return {
    get length() {
      return bus.length;
    },
    get generation() {
      return bus.generation;
    },
    after: (after, limit) => bus.after(after, limit),
    find: (id) => bus.find(id),
    watch: (wake) => bus.watch(wake),
  };
}

/**
 * Builds `sandbox.events`. A listener's error is handed to `onListenerError` (the sandbox
 * rethrows it from the next `advance()`), never stopping the simulation.
 *
 * @example
 * const types = sandbox.events.list({ apiKey: 'SVC_TEST_me' }).map((e) => e.type);
 * const stop = sandbox.events.subscribe((event) => console.log(event.data.disposition), { type: 'call.completed' });
 */
export function eventLog(ctx: ControlContext, bus: EventBus, onListenerError: (error: unknown) => void): EventLog {
  const resolve = (filter: EventFilter | undefined, where: string) => {
    const { type, apiKey } = check(filterSchema, filter ?? {}, `events.${where}`);
    return { type, account: apiKey === undefined ? undefined : accountOf(ctx, apiKey, `events.${where}`) };
  };
  const log: EventLog = {
    list: read(<K extends EventType>(filter?: EventFilter<K>) =>
      bus.entries(resolve(filter, 'list')).map((entry) => structuredClone(entry.event) as SandboxEvent<K>),
    ),
    subscribe: read(<K extends EventType>(listener: (event: SandboxEvent<K>) => void, filter?: EventFilter<K>) => {
      ctx.assertOpen('subscribe to events');
      const only = resolve(filter, 'subscribe');
      return bus.subscribe((event, account) => {
        if ((only.type && event.type !== only.type) || (only.account !== undefined && account !== only.account)) return;
        try {
          listener(structuredClone(event) as SandboxEvent<K>);
        } catch (error) {
          onListenerError(error);
        }
      });
    }),
  };
  return log;
}
