// Longer than most files: a delivery's states, its subscription's lane of attempts, its retries,
// the attempts that count later (to a hanging receiver) and its replay are one state machine over
// the same records; split, each piece would reach into the others' records. Its public shapes are
// delivery.ts.
import { setMaxListeners } from 'node:events';
import { callRef, SandboxError, said } from '../core/errors.js';
import type { ClockEvents, TimerHandle, VirtualClock } from '../core/clock.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso, isoOrNull } from '../core/time.js';
import { WALL, type WallClock } from '../core/wall-clock.js';
import type { Chaos } from '../state/chaos.js';
import type { BusEvents } from '../state/event-bus.js';
import type { SandboxEvent } from '../state/events.js';
import type { SubscriptionEvents, SubscriptionRecord, Subscriptions } from '../state/subscriptions.js';
import { attemptOffset } from './retry-schedule.js';
import { deliveryHeaders, webhookBody } from './request.js';
import { sign } from './signature.js';
import type { SimulatedReceivers } from './receivers.js';
import { isTimeout, postWebhook, type PostResult } from './transport.js';
import type { DeliveryChaos, DeliveryEvents, DeliveryFilter, DeliveryState, WebhookAttempt, WebhookDelivery } from './delivery.js';

interface DeliveryRecord {
  id: string;
  /** Creation order: attempts falling due together leave oldest delivery first. */
  seq: number;
  account: string;
  event: SandboxEvent;
  /** The exact bytes every attempt sends (serialised once per event). */
  body: string;
  signature: string;
  subscription: SubscriptionRecord;
  state: DeliveryState;
  attempts: WebhookAttempt[];
  /** Virtual instant of attempt 1 of the current run (emission, or the replay). */
  firstMs: number;
  nextMs: number | null;
  timer: TimerHandle | null;
  replays: number;
  chaos: DeliveryChaos | null;
}

/**
 * One attempt that fell due. Where it stands in the log (`sent`), its instant and how it is
 * judged (`timeoutMs`, `deferred`) are fixed when it leaves its batch.
 */
interface Job {
  delivery: DeliveryRecord;
  n: number;
  sent: number;
  atMs: number;
  /** The deliveries' generation it was made in: a reset or close since then drops it. */
  generation: number;
  /** Real milliseconds it may take: the timeout, or to a hanging receiver {@link hangTimeoutMs}. */
  timeoutMs: number;
  /** Its receiver was hanging when it left. */
  hanging: boolean;
  /** Wall-clock instant it was posted (or recorded, replaying): where a receiver's hang begins when it times out. */
  postedAt: number;
  /** To a hanging receiver during an advance: its result counts at its decision ({@link Deliveries.decide}), not when it comes. */
  deferred: boolean;
  /** A deferred attempt's result once back; null when it never left, or (replaying) the snapshot holds none. */
  result: PostResult | null | undefined;
  /** Replaying: the snapshot holds no result for it (it was in flight), so it leaves for real when the replay ends. */
  missing: boolean;
  /** Resolves once {@link result} is set. */
  back: Promise<void>;
  gotBack: () => void;
  /** Resolves when it is recorded, or dropped (canceled, reset, closed). */
  recorded: Promise<void>;
  done: () => void;
  /** What `advance()` waits for: the record, or, for a deferred attempt, only its leaving. */
  held: Promise<void>;
  release: () => void;
}

function newJob(delivery: DeliveryRecord, n: number, generation: number): Job {
  let done!: () => void;
  let release!: () => void;
  let gotBack!: () => void;
  const recorded = new Promise<void>((resolve) => (done = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  const back = new Promise<void>((resolve) => (gotBack = resolve));
  return {
    delivery,
    n,
    sent: -1,
    atMs: 0,
    generation,
    timeoutMs: 0,
    hanging: false,
    postedAt: 0,
    deferred: false,
    result: undefined,
    missing: false,
    back,
    gotBack,
    recorded,
    held,
    release,
    done: () => {
      done();
      release();
    },
  };
}

/** An attempt to send, or (`decide`) a deferred one whose result counts now. */
interface Due {
  job: Job;
  decide: boolean;
}

/** One subscription's attempts: those waiting for a slot, those being recorded, and the tail of their recording. */
interface Lane {
  inFlight: number;
  waiting: Job[];
  recording: number;
  recorded: Promise<void>;
}

/**
 * Attempts to one subscription in flight at once: the attempts of one instant leave together,
 * and those to a hanging receiver wait side by side across instants (each delivery has at most
 * one in flight), so 20 calls with every event subscribed (100 deliveries) seldom wait for a
 * slot. Enough sockets for that, few enough for a receiver's file descriptors.
 */
export const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 64;

/** The `User-Agent` of every delivery. */
const USER_AGENT = 'svc-sandbox-webhooks';

/**
 * The least real time an attempt to a hanging receiver gets (unless the timeout itself is
 * shorter): what a receiver on the test's machine that answers again takes, even on a loaded CI
 * machine, so a receiver that recovers is judged the same every run.
 */
const MIN_HANG_TIMEOUT_MS = 200;

/**
 * The real time an attempt to a hanging receiver may take: one whose last attempt timed out,
 * until it answers one (docs/webhooks.md, "A receiver that hangs"). A tenth of the timeout, at
 * least 200 ms (or the whole timeout when that is shorter): 1 s at the default 10 s. It has had
 * the whole timeout once and not answered; a day of retries then costs about one timeout and
 * twelve of these, not a timeout per attempt (the last attempt waits out {@link hangWindowMs}).
 *
 * @example
 * hangTimeoutMs(10_000); // 1000
 * hangTimeoutMs(500); // 200
 * hangTimeoutMs(150); // 150
 */
export function hangTimeoutMs(timeoutMs: number): number {
  return Math.min(timeoutMs, Math.max(MIN_HANG_TIMEOUT_MS, Math.round(timeoutMs / 10)));
}

/**
 * How long a receiver may hang before its deliveries' last attempts give up (docs/webhooks.md,
 * "A receiver that hangs"): four timeouts of real time, counted from the attempt that first timed
 * out (40 s at the default 10 s). Virtual time runs a day of retries in seconds, so the sandbox
 * cannot tell a receiver down for a day from one paused for half a minute (a breakpoint, a
 * container pause); the service would have lost nothing to the pause. So the last attempt of a
 * delivery to a hanging receiver stays open until the receiver has hung this long, and a
 * receiver that answers within it gets every delivery; one that never answers costs an advance
 * about this long, once, whatever the number of deliveries.
 *
 * @example
 * hangWindowMs(10_000); // 40000
 */
export function hangWindowMs(timeoutMs: number): number {
  return 4 * timeoutMs;
}

/**
 * What webhook delivery asks of the sandbox's recorder (scripting/recorder.ts): where each
 * attempt's result goes, and during a replay the result recorded for it instead of a real send.
 */
export interface AttemptTape {
  /** A snapshot is being replayed: attempts take their recorded results and are not sent. */
  readonly replaying: boolean;
  /** Told each result as it is recorded. */
  put(key: string, result: PostResult): void;
  /** While replaying: the recorded result, or undefined when the attempt was still in flight at the snapshot. */
  recorded(key: string): PostResult | undefined;
}

/** Names one attempt across a replay: its delivery, which run of it (0, or the replay) and its number. */
export function attemptKey(deliveryId: string, replay: number, n: number): string {
  return `${deliveryId}/${replay}/${n}`;
}

interface DeliveriesDeps {
  clock: VirtualClock;
  random: SeededRandom;
  subscriptions: Subscriptions;
  events: Channel<BusEvents & SubscriptionEvents & DeliveryEvents & ClockEvents>;
  /** Real milliseconds an attempt may take (option `webhookTimeout`, default 10 s). */
  timeoutMs: number;
  onError: (error: unknown) => void;
  /** The chaos profile's duplicates and reordering, drawn once per new delivery. */
  chaos?: Chaos;
  /** What a hanging receiver's window is measured on (`[WALL_CLOCK]`, for tests); default the real one. */
  wall?: WallClock | undefined;
  /** Receivers simulated by URL (a scenario's); the others are posted to over HTTP. */
  receivers?: SimulatedReceivers;
  /**
   * The recorder (docs/snapshots.md): told each attempt's result; while a snapshot is replayed,
   * attempts take their recorded results instead of being sent, and leave when {@link flushNow}
   * is called rather than at the next microtask, so nothing is in flight.
   */
  tape: AttemptTape;
}

/**
 * Webhook subscriptions and the delivery of every event to them (docs/webhooks.md). Each event
 * of the bus becomes one delivery per matching subscription of its account. The attempts that
 * fall due at one instant leave together, oldest delivery first; to one subscription in the
 * order they fall due (its lane), each without waiting for the answer to the one before (up to
 * {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} in flight), and are recorded in the order they left
 * whatever order the answers come back in. `advance()` waits for an instant's attempts before it
 * moves on; a failed one schedules the next on the virtual clock per {@link WEBHOOK_RETRY_SCHEDULE},
 * and after the last the delivery is dead-lettered, from where it can be replayed.
 *
 * A receiver whose last attempt timed out is hanging until it answers one: during an advance,
 * its attempts get {@link hangTimeoutMs} and do not hold the clock; each counts at its
 * delivery's next attempt's instant, or when the advance ends, whichever comes first (its
 * decision), so attempts of many instants wait side by side and the log stays the same however
 * fast the answers come. The last attempt of a delivery to it stays open until the receiver has
 * hung for {@link hangWindowMs}, so a receiver paused for less than that loses nothing.
 */
export class Deliveries implements Service {
  private readonly all: DeliveryRecord[] = [];
  private readonly byId = new Map<string, DeliveryRecord>();
  private readonly pending = new Set<DeliveryRecord>();
  /** Per subscription id: its attempts waiting or in flight. */
  private readonly lanes = new Map<string, Lane>();
  /** Attempts fallen due, and deferred ones whose decision came, since the last flush (see {@link enqueue}). */
  private readonly due: Due[] = [];
  /** The batches being taken, one after another (a decision waits for its attempt's result). */
  private flushing: Promise<void> = Promise.resolve();
  /** Deferred attempts whose decision has not come yet. */
  private readonly undecided = new Set<Job>();
  /**
   * Subscription ids whose last attempt timed out (the receiver hangs) and that have not answered
   * since, each with the wall-clock instant its first timed-out attempt was posted.
   */
  private readonly hanging = new Map<string, number>();
  private seq = 0;
  /** Attempts with the order they were sent in (they finish out of order across lanes). */
  private readonly log: Array<{ sent: number; attempt: WebhookAttempt }> = [];
  private sent = 0;
  /** Changes at every stop(): work begun before it ends without touching what comes after. */
  private generation = 0;
  /**
   * Aborts the attempts in flight when the sandbox resets or closes. Made by the first
   * attempt, not up front: making and aborting one costs about 20 µs, which every
   * `close()` of a sandbox that never delivered a webhook used to pay.
   */
  private abort: AbortController | null = null;
  /** Replaying: what advance() will wait for once the replay ends (attempts left for later). */
  private untracked = new Set<Promise<void>>();

  constructor(private readonly deps: DeliveriesDeps) {
    deps.events.on('event:published', ({ event, account }) => this.onEvent(event, account));
    deps.events.on('subscription:removed', ({ subscription }) => this.canceled(subscription));
    deps.events.on('clock:ending', () => this.advanceEnded());
  }

  /** A removed subscription's pending deliveries stop (`canceled`); an attempt in flight ends as it ends. */
  private canceled(subscription: SubscriptionRecord): void {
    for (const delivery of this.pending) {
      if (delivery.subscription === subscription) this.cancel(delivery);
    }
  }

  /** Deliveries in creation order, narrowed by `filter`. */
  deliveries(filter: DeliveryFilter = {}): WebhookDelivery[] {
    return this.select(filter).map((d) => this.toJson(d));
  }

  /**
   * Deliveries after position `after` (creation order, from 1) matching `filter`, at most
   * `limit`: `last` is the position of the last one returned, `more` whether another matches
   * after it. Costs the page plus what the filter skips, not the whole list (the server's
   * paginated lists).
   */
  page(after: number, limit: number, filter: DeliveryFilter = {}): { items: WebhookDelivery[]; last: number; more: boolean } {
    const items: WebhookDelivery[] = [];
    let last = after;
    for (const [i, d] of this.all.entries()) {
      if (i < after || !matches(d, filter)) continue;
      if (items.length === limit) return { items, last, more: true };
      items.push(this.toJson(d));
      last = i + 1;
    }
    return { items, last, more: false };
  }

  /** The id of the delivery at `position` (from 1), if there is one. */
  idAt(position: number): string | undefined {
    return this.all[position - 1]?.id;
  }

  /** Every attempt in the order sent, narrowed by `filter`. */
  attempts(filter: DeliveryFilter = {}): WebhookAttempt[] {
    const ids = new Set(this.select(filter).map((d) => d.id));
    return this.log.filter((e) => ids.has(e.attempt.deliveryId)).map((e) => ({ ...e.attempt }));
  }

  /** The delivery by `dlv_` id, if any. */
  find(id: string): WebhookDelivery | undefined {
    const delivery = this.byId.get(id);
    return delivery && this.toJson(delivery);
  }

  /** Whether the delivery's subscription still exists (a dead letter of a deleted one cannot be replayed). */
  canReplay(id: string): boolean {
    const delivery = this.byId.get(id);
    return !!delivery && delivery.state === 'dead' && this.deps.subscriptions.exists(delivery.subscription);
  }

  /**
   * Takes a dead letter out of the queue and starts it over now: same event id and body,
   * attempts counted from 1, the same retry schedule. Resolves with its first attempt.
   * The caller checks {@link canReplay} first.
   */
  async replay(id: string): Promise<WebhookAttempt> {
    const delivery = this.byId.get(id);
    if (!delivery)
      throw new SandboxError(
        said`There is no delivery ${id} to replay: pass the id of a dead letter (${callRef('webhooks.deadLetters')}).`,
        {
          code: 'not_found',
        },
      );
    delivery.replays += 1;
    const before = delivery.attempts.length;
    await this.begin(delivery);
    const first = delivery.attempts[before];
    if (!first)
      throw new SandboxError(`Replay of ${id} was abandoned: the sandbox was reset or closed while it was in flight.`, {
        code: 'interrupted',
      });
    return { ...first };
  }

  /**
   * Replaying: what the event loop would do before time moves on. The attempts fallen due since
   * the last call leave (and the decisions that came are taken), then the answers come back:
   * each lane's attempts take their recorded results, in order.
   */
  flushNow(): void {
    do {
      while (this.due.length > 0) this.flush();
      for (const [key, lane] of this.lanes) this.pumpRecorded(key, lane);
    } while (this.due.length > 0);
  }

  /** Ends a replay: attempts without a recorded result leave for real now, and advance() waits for them. */
  endReplay(): void {
    this.flushNow();
    // A deferred attempt the snapshot holds no result for was in flight when it was taken: it leaves again, and counts when it comes back.
    for (const job of [...this.undecided].filter((j) => j.missing).sort((a, b) => a.sent - b.sent)) {
      this.undecided.delete(job);
      this.clearTimer(job.delivery);
      Object.assign(job, { deferred: false, missing: false, result: undefined });
      this.laneOf(job.delivery.subscription.id).waiting.push(job);
      void this.deps.clock.track(job.recorded);
    }
    for (const [key, lane] of this.lanes) this.pump(key, lane);
    for (const work of this.untracked) void this.deps.clock.track(work);
    this.untracked.clear();
  }

  /** Stops everything in flight or scheduled (reset, close), keeping the records. */
  stop(): void {
    this.generation++;
    this.abort?.abort();
    this.abort = null;
    for (const delivery of this.pending) this.cancel(delivery);
    const dropped = [...this.undecided, ...[...this.lanes.values()].flatMap((lane) => lane.waiting.splice(0))];
    for (const job of dropped) {
      job.result ??= null;
      job.gotBack();
      job.done();
    }
    this.undecided.clear();
    this.lanes.clear();
    this.flushing = Promise.resolve();
  }

  /** Forgets deliveries, dead letters and attempts (after stop()). */
  reset(): void {
    this.all.length = 0;
    this.byId.clear();
    this.log.length = 0;
    this.sent = 0;
    this.hanging.clear();
  }

  private onEvent(event: SandboxEvent, account: string): void {
    const targets = this.deps.subscriptions.matching(account, event.type);
    if (targets.length === 0) return;
    const body = webhookBody(event);
    for (const subscription of targets) {
      const chaos = this.deps.chaos?.delivery();
      const delivery = this.create(account, event, body, sign(body, subscription.secret), subscription, chaos?.holdMs ? 'held' : null);
      if (chaos?.holdMs) this.hold(delivery, chaos.holdMs);
      else void this.begin(delivery);
      // The copy carries the same bytes and signature, and leaves now, beside (or before) the original.
      if (chaos?.duplicate) void this.begin(this.create(account, event, body, delivery.signature, subscription, 'duplicate'));
    }
  }

  private create(
    account: string,
    event: SandboxEvent,
    body: string,
    signature: string,
    subscription: SubscriptionRecord,
    chaos: DeliveryChaos | null,
  ): DeliveryRecord {
    const delivery: DeliveryRecord = {
      id: this.deps.random.id('dlv'),
      seq: this.seq++,
      account,
      event,
      body,
      signature,
      subscription,
      state: 'pending',
      attempts: [],
      firstMs: this.deps.clock.now(),
      nextMs: null,
      timer: null,
      replays: 0,
      chaos,
    };
    this.all.push(delivery);
    this.byId.set(delivery.id, delivery);
    return delivery;
  }

  /** A reordered delivery: pending, its first attempt `ms` of virtual time from now (a retry's timer, so cancel and stop reach it). */
  private hold(delivery: DeliveryRecord, ms: number): void {
    const { clock } = this.deps;
    this.pending.add(delivery);
    delivery.nextMs = clock.now() + ms;
    delivery.timer = clock.setTimeout(() => {
      delivery.timer = null;
      void this.begin(delivery);
    }, ms);
  }

  private begin(delivery: DeliveryRecord): Promise<void> {
    delivery.state = 'pending';
    delivery.firstMs = this.deps.clock.now();
    this.pending.add(delivery);
    return this.enqueue(delivery, 1);
  }

  /**
   * Attempt `n` of `delivery` falls due now; `advance()` waits for it. The attempts that fall
   * due in one synchronous run (the timers of one instant, the events of one request) leave
   * together at the next microtask, sorted by delivery (oldest first), so the attempt log's
   * order and instants never depend on how fast earlier receivers answered.
   * Resolves when the attempt is recorded (or dropped: canceled, reset, closed).
   */
  private enqueue(delivery: DeliveryRecord, n: number): Promise<void> {
    const job = newJob(delivery, n, this.generation);
    this.push({ job, decide: false }, job.held);
    return job.recorded;
  }

  /** Into the next batch; `advance()` waits for `work` (once the replay ends, when replaying). */
  private push(entry: Due, work: Promise<void>): void {
    if (this.deps.tape.replaying) {
      this.untracked.add(work);
      void work.then(() => this.untracked.delete(work));
    } else {
      if (this.due.length === 0) void Promise.resolve().then(() => this.flush());
      void this.deps.clock.track(work);
    }
    this.due.push(entry);
  }

  private flush(): void {
    const batch = this.due.splice(0).sort((a, b) => a.job.delivery.seq - b.job.delivery.seq);
    if (this.deps.tape.replaying) {
      for (const entry of batch) this.take(entry);
      return;
    }
    // A decision waits for its attempt's result, and what comes after it in the batch waits
    // with it: the order attempts leave and count in never depends on which answer came first.
    this.flushing = this.flushing.then(async () => {
      for (const entry of batch) {
        if (entry.decide && entry.job.result === undefined) await entry.job.back;
        this.take(entry);
      }
    });
  }

  /** An attempt leaves (its place in the log and how it is judged fixed now), or a deferred one counts. */
  private take({ job, decide }: Due): void {
    try {
      if (job.generation !== this.generation) job.done();
      else if (decide) this.decide(job);
      else this.leave(job);
    } catch (error) {
      this.deps.onError(error); // a sandbox bug
      job.done();
    }
  }

  private leave(job: Job): void {
    const { delivery } = job;
    if (delivery.state !== 'pending') {
      job.done();
      return;
    }
    job.sent = this.sent++;
    job.atMs = this.deps.clock.now();
    delivery.nextMs = null;
    const key = delivery.subscription.id;
    const hanging = this.hanging.has(key);
    job.hanging = hanging;
    job.timeoutMs = hanging ? hangTimeoutMs(this.deps.timeoutMs) : this.deps.timeoutMs;
    job.deferred = hanging && this.deps.clock.advancing;
    if (job.deferred) {
      this.defer(job);
      if (this.deps.tape.replaying) {
        // Its recorded result, whatever the lane's order: it counts at its decision.
        const result = this.deps.tape.recorded(attemptKey(delivery.id, delivery.replays, job.n));
        job.result = result ?? null;
        job.missing = result === undefined;
        job.gotBack();
        return;
      }
    }
    const lane = this.laneOf(key);
    lane.waiting.push(job);
    this.pump(key, lane);
  }

  private laneOf(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { inFlight: 0, waiting: [], recording: 0, recorded: Promise.resolve() }));
    return lane;
  }

  /**
   * A deferred attempt does not hold the clock: the instant's work is done once it has left. It
   * counts at its delivery's next attempt's instant (a timer), or, when that comes after the
   * advance's end (or it is the last attempt), when the advance ends ({@link advanceEnded}).
   */
  private defer(job: Job): void {
    this.undecided.add(job);
    job.release();
    const offset = attemptOffset(job.n + 1);
    if (offset === null) return;
    const { delivery } = job;
    const { clock } = this.deps;
    delivery.timer = clock.setTimeout(
      () => {
        delivery.timer = null;
        this.decideNow(job);
      },
      delivery.firstMs + offset - clock.now(),
    );
  }

  /** The decision of a deferred attempt came: it counts in the next batch, once its result is back. */
  private decideNow(job: Job): void {
    if (this.undecided.delete(job)) this.push({ job, decide: true }, job.recorded);
  }

  /** The advance ends: every deferred attempt counts now (the advance waits for their results). */
  private advanceEnded(): void {
    for (const job of this.undecided) {
      if (job.missing) continue; // replaying, no result: it leaves again when the replay ends
      this.clearTimer(job.delivery);
      this.decideNow(job);
    }
  }

  /** A deferred attempt counts: recorded, and its delivery moves on (its next attempt leaves now when it falls due now). */
  private decide(job: Job): void {
    if (job.result) this.record(job, job.result);
    else if (job.missing) this.undecided.add(job); // replaying, in flight when the snapshot was taken
    // Otherwise it never left: its delivery was canceled first.
    job.done();
  }

  /** Sends the lane's waiting attempts, in order, while fewer than {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} are in flight. */
  private pump(key: string, lane: Lane): void {
    // Replaying, nothing is sent: flushNow gives the lanes their recorded results once the instant's batches have left.
    if (this.deps.tape.replaying) return;
    while (lane.inFlight < MAX_IN_FLIGHT_PER_SUBSCRIPTION) {
      const job = lane.waiting.shift();
      if (!job) break;
      if (job.delivery.state !== 'pending') {
        job.result = null;
        job.gotBack();
        if (!job.deferred) job.done();
        continue;
      }
      lane.inFlight += 1;
      const stop = (this.abort ??= this.newAbort());
      const response = this.post(job).then((result) => {
        lane.inFlight -= 1;
        if (this.lanes.get(key) === lane) this.pump(key, lane);
        return result;
      });
      if (job.deferred) {
        void response.then((result) => {
          job.result = result;
          job.gotBack();
          this.dropIdle(key, lane);
        });
        continue;
      }
      // Results are recorded in the order the attempts left, whatever order they came back in.
      lane.recording += 1;
      lane.recorded = Promise.all([response, lane.recorded]).then(([result]) => {
        lane.recording -= 1;
        try {
          if (stop === this.abort) this.record(job, result);
        } catch (error) {
          this.deps.onError(error); // a sandbox bug; postWebhook itself never rejects
        }
        job.done();
        this.dropIdle(key, lane);
      });
    }
  }

  /** Forgets a lane with nothing waiting, in flight or being recorded. */
  private dropIdle(key: string, lane: Lane): void {
    if (this.lanes.get(key) === lane && lane.inFlight === 0 && lane.waiting.length === 0 && lane.recording === 0) this.lanes.delete(key);
  }

  /** Replaying: the lane's attempts take their recorded results, in order, until one has none. */
  private pumpRecorded(key: string, lane: Lane): void {
    for (;;) {
      const job = lane.waiting[0];
      if (!job) break;
      if (job.delivery.state === 'pending') {
        const result = this.deps.tape.recorded(attemptKey(job.delivery.id, job.delivery.replays, job.n));
        if (result === undefined) return; // still in flight at the snapshot: it leaves when the replay ends
        try {
          this.record(job, result);
        } catch (error) {
          this.deps.onError(error);
        }
      }
      lane.waiting.shift();
      job.done();
    }
    this.dropIdle(key, lane);
  }

  private post(job: Job): Promise<PostResult> {
    const { delivery, n, timeoutMs } = job;
    const { event, subscription } = delivery;
    const simulated = this.deps.receivers?.answer(subscription.url);
    if (simulated) return Promise.resolve(simulated);
    const wall = this.deps.wall ?? WALL;
    job.postedAt = wall.now();
    const deadline = this.deadline(job, wall);
    const posted = postWebhook({
      url: subscription.url,
      body: delivery.body,
      headers: deliveryHeaders({
        eventId: event.id,
        eventType: event.type,
        signature: delivery.signature,
        attempt: n,
        userAgent: USER_AGENT,
      }),
      timeoutMs,
      hanging: job.hanging,
      ...(deadline ? { deadline } : {}),
      stop: (this.abort ??= this.newAbort()).signal,
    });
    return deadline ? posted.finally(deadline.clear) : posted;
  }

  /**
   * The last attempt of a delivery to a hanging receiver waits until the receiver has hung for
   * {@link hangWindowMs} (on the wall clock), or its usual shorter time when that is later: a
   * receiver paused for less than the window answers it. Undefined for every other attempt.
   */
  private deadline(job: Job, wall: WallClock): { signal: AbortSignal; windowMs: number; clear: () => void } | undefined {
    const since = this.hanging.get(job.delivery.subscription.id);
    if (!job.hanging || since === undefined || attemptOffset(job.n + 1) !== null) return undefined;
    const windowMs = hangWindowMs(this.deps.timeoutMs);
    const left = since + windowMs - wall.now();
    if (left <= job.timeoutMs) return { signal: AbortSignal.timeout(job.timeoutMs), windowMs, clear: () => undefined };
    const controller = new AbortController();
    const timer = wall.setTimeout(() => controller.abort(), left);
    return { signal: controller.signal, windowMs, clear: () => wall.clearTimeout(timer) };
  }

  private record({ delivery, n, sent, atMs, postedAt }: Job, result: PostResult): void {
    const { event, subscription } = delivery;
    const attempt: WebhookAttempt = {
      deliveryId: delivery.id,
      eventId: event.id,
      eventType: event.type,
      subscriptionId: subscription.id,
      url: subscription.url,
      attempt: n,
      replay: delivery.replays,
      at: iso(atMs),
      ...result,
    };
    delivery.attempts.push(attempt);
    this.insertInLog(sent, attempt);
    if (!isTimeout(result)) this.hanging.delete(subscription.id);
    else if (!this.hanging.has(subscription.id)) this.hanging.set(subscription.id, postedAt || (this.deps.wall ?? WALL).now());
    this.deps.tape.put(attemptKey(delivery.id, delivery.replays, n), result);
    this.settle(delivery, n, result.ok);
    this.deps.events.emit('attempt:settled', { attempt: { ...attempt }, state: delivery.state, account: delivery.account });
  }

  /** After attempt `n`: delivered, dead-lettered, or the next attempt scheduled. */
  private settle(delivery: DeliveryRecord, n: number, ok: boolean): void {
    const { clock } = this.deps;
    if (ok) {
      // Also when the subscription was deleted while this attempt was in flight: it did arrive.
      delivery.state = 'delivered';
      this.pending.delete(delivery);
      return;
    }
    if (delivery.state !== 'pending') return; // canceled, reset or closed meanwhile
    const offset = attemptOffset(n + 1);
    if (offset === null) {
      delivery.state = 'dead';
      this.pending.delete(delivery);
      return;
    }
    delivery.nextMs = delivery.firstMs + offset;
    // Decided at its next attempt's instant (a deferred attempt): that attempt leaves now.
    if (delivery.nextMs <= clock.now()) {
      void this.enqueue(delivery, n + 1);
      return;
    }
    delivery.timer = clock.setTimeout(() => {
      delivery.timer = null;
      void this.enqueue(delivery, n + 1);
    }, delivery.nextMs - clock.now());
  }

  /**
   * Every attempt in flight listens on one signal; with ten or more at once Node would warn
   * about a possible listener leak (MaxListenersExceededWarning) into the user's process.
   */
  private newAbort(): AbortController {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  }

  private cancel(delivery: DeliveryRecord): void {
    this.clearTimer(delivery);
    delivery.nextMs = null;
    delivery.state = 'canceled';
    this.pending.delete(delivery);
  }

  private clearTimer(delivery: DeliveryRecord): void {
    if (delivery.timer !== null) this.deps.clock.clearTimeout(delivery.timer);
    delivery.timer = null;
  }

  /** Attempts finish out of order across lanes; the log keeps the order they were sent. */
  private insertInLog(sent: number, attempt: WebhookAttempt): void {
    let i = this.log.length;
    while (i > 0 && (this.log[i - 1]?.sent ?? -1) > sent) i--;
    this.log.splice(i, 0, { sent, attempt });
  }

  private select(filter: DeliveryFilter): DeliveryRecord[] {
    return this.all.filter((d) => matches(d, filter));
  }

  private toJson(d: DeliveryRecord): WebhookDelivery {
    return {
      id: d.id,
      eventId: d.event.id,
      eventType: d.event.type,
      subscriptionId: d.subscription.id,
      url: d.subscription.url,
      state: d.state,
      attempts: d.attempts.map((a) => ({ ...a })),
      nextAttemptAt: isoOrNull(d.nextMs),
      replays: d.replays,
      event: structuredClone(d.event),
      ...(d.chaos === null ? {} : { chaos: d.chaos }),
    };
  }
}

function matches(d: DeliveryRecord, filter: DeliveryFilter): boolean {
  return (
    (filter.account === undefined || d.account === filter.account) &&
    (filter.eventId === undefined || d.event.id === filter.eventId) &&
    (filter.subscriptionId === undefined || d.subscription.id === filter.subscriptionId) &&
    (filter.type === undefined || d.event.type === filter.type) &&
    (filter.state === undefined || d.state === filter.state)
  );
}
