// Longer than most files: the one virtual clock, its three modes (manual, realtime, global) and
// the one walk through time that advance() and a snapshot's replay share; the modes' timers and
// the walk read and move the same fake-timers clock, so they stay one class. The wall clock and
// the process's clock it follows are core/wall-clock.ts.
import FakeTimers from '@sinonjs/fake-timers';
import type { Channel } from './emitter.js';
import { SandboxError } from './errors.js';
import type { Service } from './lifecycle.js';
import type { Steps } from './steps.js';
import { Slices } from './slices.js';
import { MAX_TIME_MS } from './time.js';
import { type ClockMode, processNow, processTimeout, WALL, type WallClock } from './wall-clock.js';

export { CLOCK_MODES, type ClockMode, processNow, realDelay, SANDBOX_CLOCK_MODES, WALL_CLOCK, type WallClock } from './wall-clock.js';

/** Node's timers reject delays above 2^31-1 ms; fake-timers mirrors that, so long advances move in chunks. */
const MAX_STEP_MS = 2 ** 31 - 1;

/** Realtime: how often the pump looks when fake-timers cannot say when the next timer is due. */
const UNKNOWN_POLL_MS = 10;

type FakeTimerId = ReturnType<FakeTimers.Clock['setTimeout']>;
/** A timer longer than one native timer can be: re-armed in steps; `id` is the current step (null: never armed). */
class LongTimer {
  constructor(public id: FakeTimerId | null) {}
}
/** `global`: a timer on the process's timers; `cancel` clears its current step (null: never armed, or fired). */
class ProcessTimer {
  cancel: (() => void) | null = null;
}
export type TimerHandle = FakeTimerId | LongTimer | ProcessTimer;

/** What the clock announces on the sandbox's emitter. */
export interface ClockEvents {
  /** Virtual time is about to move on: work deferred to "still this instant" must run now. */
  'clock:moving': undefined;
  /**
   * An advance has reached its end: work that counts "when the advance ends" (webhook attempts
   * to a hanging receiver) is handed in now, and the advance waits for it before it resolves.
   */
  'clock:ending': undefined;
}

/** An advance of `ms` from `from` would pass the last instant a Date can hold. */
function pastTheEnd(ms: number, from: number, param: 'duration' | 'max'): SandboxError {
  return new SandboxError(
    `Failed to advance: ${ms} ms from ${new Date(from).toISOString()} is past the last instant a Date can hold ` +
      `(+275760-09-13T00:00:00Z); advance less.`,
    { param },
  );
}

/** Thrown by an `advance` that `stop()` (reset or close) cut short; the sandbox words it for the user. */
export class ClockStopped {
  readonly reason = 'stopped';
}

interface ClockDeps {
  /** Receives anything a timer callback throws; the clock itself never throws it on. */
  onError: (error: unknown) => void;
  events: Channel<ClockEvents>;
  /** Every timer callback runs as one step (see core/steps.ts). */
  steps: Steps;
  /** Default `manual`. */
  mode?: ClockMode;
  /** What a `realtime` clock follows. Default: the real wall clock ({@link WALL_CLOCK}). */
  wall?: WallClock | undefined;
  /** The real time an `advance` runs before it lets the event loop in ({@link Slices}); default its `SLICE_MS`. Tests set 0 or Infinity. */
  sliceMs?: number;
}

/**
 * fake-timers' own heap of pending timers, an internal of the pinned version (15.5.0): its
 * earliest timer, to know what is due. Read without a cast, so a version without it gives
 * `undefined` (the realtime pump then polls) instead of a crash.
 */
function earliestTimer(clock: object): { callAt: number } | undefined {
  const heap: unknown = Reflect.get(clock, 'timerHeap');
  if (typeof heap !== 'object' || heap === null) return undefined;
  const peek: unknown = Reflect.get(heap, 'peek');
  if (typeof peek !== 'function') return undefined;
  const first: unknown = peek.call(heap);
  return typeof first === 'object' && first !== null && typeof Reflect.get(first, 'callAt') === 'number'
    ? (first as { callAt: number })
    : undefined;
}

/**
 * The sandbox's one clock: a private @sinonjs/fake-timers clock that installs nothing
 * globally (so a user's `vi.useFakeTimers()` neither moves it nor is moved by it), plus
 * the bookkeeping that lets {@link VirtualClock.advance} wait for asynchronous work such
 * as webhook deliveries that a timer started.
 */
export class VirtualClock implements Service {
  /**
   * The fake-timers clock, made on the first timer or advance: making one is most of what a
   * new sandbox costs, and a sandbox that only answers reads never needs it. Until then,
   * `idleNow` is the virtual now.
   */
  private made: FakeTimers.Clock | null = null;
  private idleNow: number;
  private readonly inflight = new Set<Promise<unknown>>();
  private queue: Promise<void> = Promise.resolve();
  /** Increases at every stop(): an advance that sees it change was interrupted. */
  private epoch = 0;
  /** Wakes each settle() waiting for work in flight when stop() comes; each removes its own when done. */
  private readonly sleepers = new Set<() => void>();
  /** Realtime: virtual target = wall now + offset (moves on by each advance's jump). */
  private offset = 0;
  /** Realtime: the real timer that runs due virtual work, and the wall instant it fires at. */
  private pump: unknown = null;
  private pumpAt = Infinity;
  /** An advance (or the pump's catch-up) is running: time moves only through it meanwhile. */
  private running = 0;
  /** Walks through time under way (an advance, a replay's), for {@link advancing}. */
  private walking = 0;
  private catching = false;
  private disposed = false;
  readonly mode: ClockMode;
  private readonly wall: WallClock;
  /** Global: the timers set on the process's timers and not fired yet, so stop() can clear them. */
  private readonly processTimers = new Set<ProcessTimer>();

  /** The adapter XState's `createActor(machine, { clock })` takes. */
  readonly xstateClock = {
    setTimeout: (fn: (...args: unknown[]) => void, ms: number) => this.setTimeout(fn, ms),
    clearTimeout: (id: unknown) => this.clearTimeout(id as TimerHandle),
  };

  constructor(
    private readonly startMs: number,
    private readonly deps: ClockDeps,
  ) {
    this.idleNow = startMs;
    this.mode = deps.mode ?? 'manual';
    this.wall = deps.wall ?? WALL;
    if (this.mode === 'global') {
      // Nothing says when the process's clock will move: work deferred to "before time moves"
      // (a call's machine, which sets its timers) runs as each step ends, still at its instant.
      deps.steps.onOutermost = { start: () => undefined, end: () => this.moving() };
    }
    if (this.mode === 'realtime') {
      this.offset = startMs - this.wall.now();
      // Every step starts at the instant the wall clock has reached (when nothing is due before
      // it), and work a step deferred to "before time moves" (a call's machine) runs soon after.
      deps.steps.onOutermost = {
        start: () => this.catchUp(),
        end: () => {
          if (this.running === 0) this.arm(0);
        },
      };
    }
  }

  private get fake(): FakeTimers.Clock {
    return (this.made ??= FakeTimers.createClock(this.idleNow, 100_000));
  }

  /** Virtual now, in epoch milliseconds. */
  now(): number {
    if (this.mode === 'global') return processNow();
    if (this.mode === 'realtime') this.catchUp();
    return this.made === null ? this.idleNow : this.made.now;
  }

  /** Realtime: where the wall clock has taken virtual time (never past the last instant a Date holds). */
  private target(): number {
    return Math.min(MAX_TIME_MS, this.wall.now() + this.offset);
  }

  /** Realtime: the earliest pending timer's instant, or Infinity. */
  private nextDue(): number {
    if (this.made === null || this.made.countTimers() === 0) return Infinity;
    const first = earliestTimer(this.made);
    // Unknown (a fake-timers without the heap): never caught up lazily; the pump polls instead.
    return first ? first.callAt : -Infinity;
  }

  /**
   * Realtime: outside an advance and between steps, virtual time catches up with the wall
   * clock when nothing is due before it (work deferred to "before time moves" runs first);
   * when something is due, the pump runs it, as an advance would, at once.
   */
  private catchUp(): void {
    if (this.running > 0 || this.catching || this.disposed || this.held || this.deps.steps.busy) return;
    const current = this.made === null ? this.idleNow : this.made.now;
    const target = this.target();
    if (target <= current) return;
    this.catching = true;
    try {
      this.moving();
      if (this.nextDue() > target) {
        if (this.made === null) this.idleNow = target;
        else this.made.tick(target - this.made.now);
      } else this.arm(0);
    } finally {
      this.catching = false;
    }
  }

  /**
   * Realtime: (re)arms the one real timer to fire when the next virtual timer is due (or
   * after `delay` ms of wall time). It is `unref`'d: it never keeps the process alive.
   */
  private arm(delay?: number): void {
    if (this.disposed || this.mode !== 'realtime') return;
    const due = this.nextDue();
    // An unknown next instant (-Infinity): poll, rather than spin on a 0 ms timer.
    const wait = delay ?? (due === -Infinity ? UNKNOWN_POLL_MS : due - this.target());
    if (wait === Infinity) return;
    const at = this.wall.now() + Math.min(MAX_STEP_MS, Math.max(0, wait));
    if (this.pump !== null && this.pumpAt <= at) return;
    this.disarm();
    this.pumpAt = at;
    const timer = this.wall.setTimeout(() => {
      this.pump = null;
      this.pumpAt = Infinity;
      const epoch = this.epoch;
      // Through the queue, so it never runs beside an advance: it moves to where the wall clock is then.
      // Nobody awaits it: what it throws (a reset or close cut it short) goes nowhere.
      this.queue = this.queue.then(() => this.run(0, epoch)).catch(() => undefined);
    }, at - this.wall.now());
    (timer as { unref?: () => void }).unref?.();
    this.pump = timer;
  }

  private disarm(): void {
    if (this.pump !== null) this.wall.clearTimeout(this.pump);
    this.pump = null;
    this.pumpAt = Infinity;
  }

  /**
   * Until the returned function is called, a realtime clock does not follow the wall clock
   * (a snapshot's replay, docs/snapshots.md); then it flows on from the virtual now reached.
   */
  holdStill(): () => void {
    this.held = true;
    return () => {
      this.held = false;
      if (this.mode === 'realtime' && !this.disposed) {
        this.offset = this.rawNow() - this.wall.now();
        this.arm();
      }
    };
  }

  private held = false;

  /** Realtime: no real timer from now on (the sandbox is closed). */
  dispose(): void {
    this.disposed = true;
    this.disarm();
  }

  private rawNow(): number {
    if (this.mode === 'global') return processNow();
    return this.made === null ? this.idleNow : this.made.now;
  }

  /** Runs `fn` after `ms` of virtual time, as one step. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = this.schedule(fn, ms);
    if (this.mode === 'realtime' && this.running === 0) this.arm();
    return handle;
  }

  private schedule(fn: () => void, ms: number): TimerHandle {
    const run = () => {
      try {
        this.deps.steps.run(fn);
      } catch (error) {
        this.deps.onError(error);
      }
    };
    if (this.mode === 'global') return this.onProcessTimers(run, ms);
    if (!(ms > MAX_STEP_MS)) return this.fake.setTimeout(run, Math.max(0, ms || 0));
    // "Until something else happens", or past the last instant a Date can hold: never armed.
    if (ms === Infinity || this.rawNow() + ms > MAX_TIME_MS) return new LongTimer(null);
    // Like Node's, fake-timers would turn a longer delay into 1 ms: re-arm in steps instead.
    const timer = new LongTimer(null);
    const arm = (remaining: number) => {
      timer.id = this.fake.setTimeout(remaining > MAX_STEP_MS ? () => arm(remaining - MAX_STEP_MS) : run, Math.min(remaining, MAX_STEP_MS));
    };
    arm(ms);
    return timer;
  }

  /**
   * Global: `run` after `ms` on the process's timers as they are when it is set (a test's fake
   * ones, or the real ones). Like Node's, fake-timers turns a delay over 2^31-1 ms into 1 ms, so a
   * longer one is re-armed in steps, each on the timers of its own moment.
   */
  private onProcessTimers(run: () => void, ms: number): ProcessTimer {
    const timer = new ProcessTimer();
    // "Until something else happens", or past the last instant a Date can hold: never armed.
    if (ms === Infinity || processNow() + ms > MAX_TIME_MS) return timer;
    this.processTimers.add(timer);
    const arm = (remaining: number) => {
      timer.cancel = processTimeout(
        () => {
          if (remaining > MAX_STEP_MS) return arm(remaining - MAX_STEP_MS);
          timer.cancel = null;
          this.processTimers.delete(timer);
          run();
        },
        Math.min(remaining, MAX_STEP_MS),
      );
    };
    arm(Math.max(0, ms || 0));
    return timer;
  }

  clearTimeout(id: TimerHandle): void {
    if (id instanceof ProcessTimer) {
      id.cancel?.();
      id.cancel = null;
      this.processTimers.delete(id);
      return;
    }
    if (this.made === null) return; // no timer was ever set
    if (id instanceof LongTimer) {
      if (id.id !== null) this.fake.clearTimeout(id.id);
    } else this.fake.clearTimeout(id);
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
   * order. Timers due at one instant all fire before the work they started (webhook
   * attempts) is awaited, so attempts to different receivers run side by side; then that
   * work settles before later instants run. Time with nothing scheduled costs nothing. A
   * long one runs in slices of real time ({@link Slices}): between two instants it lets the
   * event loop take other work, which changes nothing of its own results.
   * Calls queue: a second `advance` starts when the first ends. A `stop()` (reset, close)
   * makes every advance begun or queued before it reject with {@link ClockStopped}.
   */
  advance(ms: number, until?: () => boolean): Promise<void> {
    const epoch = this.epoch;
    const run = this.queue.then(() => this.run(ms, epoch, until));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `until`: checked each time the work of an instant has settled; when it holds, time stops
   * there, at that instant (`advanceUntil`). Resolves whether or not it ever held.
   */
  private async run(ms: number, epoch: number, until?: () => boolean): Promise<void> {
    if (this.mode === 'manual') return this.step(ms, epoch, until);
    // Global: no time of its own to move (the sandbox let only advance(0) through assertMovable); the work in flight settles.
    if (this.mode === 'global') return this.settle(this.stoppedSince(epoch));
    // Realtime: first up to where the wall clock is, then the jump asked for.
    this.running++;
    try {
      await this.step(Math.max(0, this.target() - this.rawNow()) + ms, epoch, until);
    } finally {
      this.running--;
      if (this.epoch === epoch) {
        // The jump moves the wall clock's virtual target with it.
        this.offset = Math.max(this.offset, this.rawNow() - this.wall.now());
        this.arm();
      }
    }
  }

  /** A check that throws {@link ClockStopped} once stop() has run since `epoch`. */
  private stoppedSince(epoch: number): () => void {
    return () => {
      if (this.epoch !== epoch) throw new ClockStopped();
    };
  }

  private async step(ms: number, epoch: number, until?: () => boolean): Promise<void> {
    const check = this.stoppedSince(epoch);
    this.walking++;
    try {
      // Each point where the walk yields is one where the work in flight must settle first; and,
      // once a slice of real time is used, where the event loop takes other work (core/slices.ts).
      const slices = new Slices(this.deps.sliceMs);
      const walk = this.walk(ms, check, until, () => slices.due);
      for (let point = walk.next(); !point.done; point = walk.next()) {
        await this.settle(check);
        if (slices.due) await slices.pause().then(check);
      }
      this.deps.events.emit('clock:ending', undefined);
      await this.settle(check);
    } finally {
      this.walking--;
    }
  }

  /** Inside an advance (or a replay's): between its start and the moment it resolves. */
  get advancing(): boolean {
    return this.walking > 0;
  }

  /**
   * Moves virtual time as {@link advance} does, at once: for a snapshot's replay only
   * (docs/snapshots.md), where no work can be in flight. At each point where `advance` would
   * wait for work in flight, `settle` runs first (the replay hands over what would have left
   * at the next microtask); work still in flight then is a bug of the replay, and throws.
   */
  advanceNow(ms: number, settle: () => void, until?: () => boolean): void {
    const check = this.stoppedSince(this.epoch);
    this.handover = true;
    this.walking++;
    try {
      const walk = this.walk(ms, check, until);
      for (let point = walk.next(); !point.done; point = walk.next()) this.settleNow(settle);
    } finally {
      this.handover = false;
      this.walking--;
    }
  }

  /**
   * For a snapshot's replay: the end of an advance, where the recorded one ended (an advance the
   * replay runs in pieces, around the inputs that came while it ran, ends once).
   */
  endNow(settle: () => void): void {
    this.walking++;
    try {
      this.deps.events.emit('clock:ending', undefined);
      this.settleNow(settle);
    } finally {
      this.walking--;
    }
  }

  private settleNow(settle: () => void): void {
    settle();
    if (this.inflight.size > 0) throw new Error('advanceNow: work went in flight during a replay');
  }

  /**
   * The one walk through time that `advance` and `advanceNow` share: yields wherever the work
   * in flight must settle before time goes on, and after an instant when `due` says the slice
   * of real time is used (`advance` only: a replay runs whole).
   */
  private *walk(ms: number, check: () => void, until: () => boolean = () => false, due = () => false): Generator<void, void, void> {
    check();
    const end = this.rawNow() + ms;
    if (end > MAX_TIME_MS) throw pastTheEnd(ms, this.rawNow(), 'duration');
    do {
      yield;
      this.moving();
      check();
      if (this.made === null) {
        // No timer was ever set: idle time, with no clock to move.
        this.idleNow = end;
        break;
      }
      if (this.fake.countTimers() === 0) {
        // Nothing scheduled: jump straight to the end, however far (idle time is free).
        this.fake.tick(end - this.fake.now);
        break;
      }
      let reached = false;
      // A sentinel timer marks the end of this step; timers due before it (or at the same
      // instant, scheduled earlier) fire first, in order.
      const sentinel = this.fake.setTimeout(() => (reached = true), Math.min(end - this.fake.now, MAX_STEP_MS));
      while (!reached) {
        this.moving();
        this.fake.next();
        check();
        // The other timers of this same instant, before their work is awaited.
        this.fake.tick(0);
        check();
        if (this.inflight.size > 0 || this.handover || due()) yield;
        if (until()) {
          this.fake.clearTimeout(sentinel);
          return;
        }
      }
      // Timers scheduled at this very instant while the step ran.
      this.moving();
      this.fake.tick(0);
      check();
      yield;
      if (until()) return;
    } while (this.fake.now < end);
  }

  /**
   * Within {@link advanceNow}: work that would leave at the next microtask waits for the walk's
   * next settle point instead, so the walk stops there even with nothing in flight.
   */
  private handover = false;

  private moving(): void {
    this.deps.events.emit('clock:moving', undefined);
  }

  /** Waits until no tracked work is in flight (work may start more work), or the clock is stopped. */
  async settle(check: () => void = () => undefined): Promise<void> {
    while (this.inflight.size > 0) {
      let wake!: () => void;
      const stopped = new Promise<void>((resolve) => (wake = resolve));
      this.sleepers.add(wake);
      try {
        await Promise.race([Promise.all([...this.inflight]), stopped]);
      } finally {
        this.sleepers.delete(wake);
      }
      check();
    }
  }

  /**
   * Refuses an advance that would pass the last instant a Date holds. Global: also refuses to
   * move time (`advance(d)` with `d` above 0, any `advanceUntil`), naming the test's own fake
   * timers instead; `advance(0)` is let through: it moves nothing and waits for the webhook
   * attempts in flight (docs/clock-and-determinism.md, "The test's own clock"). The sandbox asks
   * before it records and queues the advance, so a refused one leaves no trace.
   */
  assertMovable(ms: number, what: 'advance' | 'advanceUntil'): void {
    const from = this.mode === 'realtime' ? Math.max(this.rawNow(), this.target()) : this.rawNow();
    if (from + ms > MAX_TIME_MS) throw pastTheEnd(ms, from, what === 'advance' ? 'duration' : 'max');
    if (this.mode !== 'global' || (what === 'advance' && ms === 0)) return;
    const n = Math.round(ms);
    throw new SandboxError(
      `Failed to ${what}: this sandbox's clock is 'global', the process's own Date and timers, so it moves only when they do. ` +
        `Advance them instead: await vi.advanceTimersByTimeAsync(${n}) (vitest), await jest.advanceTimersByTimeAsync(${n}) (Jest) or ` +
        `await clock.tickAsync(${n}) (@sinonjs/fake-timers); then await sandbox.advance(0) to wait for the webhook deliveries ` +
        `they started.${what === 'advanceUntil' ? ' Read what happened with sandbox.events.list().' : ''}`,
      { code: 'conflict', param: what === 'advance' ? 'duration' : 'match' },
    );
  }

  /** Drops every pending timer and forgets work in flight; an advance in progress rejects. Virtual now stays. */
  stop(): void {
    this.epoch++;
    this.disarm();
    for (const timer of this.processTimers) timer.cancel?.();
    this.processTimers.clear();
    if (this.made !== null) {
      const now = this.made.now;
      this.made.reset(); // also sets now back to the clock's creation instant
      this.made.setSystemTime(now);
    }
    this.inflight.clear();
    for (const wake of [...this.sleepers]) wake();
  }

  /** Back to the start time (after stop()). */
  reset(): void {
    if (this.made === null) this.idleNow = this.startMs;
    else this.made.setSystemTime(this.startMs);
    if (this.mode === 'realtime') this.offset = this.startMs - this.wall.now();
  }
}
