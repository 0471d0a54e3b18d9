import type { EventBus } from '../state/event-bus.js';
import type { EventType, SandboxEvent } from '../state/event-types.js';

/** Narrows the log to one type and/or one account (named by any of its keys). */
export interface EventFilter {
  type?: EventType;
  apiKey?: string;
}

/** `sandbox.events`: the ordered event log, and listeners on it (docs/scripting.md). */
export interface EventLog {
  /** Emitted events in order (deep copies). */
  list(filter?: EventFilter): SandboxEvent[];
  /**
   * Calls `listener` with each event as it is emitted. If it throws, the error is
   * rethrown by the next `advance()`. Returns the function that unsubscribes.
   */
  subscribe(listener: (event: SandboxEvent) => void, filter?: EventFilter): () => void;
}

/**
 * Builds `sandbox.events`. A listener's error is handed to `onListenerError` (the sandbox
 * rethrows it from the next `advance()`), never stopping the simulation.
 *
 * @example
 * const types = sandbox.events.list({ apiKey: 'SVC_TEST_me' }).map((e) => e.type);
 * const stop = sandbox.events.subscribe((event) => console.log(event.type), { type: 'call.completed' });
 */
export function eventLog(bus: EventBus, accountOf: (apiKey: string, where: string) => string, onListenerError: (error: unknown) => void): EventLog {
  const account = (filter: EventFilter, where: string) => (filter.apiKey === undefined ? undefined : accountOf(filter.apiKey, where));
  return {
    list: (filter = {}) => bus.entries({ type: filter.type, account: account(filter, 'events.list') }).map((entry) => structuredClone(entry.event)),
    subscribe: (listener, filter = {}) => {
      const only = account(filter, 'events.subscribe');
      return bus.subscribe((event, eventAccount) => {
        if ((filter.type && event.type !== filter.type) || (only !== undefined && eventAccount !== only)) return;
        try {
          listener(structuredClone(event));
        } catch (error) {
          onListenerError(error);
        }
      });
    },
  };
}
