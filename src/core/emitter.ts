/**
 * What a part of the sandbox sees of the emitter: the events of its own map. A part takes a
 * `Channel` of the events it emits and listens to; the composition root hands every part
 * the one `Emitter` of the union.
 */
export interface Channel<Events extends object> {
  on<K extends keyof Events>(type: K, listener: (data: Events[K]) => void): () => void;
  emit<K extends keyof Events>(type: K, data: Events[K]): void;
}

/**
 * The sandbox's one event mechanism between its parts: typed by an event map, listeners
 * called synchronously in the order they subscribed (so "store the recording, then count the
 * campaign's call, then publish call.completed" is an order written once, at composition).
 * A listener that throws is reported to `onError` and never stops the others.
 *
 * Each part declares the events it emits as a map (`CallEvents`, `ClockEvents`, ...) and
 * takes an `Emitter` of that map; the composition root makes one emitter for the union.
 *
 * @example
 * const hub = new Emitter<{ 'call:completed': { id: string } }>((e) => console.error(e));
 * const off = hub.on('call:completed', ({ id }) => console.log(id));
 * hub.emit('call:completed', { id: 'call_1' });
 * off();
 */
export class Emitter<Events extends object> implements Channel<Events> {
  private readonly listeners = new Map<keyof Events, Array<(data: never) => void>>();

  constructor(
    private readonly onError: (error: unknown) => void = (error) => {
      throw error;
    },
  ) {}

  on<K extends keyof Events>(type: K, listener: (data: Events[K]) => void): () => void {
    const list = this.listeners.get(type) ?? [];
    this.listeners.set(type, [...list, listener as (data: never) => void]);
    return () => {
      const now = this.listeners.get(type);
      if (now)
        this.listeners.set(
          type,
          now.filter((l) => l !== listener),
        );
    };
  }

  emit<K extends keyof Events>(type: K, data: Events[K]): void {
    const list = this.listeners.get(type);
    if (!list) return;
    // The array is replaced, never changed in place, on subscribe and unsubscribe: a
    // listener that subscribes another during this emit does not see this event.
    for (const listener of list) {
      try {
        (listener as (data: Events[K]) => void)(data);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
