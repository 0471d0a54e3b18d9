import FakeTimers from '@sinonjs/fake-timers';

/** Node's timers reject delays above 2^31-1 ms; fake-timers mirrors that, so long advances move in chunks. */
const MAX_STEP_MS = 2 ** 31 - 1;

type FakeTimerId = ReturnType<FakeTimers.Clock['setTimeout']>;
const NEVER = -1 as unknown as FakeTimerId;
/** A timer longer than one native timer can be: re-armed in steps; `id` is the current step. */
class LongTimer {
  constructor(public id: FakeTimerId) {}
}
export type TimerHandle = FakeTimerId | LongTimer;

/**
 * The sandbox's one clock: a private @sinonjs/fake-timers clock that installs nothing
 * globally (so a user's `vi.useFakeTimers()` neither moves it nor is moved by it), plus
 * the bookkeeping that lets {@link VirtualClock.advance} wait for asynchronous work such
 * as webhook deliveries that a timer started.
 */
export class VirtualClock {
  private readonly fake: FakeTimers.Clock;
  private readonly inflight = new Set<Promise<unknown>>();
  private queue: Promise<void> = Promise.resolve();
  private readonly moveHooks: Array<() => void> = [];

  /** The adapter XState's `createActor(machine, { clock })` takes. */
  readonly xstateClock = {
    setTimeout: (fn: (...args: unknown[]) => void, ms: number) => this.setTimeout(fn, ms),
    clearTimeout: (id: unknown) => this.clearTimeout(id as TimerHandle),
  };

  /** `onError` receives anything a timer callback throws; the clock itself never throws it on. */
  constructor(startMs: number, private readonly onError: (error: unknown) => void) {
    this.fake = FakeTimers.createClock(startMs, 100_000);
  }

  /** Virtual now, in epoch milliseconds. */
  now(): number {
    return this.fake.now;
  }

  /** Runs `fn` after `ms` of virtual time. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const run = () => {
      try {
        fn();
      } catch (error) {
        this.onError(error);
      }
    };
    if (!(ms > MAX_STEP_MS)) return this.fake.setTimeout(run, Math.max(0, ms || 0));
    // "Until something else happens": a handle that is never armed.
    if (ms === Infinity) return new LongTimer(NEVER);
    // Like Node's, fake-timers would turn a longer delay into 1 ms: re-arm in steps instead.
    const timer = new LongTimer(0 as FakeTimerId);
    const arm = (remaining: number) => {
      timer.id = this.fake.setTimeout(remaining > MAX_STEP_MS ? () => arm(remaining - MAX_STEP_MS) : run, Math.min(remaining, MAX_STEP_MS));
    };
    arm(ms);
    return timer;
  }

  clearTimeout(id: TimerHandle): void {
    if (id instanceof LongTimer) {
      if (id.id !== NEVER) this.fake.clearTimeout(id.id);
    } else this.fake.clearTimeout(id);
  }

  /**
   * Runs `hook` before each step of virtual time, so that work deferred to "still this
   * instant" (a call's machine start) is done before the clock moves past it.
   */
  beforeMove(hook: () => void): void {
    this.moveHooks.push(hook);
  }

  private runMoveHooks(): void {
    for (const hook of this.moveHooks) {
      try {
        hook();
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** Makes `advance` wait for `work` (a delivery in flight, a stream write) before moving on. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.inflight.add(settled);
    void settled.then(() => this.inflight.delete(settled));
    return work;
  }

  /**
   * Moves virtual time forward by `ms`, firing every timer due in the window in time
   * order, and waiting for tracked work after each one, so that work started at an
   * instant (a webhook attempt) settles before later instants run. Time with nothing
   * scheduled costs nothing. Calls queue: a second `advance` starts when the first ends.
   */
  advance(ms: number): Promise<void> {
    const run = this.queue.then(() => this.run(ms));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(ms: number): Promise<void> {
    const end = this.fake.now + ms;
    do {
      await this.settle();
      this.runMoveHooks();
      if (this.fake.countTimers() === 0) {
        // Nothing scheduled: jump straight to the end, however far (idle time is free).
        this.fake.tick(end - this.fake.now);
        break;
      }
      let reached = false;
      // A sentinel timer marks the end of this step; timers due before it (or at the same
      // instant, scheduled earlier) fire first, in order, one at a time.
      this.fake.setTimeout(() => (reached = true), Math.min(end - this.fake.now, MAX_STEP_MS));
      while (!reached) {
        this.runMoveHooks();
        this.fake.next();
        if (this.inflight.size > 0) await this.settle();
      }
      // Timers scheduled at this very instant while the step ran.
      this.runMoveHooks();
      this.fake.tick(0);
      await this.settle();
    } while (this.fake.now < end);
  }

  /** Waits until no tracked work is in flight (work may start more work). */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** Drops every pending timer without firing it; virtual now stays where it is. */
  cancelAll(): void {
    this.reset(this.fake.now);
  }

  /** Drops every pending timer and sets virtual now to `nowMs`. */
  reset(nowMs: number): void {
    this.fake.reset();
    this.fake.setSystemTime(nowMs);
  }
}
