import { ERROR_CODES } from './api/errors.js';
import { documentedStatuses, openApiDocument } from './api/openapi.js';
import { Cursors } from './api/pagination.js';
import { Pipeline } from './api/pipeline.js';
import { RateLimiter } from './api/rate-limit.js';
import { Router } from './api/router.js';
import { ROUTES, type RouteDeps } from './api/routes/index.js';
import { TranscriptStreams } from './api/transcript-stream.js';
import { callScripting, type CallScripting } from './control/calls.js';
import { consoleView, type ConsoleView } from './control/console-view.js';
import type { ControlContext } from './control/context.js';
import { Coverage } from './control/coverage.js';
import type { CoverageReport } from './control/coverage-report.js';
import { eventLog, type EventLog } from './control/events.js';
import { faultScripting, type FaultScripting } from './control/faults.js';
import { keyScripting, type KeyScripting } from './control/keys.js';
import { requestJournal, type RequestJournal } from './control/requests.js';
import { runScenario, type ScenarioResult, type ScenarioRunOptions } from './control/scenario.js';
import { trigger, type TriggerOptions, type TriggerOverrides } from './control/triggers.js';
import { recordingScripting, transcriptScripting, type RecordingScripting, type TranscriptScripting } from './control/media.js';
import { messageScripting, type MessageScripting } from './control/messages.js';
import { networkScripting, type NetworkScripting } from './control/network.js';
import { webhookScripting, type WebhookScripting } from './control/webhooks.js';
import { ClockStopped, VirtualClock, type ClockEvents } from './core/clock.js';
import { toMs, type Duration } from './core/duration.js';
import { Emitter } from './core/emitter.js';
import { SandboxError } from './core/errors.js';
import { Lifecycle } from './core/lifecycle.js';
import { SeededRandom } from './core/random.js';
import { Steps } from './core/steps.js';
import { safeIso } from './core/time.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from './state/resources.js';
import { Deliveries, type DeliveryEvents } from './events/deliveries.js';
import { SimulatedReceivers } from './events/receivers.js';
import { intercept } from './intercept/interceptor.js';
import { optionsJson, resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js';
import { InputLog, RECORDED_CALLS, replay, replayArgs, type RequestInput, type SandboxSnapshot } from './control/snapshots.js';
import { NumberInventory } from './sim/inventory.js';
import { Accounts } from './state/accounts.js';
import { Changes } from './state/changes.js';
import { CallService, type CallEvents } from './state/calls.js';
import { Dialer } from './state/dialer.js';
import { EventBus, type BusEvents } from './state/event-bus.js';
import { Faults } from './state/faults.js';
import { MessageService } from './state/messages.js';
import { Network } from './state/network.js';
import { NumberService } from './state/numbers.js';
import { RecordingService } from './state/recordings.js';
import { Subscriptions, type SubscriptionEvents } from './state/subscriptions.js';
import { Templates } from './state/templates.js';
import { TranscriptService, type TranscriptEvents } from './state/transcripts.js';
import { Journal } from './state/journal.js';
import { Chaos } from './state/chaos.js';
import { callMachine } from './state/call-machine.js';
import { MachineCoverage } from './state/machine-coverage.js';

/** An unexpected exception inside the sandbox, kept for inspection (it was answered as a 500 or reported by `advance`). */
export interface InternalError {
  error: unknown;
  requestId?: string;
  at: string;
}

/** The `/v1` route table, matched the same way for every sandbox: made once per process. */
const ROUTER = new Router(ROUTES);

/** Everything the parts of one sandbox announce to each other, on its one emitter. */
type SandboxEvents = ClockEvents & CallEvents & TranscriptEvents & BusEvents & SubscriptionEvents & DeliveryEvents;

/**
 * One simulated service: its own clock, seeded randomness, accounts, calls and event
 * log. Nothing is shared between two sandboxes except the process-wide interception,
 * which routes by base URL. Create it with {@link createSandbox}.
 *
 * This file is the composition root (every part is made and registered here, once) and
 * the lifecycle (`listen`, `advance`, `reset`, `close`); the scripting namespaces are
 * src/control/, the HTTP API src/api/ (docs/architecture.md).
 */
export class Sandbox {
  /** The base URL served, without a trailing slash. */
  readonly baseUrl: string;
  readonly seed: number;

  private readonly options: ResolvedOptions;
  private readonly life: Lifecycle;
  private readonly clock: VirtualClock;
  private readonly pipeline: Pipeline;
  private readonly coverageOf: Coverage;
  private readonly failures: InternalError[] = [];
  /** Every input, for snapshot() (docs/snapshots.md). */
  private readonly log: InputLog;
  /** Errors thrown by the user's own event listeners, rethrown by the next advance(). */
  private readonly listenerErrors: unknown[] = [];
  private listening = false;
  /** A scenario's simulated webhook receivers (src/events/receivers.ts). */
  private readonly receivers: SimulatedReceivers;

  constructor(options: SandboxOptions = {}) {
    const o = (this.options = resolveOptions(options));
    this.baseUrl = o.baseUrl;
    this.seed = o.seed;
    const onError = (error: unknown) => this.recordFailure(error);
    const life = (this.life = new Lifecycle(onError));
    const add = life.add.bind(life);
    // What the sandbox reports (internalErrors(), a listener's error) belongs to the world a
    // reset empties; registered first, so a failure while the others reset stays visible.
    add({
      reset: () => {
        this.failures.length = 0;
        this.listenerErrors.length = 0;
      },
    });

    // core: one clock, one seeded random source, one emitter, steps.
    const steps = add(new Steps(onError));
    const events = new Emitter<SandboxEvents>(onError);
    const clock = (this.clock = add(new VirtualClock(o.startMs, { onError, events, steps, mode: o.clock, wall: o.wall })));
    // A realtime clock's real timer goes with the sandbox (reset keeps the mode; close ends it).
    if (o.clock === 'realtime') life.defer(() => clock.dispose());
    const random = add(new SeededRandom(o.seed));
    const now = () => clock.now();
    const log = (this.log = new InputLog(optionsJson(o), o.origin + o.basePath, now));

    // state: stores, machines and domain services. Listeners on the emitter run in the
    // order the parts are made here: on call.completed the recording is stored, then the
    // campaign counts the call, and only then is call.completed published.
    const bus = add(new EventBus({ random, now, events, steps }));
    const accounts = add(new Accounts({ keys: o.keys, onlyConfiguredKeys: o.onlyConfiguredKeys, seed: o.seed }, now));
    // Chaos draws from streams of its own (docs/chaos.md); a sandbox without a profile draws nothing.
    const chaos = add(new Chaos(o.chaos, random));
    const network = add(new Network(chaos));
    const faults = add(new Faults());
    // The call machine's states and transitions, counted as calls run (coverage outlives reset).
    const machines = new MachineCoverage(callMachine);
    const calls = add(
      new CallService({ clock, random, bus, events, baseUrl: o.baseUrl, aiHandler: o.aiHandler, onError, inspect: machines.inspect }),
    );
    const transcripts = add(new TranscriptService({ clock, events, aiHandler: o.aiHandler }));
    const recordings = add(
      new RecordingService({ clock, bus, events, calls, transcripts, baseUrl: o.baseUrl, later: (fn) => steps.after(fn) }),
    );
    const dialer = add(new Dialer({ clock, random, calls, events, network, aiHandler: o.aiHandler, intervalMs: o.dialIntervalMs }));
    const numbers = add(new NumberService({ clock, random, inventory: new NumberInventory(random), network }));
    const messages = add(new MessageService({ clock, random, bus }));
    const subscriptions = add(new Subscriptions({ clock, random, events }));

    // events (out): webhook delivery.
    const receivers = (this.receivers = add(new SimulatedReceivers()));
    const deliveries = add(
      new Deliveries({ clock, random, subscriptions, events, timeoutMs: o.webhookTimeoutMs, onError, chaos, receivers }),
    );
    deliveries.tape = log;

    // What changed in each step, for readers that mirror the state (the server's console stream).
    const changes = add(new Changes(steps));
    changes.follow('call', calls.store);
    changes.follow('message', messages.store);
    changes.follow('number', numbers.store);
    changes.follow('recording', recordings.store);
    changes.follow('transcript', transcripts.store);
    changes.follow('subscription', subscriptions.store);
    events.on('event:published', ({ event, account }) => {
      const kind = event.type.slice(0, event.type.indexOf('.')) as 'call' | 'message' | 'recording' | 'transcript';
      changes.touch(kind, (event.data as { id: string }).id, account);
    });
    events.on('attempt:settled', ({ attempt, account }) => changes.touch('delivery', attempt.deliveryId, account));
    events.on('clock:moving', () => changes.touch('clock', 'now'));

    // api (HTTP in).
    const streams = add(new TranscriptStreams({ clock, transcripts, events }));
    const limiter = add(new RateLimiter());
    const journal = add(new Journal((forgotten) => coverage.forgotten(forgotten)));
    const routeDeps: RouteDeps = {
      calls,
      dialer,
      network,
      cursors: new Cursors(`svc-sandbox:${o.seed}`),
      recordings,
      transcripts,
      transcriptStreams: streams,
      subscriptions,
      sandboxOrigin: o.origin,
      numbers,
      messages,
      templates: new Templates(o.templates),
    };
    const unknown = chaos.unknownRoute(ROUTES);
    if (unknown) {
      const hint = unknown.near
        ? `: did you mean ${JSON.stringify(unknown.near)}?`
        : '; write a path such as "/v1/calls/{id}", or a method and a path such as "POST /v1/calls".';
      throw new SandboxError(
        `createSandbox: \`chaos.requests\` key ${JSON.stringify(unknown.key)} fits no route of the API, so it would never apply${hint}`,
        { code: 'invalid_options', param: `chaos.requests.${unknown.key}` },
      );
    }
    this.pipeline = new Pipeline({
      router: ROUTER,
      routeDeps,
      accounts,
      limiter,
      random,
      now,
      origin: o.origin,
      basePath: o.basePath,
      faults,
      steps,
      generation: () => life.generation,
      onInternalError: (error, requestId) => this.recordFailure(error, requestId),
      clock: o.clock,
      deprecation: o.deprecation,
      journal,
      chaos,
      onRequest: (request) => log.request(request),
    });

    // control (scripting in): the namespaces below, which the standalone server's control API calls too.
    const ctx: ControlContext = { steps, accounts, assertOpen: (what) => this.assertOpen(what) };
    const recorded = <T extends object>(space: keyof typeof RECORDED_CALLS, namespace: T): T => recordedCalls(log, space, namespace);
    this.calls = recorded('calls', callScripting(ctx, { calls, numbers, network }));
    this.network = recorded('network', networkScripting(ctx, network));
    this.messages = recorded('messages', messageScripting(ctx, messages, numbers));
    this.faults = recorded('faults', faultScripting(ctx, faults));
    const onListenerError = (error: unknown) => this.listenerErrors.push(error);
    this.events = eventLog(ctx, bus, onListenerError);
    this.webhooks = recorded('webhooks', webhookScripting(ctx, { deliveries, events, onListenerError }));
    this.recordings = recorded('recordings', recordingScripting(ctx, recordings, calls));
    this.transcripts = recorded(
      'transcripts',
      transcriptScripting(ctx, transcripts, calls, () => streams.count),
    );
    this.keys = recorded(
      'keys',
      keyScripting(ctx, accounts, (key, removed) => changes.touch('key', key, '', removed)),
    );
    // The console's view is made when a console first reads it: most sandboxes never serve one.
    let view: ConsoleView | undefined;
    changeFeeds.set(this, {
      changes,
      view: () => (view ??= consoleView({ calls, messages, numbers, recordings, transcripts, subscriptions, deliveries, bus })),
    });
    this.requests = requestJournal(journal);
    // Reads the records above when asked, and folds them before a reset forgets them (docs/coverage.md).
    const coverage = (this.coverageOf = add(
      new Coverage({
        calls,
        journal,
        bus,
        messages,
        deliveries,
        machine: machines,
        operations: () => documentedStatuses(ROUTES),
        errorCodes: ERROR_CODES,
      }),
    ));

    if (o.snapshot) this.restore(o.snapshot, { clock, deliveries, prefix: o.origin + o.basePath });
  }

  /**
   * Replays a snapshot's inputs on this new sandbox, made with the snapshot's options: at once,
   * with webhook attempts answered from the snapshot, never sent (docs/snapshots.md).
   */
  private restore(
    snapshot: SandboxSnapshot,
    { clock, deliveries, prefix }: { clock: VirtualClock; deliveries: Deliveries; prefix: string },
  ): void {
    const resume = clock.holdStill();
    this.log.load(snapshot);
    deliveries.replayFrom((key) => this.log.attempt(key));
    const settle = () => deliveries.flushNow();
    const quietly = (fn: () => unknown) => {
      try {
        const result = fn();
        if (result instanceof Promise) result.catch(() => undefined);
      } catch {
        // it threw when it was first made too, and changed nothing then either
      }
    };
    try {
      this.log.unrecorded(() =>
        replay(
          snapshot,
          {
            now: () => clock.now(),
            request: (input) => {
              quietly(() => {
                const response = this.pipeline.handleNow(recordedRequest(input, prefix), recordedBody(input));
                // A stream it opened (live transcript) belonged to a connection that is gone.
                void response.body?.cancel().catch(() => undefined);
              });
              settle();
            },
            call: (name, args) => {
              const [space, method] = name.split('.') as [keyof typeof RECORDED_CALLS, string];
              const namespace = this[space];
              const member: unknown = Reflect.get(namespace, method);
              // parseSnapshot lets only RECORDED_CALLS through, each a member of its namespace.
              if (typeof member !== 'function') throw new Error(`snapshot replay: sandbox.${name} is not a function`);
              quietly(() => member.apply(namespace, replayArgs(args)));
              settle();
            },
            advance: (ms, stop) => {
              try {
                clock.advanceNow(ms, settle, stop === undefined ? undefined : () => clock.now() >= stop);
              } catch (error) {
                // An advance past the last instant a Date holds was refused then too; anything else is a bug.
                if (!(error instanceof SandboxError)) throw error;
              }
            },
            reset: () => this.life.reset(),
          },
          Date.parse(snapshot.now),
        ),
      );
    } finally {
      deliveries.endReplay();
      resume();
    }
  }

  /**
   * The sandbox as plain JSON, to start another from (`createSandbox({ snapshot })`), now or
   * in another process: `JSON.stringify` it into a file. It holds the options and every input
   * since creation (requests, scripting calls, advances) with the webhook attempts' results;
   * a sandbox made from it replays them, so it is this one at this instant, timers, retries in
   * flight, scripted behaviour and rate windows included, and the same requests then get the
   * same answers, ids and events (docs/snapshots.md says what is not kept: listeners, open
   * live-transcript streams). Refused (`conflict`) while a request's body is still being read.
   * A closed sandbox still gives it, as it was when it was closed (lists stay readable too).
   *
   * @example
   * const snapshot = sandbox.snapshot();
   * writeFileSync('account.json', JSON.stringify(snapshot));
   * const copy = createSandbox({ snapshot: JSON.parse(readFileSync('account.json', 'utf8')) });
   */
  snapshot(): SandboxSnapshot {
    return this.log.snapshot();
  }

  /**
   * Starts answering requests to `baseUrl` made from this process by `fetch`,
   * `node:http`/`node:https` (axios, got, SDKs) and `XMLHttpRequest`. Other origins pass through.
   *
   * @example
   * const sandbox = createSandbox(); sandbox.listen();
   * await fetch('https://api.svc.test/v1/calls', { headers: { authorization: 'Bearer SVC_TEST_me' } });
   */
  listen(): this {
    this.assertOpen('listen');
    if (!this.listening) {
      this.life.defer(intercept(this.options.origin, this.options.basePath, (request) => this.handle(request), this.options.unhandled));
      this.listening = true;
    }
    return this;
  }

  /**
   * Stops intercepting (the last sandbox to close restores every patched global) and
   * cancels all pending virtual work, webhook retries and attempts in flight; an
   * `advance()` in progress rejects with a SandboxError (`interrupted`). Safe to call twice,
   * and at any moment (from an event listener, during an advance). A closed sandbox cannot
   * be reused.
   *
   * @example
   * afterEach(() => sandbox.close());
   */
  close(): void {
    this.life.close();
  }

  /**
   * Moves virtual time forward, running every transition, event and delivery due in the
   * window in order; resolves when the work it started has settled. Idle time is free.
   * Rejects with a SandboxError when the sandbox is closed, when the duration is not one or
   * would leave the range a Date holds, and (code `interrupted`) when `reset()` or `close()`
   * cuts it short. With `clock: 'realtime'` it jumps ahead by `duration` from where the wall
   * clock has taken virtual time, and time flows on from there. With `clock: 'global'` only
   * `advance(0)` is allowed: it waits for the webhook deliveries in flight (move time with the
   * test's fake timers; docs/clock-and-determinism.md, "The test's own clock").
   *
   * @example
   * await sandbox.advance('90s'); // ms number or '500ms' '30s' '5m' '2h' '1d'
   */
  async advance(duration: Duration): Promise<void> {
    this.assertOpen('advance');
    const ms = toMs(duration, 'Failed to advance', 'duration');
    this.clock.assertMovable(ms, 'advance');
    this.log.advance(ms);
    await this.advanceWithin(ms);
  }

  private async advanceWithin(ms: number, until?: () => boolean): Promise<void> {
    try {
      await this.clock.advance(ms, until);
    } catch (error) {
      if (!(error instanceof ClockStopped)) throw error;
      throw new SandboxError(
        this.life.closed
          ? 'advance() was interrupted: the sandbox was closed while it ran, so its pending work was cancelled.'
          : 'advance() was interrupted: the sandbox was reset while it ran; the clock is back at startTime.',
        { code: 'interrupted' },
      );
    }
    if (this.listenerErrors.length > 0) {
      const [first] = this.listenerErrors.splice(0);
      throw new SandboxError(
        'An event listener you registered with sandbox.events.subscribe() (or a delivery listener from sandbox.webhooks.subscribe()) threw; see `cause`.',
        { cause: first, code: 'listener_failed' },
      );
    }
  }

  /**
   * Advances virtual time until an event matching `match` (an event type, or a predicate)
   * is emitted, and stops at the end of that instant (the other work due at the same instant
   * has run too); resolves with the event. A test can wait for
   * "the call completed" without knowing its timing. Rejects with a SandboxError when no
   * such event comes within `max` of virtual time (default one day; time has then moved
   * by `max`), and as `advance()` does when the sandbox is reset or closed meanwhile.
   *
   * @example
   * const done = await sandbox.advanceUntil('call.completed');
   * done.data.disposition; // 'busy'
   * await sandbox.advanceUntil((e) => e.type === 'message.delivered' && e.data.to === '+14155550123', { max: '1m' });
   */
  async advanceUntil<K extends EventType>(match: K, options?: { max?: Duration }): Promise<SandboxEvent<K>>;
  async advanceUntil(match: (event: SandboxEvent) => boolean, options?: { max?: Duration }): Promise<SandboxEvent>;
  async advanceUntil(match: EventType | ((event: SandboxEvent) => boolean), options: { max?: Duration } = {}): Promise<SandboxEvent> {
    this.assertOpen('advance');
    if (typeof match !== 'function' && !(EVENT_TYPES as readonly unknown[]).includes(match)) {
      throw new SandboxError(
        `advanceUntil: ${JSON.stringify(match)} is not an event type; pass one of ${EVENT_TYPES.join(', ')}, or a predicate (event) => boolean.`,
        { param: 'match' },
      );
    }
    const max = toMs(options.max ?? '1d', 'advanceUntil: max', 'max');
    this.clock.assertMovable(max, 'advanceUntil');
    const matches = typeof match === 'function' ? match : (event: SandboxEvent) => event.type === match;
    let found: SandboxEvent | undefined;
    const stop = this.events.subscribe((event) => {
      if (found === undefined && matches(event)) found = event;
    });
    const start = this.now();
    const stopped = this.log.advance(max);
    try {
      await this.advanceWithin(max, () => found !== undefined);
    } finally {
      stop();
    }
    if (found !== undefined) stopped(this.clock.now());
    if (found === undefined) {
      throw new SandboxError(
        `advanceUntil: no ${typeof match === 'function' ? 'event matching the predicate' : match} within ${options.max ?? '1d'} of ` +
          `virtual time (from ${start.toISOString()} to ${this.now().toISOString()}); raise \`max\`, or check what the scenario emits ` +
          `with sandbox.events.list().`,
        { code: 'not_found', param: 'match' },
      );
    }
    return found;
  }

  /**
   * Virtual now: `startTime` plus every advance (with `clock: 'realtime'`, plus the wall-clock
   * time since creation or the last reset; a closed sandbox's clock stands still).
   *
   * @example
   * sandbox.now().toISOString(); // '2026-01-01T00:00:00.000Z' right after creation
   */
  now(): Date {
    return new Date(this.clock.now());
  }

  /**
   * Answers one request without interception: the same pipeline `listen()` routes to.
   * Never rejects for API errors (they are JSON responses) nor for sandbox bugs (500); a
   * closed sandbox rejects with a SandboxError.
   *
   * @example
   * const res = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: 'Bearer SVC_TEST_me' } }));
   */
  handle(request: Request): Promise<Response> {
    if (this.life.closed) return Promise.reject(this.closedError('handle a request'));
    return this.pipeline.handle(request);
  }

  /**
   * A `fetch`-compatible function that calls this sandbox directly: hand it to any client or
   * SDK that takes a custom fetch (openapi-fetch, ky, the official SDKs' `fetch` option),
   * with no global patched and no `listen()` needed. A path (`'/v1/calls'`) is taken relative
   * to the base URL; an absolute URL must be under it (else 404, as `handle()` answers).
   *
   * @example
   * const client = createClient<paths>({ baseUrl: sandbox.baseUrl, fetch: sandbox.fetch });
   * const res = await sandbox.fetch('/v1/calls', { headers: { authorization: 'Bearer SVC_TEST_me' } });
   */
  readonly fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    try {
      const request =
        input instanceof Request && init === undefined
          ? input
          : new Request(typeof input === 'string' && input.startsWith('/') ? `${this.baseUrl}${input}` : input, init);
      // A network fault is a rejected fetch, as Node's fetch rejects on a dropped connection.
      return this.handle(request).then((response) => {
        if (response.type === 'error')
          throw new TypeError('fetch failed', { cause: new Error('The connection was dropped (an injected network fault).') });
        // A client that gave up during a chaos latency gets what fetch gives it: its abort reason.
        if (response.headers.has('x-sandbox-chaos') && request.signal.aborted) throw request.signal.reason;
        return response;
      });
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /**
   * Empties the instance: calls, campaigns, events, webhook subscriptions, deliveries and
   * dead letters (attempts in flight are abandoned), provisioned numbers (all back in the
   * pool), messages and conversations, rate windows, scripted behaviour and faults; the
   * clock returns to `startTime` and ids and cursors start over, so the same requests
   * then get the same answers, byte for byte, as from a new sandbox. Keys made with
   * `keys.create` stay valid. It keeps listening. An `advance()` in progress rejects
   * (`interrupted`), and nothing begun before the reset touches what comes after.
   *
   * @example
   * beforeEach(() => sandbox.reset());
   */
  reset(): void {
    this.assertOpen('reset');
    this.log.reset();
    this.life.reset();
  }

  /**
   * The OpenAPI 3.1 description of this sandbox's API (paths, parameters, request bodies,
   * responses, errors), generated from the same schemas that validate requests.
   *
   * @example
   * writeFileSync('openapi.json', JSON.stringify(sandbox.openapi(), null, 2));
   */
  openapi(): Record<string, unknown> {
    return openApiDocument(ROUTES, this.baseUrl);
  }

  /**
   * Unexpected exceptions caught inside the sandbox (each was answered as a 500 or logged). Empty in a healthy run.
   *
   * @example
   * afterEach(() => expect(sandbox.internalErrors()).toEqual([]));
   */
  internalErrors(): InternalError[] {
    return [...this.failures];
  }

  /**
   * Makes one event of `type` through a real, consistent state change, and resolves with it:
   * the smallest story that ends in it, told through the API with the account's key on the
   * virtual clock (virtual time moves as far as it needs; the events leading to it are
   * emitted too). `GET` of the resource afterwards equals the event's data, and the webhook
   * is delivered and signed like any other (docs/scenarios.md, "Triggers").
   *
   * @example
   * const busy = await sandbox.trigger('call.completed', { disposition: 'busy' });
   * const ready = await sandbox.trigger('recording.ready', { duration: 42 }, { apiKey: 'SVC_TEST_me' });
   */
  trigger<K extends EventType>(type: K, overrides?: TriggerOverrides[K], options?: TriggerOptions): Promise<SandboxEvent<K>> {
    this.assertOpen('trigger an event');
    return trigger(this, type, overrides, options);
  }

  /**
   * Runs a scenario (a scenario file's JSON, docs/scenarios.md) on this sandbox from its
   * current state and virtual now: sets up its numbers, subscriptions and network, plays its
   * steps on the virtual clock and checks its expectations. Resolves with the result (it
   * does not reject when an expectation fails: `passed` is false and `failure` says what was
   * seen instead); rejects with a SandboxError naming the JSON path and the fix when the
   * scenario is not valid.
   *
   * @example
   * const result = await createSandbox({ seed: 7 }).run(JSON.parse(readFileSync('busy-then-answered.json', 'utf8')));
   * if (!result.passed) throw new Error(result.failure!.message);
   */
  run(scenario: unknown, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
    this.assertOpen('run a scenario');
    return runScenario({ sandbox: this, receivers: this.receivers }, scenario, options);
  }

  /**
   * Scripting live calls: answer, hang up, ring a number from outside (docs/scripting.md).
   *
   * @example
   * sandbox.network.setBehavior('+14155550123', { ring: 'manual' });
   * const { id } = await (await fetch(...POST /v1/calls...)).json();
   * sandbox.calls.answer(id);        // answered now
   * await sandbox.advance('42s');
   * sandbox.calls.hangUp(id);        // completed, disposition answered, duration 42
   */
  readonly calls: CallScripting;

  /**
   * Scripting messaging traffic (docs/messaging.md).
   *
   * @example
   * const msg = sandbox.messages.inbound({ from: '+14155550123', to: myNumber, body: 'STOP' });
   * sandbox.messages.get(msg.id);   // the message as the API shows it
   */
  readonly messages: MessageScripting;

  /**
   * Scripting the simulated carrier per destination (docs/calls.md gives the defaults and
   * magic numbers).
   *
   * @example
   * sandbox.network.setBehavior('+14155550123', { outcome: 'busy' });
   * // The first call is unanswered, the retry answered.
   * sandbox.network.queueBehavior('+14155550124', { outcome: 'no_answer' }, { outcome: 'answered' });
   * sandbox.network.setMessageBehavior('+14155550125', { outcome: 'failed' }); // its SMS end `failed`
   */
  readonly network: NetworkScripting;

  /**
   * Injected faults: the next matching requests fail as a broken server or network would,
   * and change nothing (docs/scripting.md).
   *
   * @example
   * sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503, retryAfter: 1 }); // the next POST /v1/calls only
   * sandbox.faults.inject({ path: '/v1/calls/{id}', network: true, times: 2 });               // fetch rejects twice
   * sandbox.faults.list();   // the rules with hits left
   * sandbox.faults.clear();
   */
  readonly faults: FaultScripting;

  /**
   * The ordered log of emitted events, and listeners on it.
   *
   * @example
   * const types = sandbox.events.list({ apiKey: 'SVC_TEST_me' }).map((e) => e.type);
   * const stop = sandbox.events.subscribe((event) => console.log(event.type));
   */
  readonly events: EventLog;

  /**
   * Webhook deliveries, their attempts and the dead-letter queue (docs/webhooks.md).
   * Subscriptions themselves are made through the API: POST /v1/webhooks.
   *
   * @example
   * await sandbox.advance('1d');
   * sandbox.webhooks.attempts({ eventId }).map((a) => [a.attempt, a.at, a.status]);
   * const [dead] = sandbox.webhooks.deadLetters({ apiKey: 'SVC_TEST_me' });
   * await sandbox.webhooks.replay(dead.id); // same event id, X-Service-Delivery-Attempt: 1
   */
  readonly webhooks: WebhookScripting;

  /**
   * Recordings of answered calls: inspect them and time their processing (docs/recordings.md).
   *
   * @example
   * sandbox.recordings.setTiming({ recordingDelay: '1s', transcriptDelay: '2s' }); // every call from now on
   * sandbox.recordings.get('rec_…')?.status; // 'processing' | 'ready'
   */
  readonly recordings: RecordingScripting;

  /**
   * Transcripts: script a call's conversation, inspect transcripts, count open SSE streams
   * (docs/transcripts.md).
   *
   * @example
   * sandbox.transcripts.setScript(callId, [{ speaker: 'agent', text: 'Hello!' }, { speaker: 'customer', text: 'Hi, I need a refund.' }]);
   * sandbox.transcripts.get('trn_…')?.segments;
   * sandbox.transcripts.openStreams(); // 0 once every SSE client has gone
   */
  readonly transcripts: TranscriptScripting;

  /**
   * The account console's API keys: make, list and revoke test keys (docs/auth-and-accounts.md).
   *
   * @example
   * const { key } = sandbox.keys.create();
   * sandbox.keys.revoke(key); // requests with it are 401 from now on
   */
  readonly keys: KeyScripting;

  /**
   * The request journal: every request the API answered, oldest first, with its documented
   * path, status, error code, request id, API key and virtual time (docs/scripting.md).
   *
   * @example
   * const statuses = sandbox.requests.list({ path: '/v1/calls', method: 'POST' }).map((r) => r.status); // e.g. [429, 201]
   */
  readonly requests: RequestJournal;

  /**
   * What this sandbox's life exercised, against everything it could have: each documented status
   * of each endpoint, every state and transition of the call machine, every disposition and
   * `answered_by`, message outcome, webhook path (delivered first time, retried, dead-lettered,
   * replayed), event type and error code, each with a count (0: never) and `uncovered` listing the
   * zeros. It outlives `reset()`, and can be read after `close()`; `mergeCoverage` adds reports
   * up (docs/coverage.md).
   *
   * @example
   * afterAll(() => writeFileSync('coverage.json', JSON.stringify(sandbox.coverage())));
   * sandbox.coverage().uncovered; // ['calls.dispositions: busy', 'webhooks: dead_lettered', ...]
   */
  coverage(): CoverageReport {
    return this.coverageOf.report();
  }

  /** Records a failure; it cannot throw (a failing report must not turn into a crash). */
  private recordFailure(error: unknown, requestId?: string): void {
    try {
      this.failures.push({ error, at: safeIso(this.clock?.now() ?? Number.NaN), ...(requestId ? { requestId } : {}) });
    } catch {
      // nothing left to do safely
    }
  }

  private closedError(what: string): SandboxError {
    return new SandboxError(`Failed to ${what}: the sandbox is closed. Create a new one with createSandbox().`, { code: 'closed' });
  }

  private assertOpen(what: string): void {
    if (this.life.closed) throw this.closedError(what);
  }
}

const changeFeeds = new WeakMap<Sandbox, { changes: Changes; view: () => ConsoleView }>();

/**
 * The sandbox's change feed (state/changes.ts): a batch of `{kind, id}` records after each
 * step that changed something, and `reset`. Internal, for the standalone server's console
 * stream; not part of the public surface.
 */
export function changeFeed(sandbox: Sandbox): Pick<Changes, 'subscribe'> {
  const feed = changeFeeds.get(sandbox);
  if (!feed) throw new TypeError('changeFeed: not a sandbox.');
  return feed.changes;
}

/** The session's resources across its accounts, as the console reads them (control/console-view.ts). Internal. */
export function consoleViewOf(sandbox: Sandbox): ConsoleView {
  const feed = changeFeeds.get(sandbox);
  if (!feed) throw new TypeError('consoleViewOf: not a sandbox.');
  return feed.view();
}

/**
 * `namespace`, whose calls that change a sandbox now write themselves into `log` first. The
 * same object (the control API finds its internals by it), its methods replaced.
 */
function recordedCalls<T extends object>(log: InputLog, space: keyof typeof RECORDED_CALLS, namespace: T): T {
  const methods = namespace as Record<string, (...args: unknown[]) => unknown>;
  for (const method of RECORDED_CALLS[space]) {
    const fn = methods[method]!;
    methods[method] = (...args: unknown[]) => {
      log.call(`${space}.${method}`, args);
      return fn(...args);
    };
  }
  return namespace;
}

/** A recorded request as a Request without its body (the body goes beside it). */
function recordedRequest(input: RequestInput, prefix: string): Request {
  return new Request(input.path !== undefined ? prefix + input.path : input.url!, { method: input.method, headers: input.headers });
}

function recordedBody(input: RequestInput): Uint8Array | 'over' | undefined {
  if (input.bodyOver) return 'over';
  if (input.body !== undefined) return new TextEncoder().encode(input.body);
  if (input.bodyBase64 !== undefined) return new Uint8Array(Buffer.from(input.bodyBase64, 'base64'));
  return undefined;
}

/**
 * Creates a sandbox. It intercepts nothing until `listen()`.
 *
 * @example
 * import { createSandbox } from 'svc-sandbox';
 * const sandbox = createSandbox({ seed: 42 });
 * sandbox.listen();
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}
