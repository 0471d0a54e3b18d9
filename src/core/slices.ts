import * as timers from 'node:timers';

/**
 * How long (real milliseconds) long work runs before it lets the event loop take other work: a
 * scenario between two steps, an `advance` between two instants (docs/server.md, "Limits").
 * On the server, other sessions, `/__sandbox/health` and a `DELETE` of the session itself are
 * answered within about one slice however long the work is; a slice costs one macrotask
 * turn (some microseconds), about 1% of the work at this length.
 */
export const SLICE_MS = 10;

/**
 * Real time and the real `setImmediate`, taken when this module loads, as the clock takes the
 * wall clock (core/clock.ts): a test's `vi.useFakeTimers()` installed later neither freezes a
 * pause (a faked `setImmediate` would never fire unless the test ticked it) nor stops the count.
 */
const realNow = performance.now.bind(performance);
const realImmediate = timers.setImmediate;

/**
 * The slices of one long piece of work. At each point where it may be interrupted (between two
 * scenario steps, two instants of an advance) the work asks whether its slice is {@link Slices.due};
 * when it is, it awaits {@link Slices.pause}, the next macrotask turn, in which the I/O that arrived
 * meanwhile (other requests, other sessions' work) runs first.
 *
 * The work itself sees no difference: it runs on the virtual clock, which a pause does not move,
 * so its results and timeline are the same byte for byte. What runs in a pause and touches the
 * same sandbox (a request of another client of the same session) lands between two steps or two
 * instants, at the virtual time reached: as it would between two calls of a test that awaits each.
 *
 * @example
 * const slices = new Slices();
 * for (const step of steps) {
 *   if (slices.due) await slices.pause();
 *   await perform(step);
 * }
 */
export class Slices {
  private started = realNow();

  constructor(private readonly ms = SLICE_MS) {}

  /** Whether this slice has used its time: then the work pauses. */
  get due(): boolean {
    return realNow() - this.started >= this.ms;
  }

  /** The next macrotask turn, which starts a new slice. Ask it when {@link due}: until then, going on costs no promise, no microtask. */
  pause(): Promise<void> {
    return new Promise((resolve) =>
      realImmediate(() => {
        this.started = realNow();
        resolve();
      }),
    );
  }
}
