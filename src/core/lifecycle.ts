/**
 * A part of the sandbox that holds state or pending work. Every such part is registered
 * once, at composition (src/sandbox.ts), so `reset()` and `close()` reach all of them:
 * forgetting one is not possible by omission.
 */
export interface Service {
  /** Cancels pending work: timers, attempts in flight, open streams. Called by reset and close. */
  stop?(): void;
  /** Forgets every record and setting, as a new sandbox with the same options has none. */
  reset?(): void;
}

/**
 * The lifecycle of one sandbox: its services, the undo of each side effect it made on the
 * process (interception), and its generation, which `reset()` and `close()` advance so that
 * work begun before (a request waiting for its body, an `advance()` in progress, a webhook
 * attempt in flight) can tell it belongs to a world that is gone.
 */
export class Lifecycle {
  private readonly services: Service[] = [];
  private readonly undo: Array<() => void> = [];
  private gen = 0;
  private state: 'open' | 'closed' = 'open';

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Registers `service`; returns it, so composition reads `const calls = life.add(new CallService(...))`. */
  add<T extends Service>(service: T): T {
    this.services.push(service);
    return service;
  }

  /** Registers the undo of a side effect on the process; `close()` runs undos newest first. */
  defer(undo: () => void): void {
    this.undo.push(undo);
  }

  /** Increases at every reset and at close. */
  get generation(): number {
    return this.gen;
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** Stops every service, then resets every one, in registration order. */
  reset(): void {
    this.gen++;
    this.each((s) => s.stop?.());
    this.each((s) => s.reset?.());
  }

  /** Stops every service and undoes every side effect. Idempotent. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.gen++;
    for (const undo of this.undo.splice(0).reverse()) this.guard(undo);
    this.each((s) => s.stop?.());
  }

  private each(fn: (service: Service) => void): void {
    for (const service of this.services) this.guard(() => fn(service));
  }

  /** One failing service must not leave the others unreset: its error is recorded. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.onError(error);
    }
  }
}
