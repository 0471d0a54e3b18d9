// Longer than most files: a delivery's states, its subscription's lane of attempts, its retries
// and its replay are one state machine over the same records; split, each piece would reach
// into the others' records. Its public shapes are delivery.ts.
import { setMaxListeners } from 'node:events';
import { SandboxError } from '../core/errors.js';
import type { TimerHandle, VirtualClock } from '../core/clock.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso, isoOrNull } from '../core/time.js';
import type { Chaos } from '../state/chaos.js';
import type { BusEvents } from '../state/event-bus.js';
import type { SandboxEvent } from '../state/resources.js';
import type { SubscriptionEvents, SubscriptionRecord, Subscriptions } from '../state/subscriptions.js';
import { attemptOffset } from './retry-schedule.js';
import { sign } from './signature.js';
import type { SimulatedReceivers } from './receivers.js';
import { postWebhook, type PostResult } from './transport.js';
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

/** One attempt that fell due: `sent` (its place in the log) and `atMs` are fixed when it leaves the batch. */
interface Job {
  delivery: DeliveryRecord;
  n: number;
  sent: number;
  atMs: number;
  /** Called once the attempt is recorded or dropped. */
  done: () => void;
}

/** One subscription's attempts: those waiting for a slot, and the tail of their recording. */
interface Lane {
  inFlight: number;
  waiting: Job[];
  recorded: Promise<void>;
}

/**
 * Attempts to one subscription in flight at once. A receiver that never answers then costs
 * one timeout per 32 attempts falling due together, instead of one per attempt.
 */
export const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 32;

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
  events: Channel<BusEvents & SubscriptionEvents & DeliveryEvents>;
  /** Real milliseconds an attempt may take (option `webhookTimeout`, default 10 s). */
  timeoutMs: number;
  onError: (error: unknown) => void;
  /** The chaos profile's duplicates and reordering, drawn once per new delivery. */
  chaos?: Chaos;
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
 * Webhook subscriptions and the delivery of every event to them (docs/webhooks.md,
 * docs/webhooks.md). Each event of the bus becomes one delivery per matching
 * subscription of its account. Attempts to one subscription leave in the order they fall
 * due (its lane), each without waiting for the answer to the one before (up to
 * {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} in flight), and are recorded in that same order
 * whatever order the answers come back in. Each attempt is tracked on the clock, so `advance()` waits for it; a failed one
 * schedules the next on the virtual clock per {@link WEBHOOK_RETRY_SCHEDULE}, and after
 * the last the delivery is dead-lettered, from where it can be replayed.
 */
export class Deliveries implements Service {
  private readonly all: DeliveryRecord[] = [];
  private readonly byId = new Map<string, DeliveryRecord>();
  private readonly pending = new Set<DeliveryRecord>();
  /** Per subscription id: its attempts waiting or in flight. */
  private readonly lanes = new Map<string, Lane>();
  /** Attempts fallen due since the last flush (see {@link enqueue}). */
  private readonly due: Job[] = [];
  private seq = 0;
  /** Attempts with the order they were sent in (they finish out of order across lanes). */
  private readonly log: Array<{ sent: number; attempt: WebhookAttempt }> = [];
  private sent = 0;
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
    for (let i = Math.max(0, after); i < this.all.length; i++) {
      const d = this.all[i]!;
      if (!matches(d, filter)) continue;
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
    const delivery = this.byId.get(id)!;
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

  /** Replaying: sends the attempts fallen due since the last call, as the next microtask would have. */
  flushNow(): void {
    if (this.due.length > 0) this.flush();
  }

  /** Ends a replay: attempts without a recorded result leave for real now, and advance() waits for them. */
  endReplay(): void {
    this.flushNow();
    for (const [key, lane] of this.lanes) this.pump(key, lane);
    for (const work of this.untracked) void this.deps.clock.track(work);
    this.untracked.clear();
  }

  /** Stops everything in flight or scheduled (reset, close), keeping the records. */
  stop(): void {
    this.abort?.abort();
    this.abort = null;
    for (const delivery of this.pending) this.cancel(delivery);
    for (const lane of this.lanes.values()) for (const job of lane.waiting.splice(0)) job.done();
    this.lanes.clear();
  }

  /** Forgets deliveries, dead letters and attempts (after stop()). */
  reset(): void {
    this.all.length = 0;
    this.byId.clear();
    this.log.length = 0;
    this.sent = 0;
  }

  private onEvent(event: SandboxEvent, account: string): void {
    const targets = this.deps.subscriptions.matching(account, event.type);
    if (targets.length === 0) return;
    const body = JSON.stringify(event);
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
   * due in one synchronous run (the timers of one instant, the events of one request) are
   * sent together at the next microtask, sorted by delivery (oldest first), so the attempt
   * log's order and instants never depend on how fast earlier receivers answered.
   * Resolves when the attempt is recorded (or dropped: canceled, reset, closed).
   */
  private enqueue(delivery: DeliveryRecord, n: number): Promise<void> {
    let done!: () => void;
    const recorded = new Promise<void>((resolve) => (done = resolve));
    if (this.deps.tape.replaying) {
      this.due.push({ delivery, n, sent: -1, atMs: 0, done });
      this.untracked.add(recorded);
      void recorded.then(() => this.untracked.delete(recorded));
      return recorded;
    }
    if (this.due.length === 0) void Promise.resolve().then(() => this.flush());
    this.due.push({ delivery, n, sent: -1, atMs: 0, done });
    return this.deps.clock.track(recorded);
  }

  private flush(): void {
    const batch = this.due.splice(0).sort((a, b) => a.delivery.seq - b.delivery.seq);
    for (const job of batch) {
      if (job.delivery.state !== 'pending') {
        job.done();
        continue;
      }
      job.sent = this.sent++;
      job.atMs = this.deps.clock.now();
      job.delivery.nextMs = null;
      const key = job.delivery.subscription.id;
      let lane = this.lanes.get(key);
      if (!lane) this.lanes.set(key, (lane = { inFlight: 0, waiting: [], recorded: Promise.resolve() }));
      lane.waiting.push(job);
      this.pump(key, lane);
    }
  }

  /** Sends the lane's waiting attempts, in order, while fewer than {@link MAX_IN_FLIGHT_PER_SUBSCRIPTION} are in flight. */
  private pump(key: string, lane: Lane): void {
    if (this.deps.tape.replaying) {
      this.pumpRecorded(key, lane);
      return;
    }
    while (lane.inFlight < MAX_IN_FLIGHT_PER_SUBSCRIPTION && lane.waiting.length > 0) {
      const job = lane.waiting.shift()!;
      if (job.delivery.state !== 'pending') {
        job.done();
        continue;
      }
      lane.inFlight += 1;
      const stop = (this.abort ??= this.newAbort());
      const response = this.post(job).then((result) => {
        lane.inFlight -= 1;
        if (this.lanes.get(key) === lane) this.pump(key, lane);
        return result;
      });
      // Results are recorded in the order the attempts left, whatever order they came back in.
      const recorded = Promise.all([response, lane.recorded]).then(([result]) => {
        try {
          if (stop === this.abort) this.record(job, result);
        } catch (error) {
          this.deps.onError(error); // a sandbox bug; postWebhook itself never rejects
        }
        job.done();
        if (this.lanes.get(key) === lane && lane.recorded === recorded && lane.inFlight === 0 && lane.waiting.length === 0)
          this.lanes.delete(key);
      });
      lane.recorded = recorded;
    }
  }

  /** Replaying: the lane's attempts take their recorded results, in order, until one has none. */
  private pumpRecorded(key: string, lane: Lane): void {
    while (lane.inFlight === 0 && lane.waiting.length > 0) {
      const job = lane.waiting[0]!;
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
    if (lane.inFlight === 0 && lane.waiting.length === 0) this.lanes.delete(key);
  }

  private post({ delivery, n }: Job): Promise<PostResult> {
    const { event, subscription } = delivery;
    const simulated = this.deps.receivers?.answer(subscription.url);
    if (simulated) return Promise.resolve(simulated);
    return postWebhook({
      url: subscription.url,
      body: delivery.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-sandbox-webhooks',
        'x-service-signature': delivery.signature,
        'x-service-event-id': event.id,
        'x-service-event-type': event.type,
        'x-service-delivery-attempt': String(n),
      },
      timeoutMs: this.deps.timeoutMs,
      stop: this.abort!.signal,
    });
  }

  private record({ delivery, n, sent, atMs }: Job, result: PostResult): void {
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
    if (delivery.timer !== null) this.deps.clock.clearTimeout(delivery.timer);
    delivery.timer = null;
    delivery.nextMs = null;
    delivery.state = 'canceled';
    this.pending.delete(delivery);
  }

  /** Attempts finish out of order across lanes; the log keeps the order they were sent. */
  private insertInLog(sent: number, attempt: WebhookAttempt): void {
    let i = this.log.length;
    while (i > 0 && this.log[i - 1]!.sent > sent) i--;
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
