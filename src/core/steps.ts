import type { Service } from './lifecycle.js';

/**
 * Steps: the units in which the sandbox changes its state (a request, a timer of the
 * virtual clock, a scripting call). Work handed to {@link Steps.after} (the user's event
 * listeners) runs when the outermost step ends, never in the middle of one. So a listener
 * that calls `reset()`, `close()` or `calls.hangUp()` finds the sandbox between two steps,
 * with every record consistent, instead of pulling the stores out from under the code that
 * emitted the event (docs/clock-and-determinism.md).
 */
export class Steps implements Service {
  private depth = 0;
  private queue: Array<() => void> = [];
  private draining = false;
  /** Told when an outermost step starts and ends (the realtime clock catches up with the wall clock there). */
  onOutermost: { start(): void; end(): void } | null = null;

  /** `onError` receives what queued work throws; the rest of the queue still runs. */
  constructor(private readonly onError: (error: unknown) => void) {}

  /** Runs `fn` as a step (or as part of the step in progress). */
  run<T>(fn: () => T): T {
    const outer = this.onOutermost !== null && this.depth === 0 && !this.draining ? this.onOutermost : null;
    outer?.start();
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      if (this.depth === 0) this.drain();
      outer?.end();
    }
  }

  /** A step (or the listeners after one) is running. */
  get busy(): boolean {
    return this.depth > 0 || this.draining;
  }

  /** Runs `fn` once no step is in progress: at the end of the current one, or now. */
  after(fn: () => void): void {
    this.queue.push(fn);
    if (this.depth === 0) this.drain();
  }

  /** Forgets queued work (reset, close): nothing from before runs after. */
  stop(): void {
    this.queue = [];
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      // Queued work may start steps that queue more; it all runs here, in order.
      while (this.queue.length > 0) {
        try {
          this.queue.shift()?.();
        } catch (error) {
          this.onError(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
