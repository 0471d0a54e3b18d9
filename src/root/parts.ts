import { ERROR_CODES } from '../api/errors.js';
import { documentedStatuses } from '../api/openapi.js';
import { Cursors } from '../api/pagination.js';
import type { Answer } from '../api/answer.js';
import { Pipeline } from '../api/pipeline.js';
import type { Incoming } from '../api/request-body.js';
import { RateLimiter } from '../api/rate-limit.js';
import { Router } from '../api/router.js';
import { ROUTES, type RouteDeps } from '../api/routes/index.js';
import { TranscriptStreams } from '../api/transcript-stream.js';
import { VirtualClock, type ClockEvents } from '../core/clock.js';
import { Emitter } from '../core/emitter.js';
import { SandboxError } from '../core/errors.js';
import { Lifecycle } from '../core/lifecycle.js';
import { SeededRandom } from '../core/random.js';
import { Steps } from '../core/steps.js';
import { safeIso } from '../core/time.js';
import { optionsJson, resolveOptions, type ResolvedOptions, type SandboxOptions } from '../options.js';
import { callScripting, type CallScripting } from '../scripting/calls.js';
import { ConsoleView } from '../scripting/console-view.js';
import type { ControlContext } from '../scripting/context.js';
import { Coverage } from '../scripting/coverage.js';
import { type EventLog, type EventPositions, eventLog, eventPositions } from '../scripting/events.js';
import { faultScripting, type FaultScripting } from '../scripting/faults.js';
import { keyScripting, type KeyScripting } from '../scripting/keys.js';
import { recordingScripting, transcriptScripting, type RecordingScripting, type TranscriptScripting } from '../scripting/media.js';
import { messageScripting, type MessageScripting } from '../scripting/messages.js';
import { networkScripting, type NetworkScripting } from '../scripting/network.js';
import { requestJournal, type RequestJournal } from '../scripting/requests.js';
import { Recorder } from '../scripting/recorder.js';
import { type DeliveryPages, deliveryPages, type WebhookScripting, webhookScripting } from '../scripting/webhooks.js';
import { NumberInventory } from '../sim/inventory.js';
import { Accounts } from '../state/accounts.js';
import { callMachine } from '../state/call-machine.js';
import { CallService, type CallEvents } from '../state/calls.js';
import { Changes } from '../state/changes.js';
import { Chaos } from '../state/chaos.js';
import { Dialer } from '../state/dialer.js';
import { EventBus, type BusEvents } from '../state/event-bus.js';
import { Faults } from '../state/faults.js';
import { Journal } from '../state/journal.js';
import { MachineCoverage } from '../state/machine-coverage.js';
import { MessageService } from '../state/messages.js';
import { Network } from '../state/network.js';
import { NumberService } from '../state/numbers.js';
import { RecordingService } from '../state/recordings.js';
import { Subscriptions, type SubscriptionEvents } from '../state/subscriptions.js';
import { Templates } from '../state/templates.js';
import { TranscriptService, type TranscriptEvents } from '../state/transcripts.js';
import { Deliveries } from '../webhooks/deliveries.js';
import type { DeliveryEvents } from '../webhooks/delivery.js';
import { SimulatedReceivers } from '../webhooks/receivers.js';

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

/** The scripting namespaces, as the sandbox shows them (`sandbox.calls`, ...). */
export interface Scripting {
  calls: CallScripting;
  network: NetworkScripting;
  messages: MessageScripting;
  faults: FaultScripting;
  events: EventLog;
  webhooks: WebhookScripting;
  recordings: RecordingScripting;
  transcripts: TranscriptScripting;
  keys: KeyScripting;
  requests: RequestJournal;
}

/**
 * What the standalone server reads of a sandbox beside its public surface, handed to it
 * explicitly when it makes the sandbox (`openSandbox` in src/sandbox.ts): never reachable from
 * a sandbox a library user holds.
 */
export interface SandboxInternals {
  /** What changed in each step (state/changes.ts), for the console's stream. */
  changes: Pick<Changes, 'subscribe'>;
  /** The session's resources across its accounts, as the console reads them; made on first use. */
  view(): ConsoleView;
  /** The event log by position, for pages and streams that read from where they stopped. */
  events: EventPositions;
  /** The deliveries by position, for the control API's pages. */
  deliveries: DeliveryPages;
  /** Virtual now, epoch ms: what a reader of the change feed during a snapshot's replay (no sandbox yet) times each batch by. */
  now(): number;
  /**
   * Answers a `/v1` request as the pipeline's {@link Answer}, which the server writes to its
   * socket as it is (no web `Response` made); a closed sandbox rejects, as `handle()` does.
   */
  answer(request: Incoming): Answer | Promise<Answer>;
  /** The rate-limit headers for a request the server's parser refused that names a valid key (api/pipeline.ts `rateHeaders`). */
  rateHeaders(authorization: string | null): Record<string, string> | null;
  /** The journal's entries of these request ids, each with the one listed before it (state/journal.ts `find`): what the console's stream sends. */
  requests: Journal['find'];
}

/** Every part of one sandbox, made once by {@link makeParts}. */
export interface Parts {
  options: ResolvedOptions;
  life: Lifecycle;
  clock: VirtualClock;
  pipeline: Pipeline;
  deliveries: Deliveries;
  /** Every input, for snapshot() (docs/snapshots.md). */
  recorder: Recorder;
  /** A scenario's simulated webhook receivers (src/webhooks/receivers.ts). */
  receivers: SimulatedReceivers;
  coverage: Coverage;
  /** Unexpected exceptions (internalErrors()). */
  failures: InternalError[];
  /** Errors thrown by the user's own event listeners, rethrown by the next advance(). */
  listenerErrors: unknown[];
  scripting: Scripting;
  internals: SandboxInternals;
  /** Throws SandboxError (`closed`) once the sandbox is closed. */
  assertOpen(what: string): void;
  closedError(what: string): SandboxError;
}

/**
 * The composition root: makes every part of one sandbox once and registers each with its
 * lifecycle (core/lifecycle.ts), in the order their listeners must run (docs/architecture.md).
 */
export function makeParts(options: SandboxOptions): Parts {
  const o = resolveOptions(options);
  const failures: InternalError[] = [];
  const listenerErrors: unknown[] = [];
  let clock: VirtualClock | undefined;
  // Records a failure; it cannot throw (a failing report must not turn into a crash).
  const recordFailure = (error: unknown, requestId?: string): void => {
    try {
      failures.push({ error, at: safeIso(clock?.now() ?? Number.NaN), ...(requestId ? { requestId } : {}) });
    } catch {
      // nothing left to do safely
    }
  };
  const onError = (error: unknown) => recordFailure(error);
  const life = new Lifecycle(onError);
  const add = life.add.bind(life);
  const closedError = (what: string) =>
    new SandboxError(`Failed to ${what}: the sandbox is closed. Create a new one with createSandbox().`, { code: 'closed' });
  const assertOpen = (what: string): void => {
    if (life.closed) throw closedError(what);
  };
  // What the sandbox reports (internalErrors(), a listener's error) belongs to the world a
  // reset empties; registered first, so a failure while the others reset stays visible.
  add({
    reset: () => {
      failures.length = 0;
      listenerErrors.length = 0;
    },
  });

  // core: one clock, one seeded random source, one emitter, steps.
  const steps = add(new Steps(onError));
  const events = new Emitter<SandboxEvents>(onError);
  clock = add(new VirtualClock(o.startMs, { onError, events, steps, mode: o.clock, wall: o.wall }));
  const theClock = clock;
  // A realtime clock's real timer goes with the sandbox (reset keeps the mode; close ends it).
  if (o.clock === 'realtime') life.defer(() => theClock.dispose());
  const random = add(new SeededRandom(o.seed));
  const now = () => theClock.now();
  // The journal is made below; the recorder asks it how many it holds only once requests come.
  const recorder = new Recorder(optionsJson(o), o.origin + o.basePath, now, o.maxJournalEntries, () => journal.size);

  // state: stores, machines and domain services. Listeners on the emitter run in the
  // order the parts are made here: on call.completed the recording is stored, then the
  // campaign counts the call, and only then is call.completed published.
  const bus = add(new EventBus({ random, now, events, steps }));
  const accounts = add(new Accounts({ keys: o.keys, onlyConfiguredKeys: o.onlyConfiguredKeys, seed: o.seed }, now));
  // Chaos draws from streams of its own (docs/chaos.md); a sandbox without a profile draws nothing.
  const chaos = add(new Chaos(o.chaos, random, o.wall));
  const network = add(new Network(chaos));
  const faults = add(new Faults());
  // The call machine's states and transitions, counted as calls run (coverage outlives reset).
  const machines = new MachineCoverage(callMachine);
  const calls = add(
    new CallService({ clock, random, bus, events, baseUrl: o.publicUrl, aiHandler: o.aiHandler, onError, inspect: machines.inspect }),
  );
  const transcripts = add(new TranscriptService({ clock, events, aiHandler: o.aiHandler }));
  const recordings = add(
    new RecordingService({ clock, bus, events, calls, transcripts, baseUrl: o.publicUrl, later: (fn) => steps.after(fn) }),
  );
  const dialer = add(new Dialer({ clock, random, calls, events, network, aiHandler: o.aiHandler, intervalMs: o.dialIntervalMs }));
  const numbers = add(new NumberService({ clock, random, inventory: new NumberInventory(random), network }));
  const messages = add(new MessageService({ clock, random, bus }));
  const subscriptions = add(new Subscriptions({ clock, random, events }));

  // webhooks (out): delivery.
  const receivers = add(new SimulatedReceivers());
  const deliveries = add(
    new Deliveries({
      clock,
      random,
      subscriptions,
      events,
      timeoutMs: o.webhookTimeoutMs,
      onError,
      chaos,
      receivers,
      tape: recorder,
      wall: o.wall,
    }),
  );

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
  // A removed subscription's pending deliveries are canceled (deliveries listened first): no attempt settles to say so.
  events.on('subscription:removed', ({ subscription }) => {
    for (const d of deliveries.deliveries({ subscriptionId: subscription.id, state: 'canceled' }))
      changes.touch('delivery', d.id, subscription.account);
  });
  events.on('clock:moving', () => changes.touch('clock', 'now'));

  // api (HTTP in).
  const streams = add(new TranscriptStreams({ clock, transcripts, events }));
  const journal = add(new Journal(o.maxJournalEntries, (forgotten) => coverage.forgotten(forgotten), o.maxJournalBytes));
  // Each request the API answered joins the journal, and the console's request log with it.
  journal.watch((record) => changes.touch('request', record.requestId));
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
  assertChaosRoutes(chaos);
  const pipeline = new Pipeline({
    router: ROUTER,
    routeDeps,
    accounts,
    limiter: add(new RateLimiter()),
    random,
    now,
    origin: o.origin,
    basePath: o.basePath,
    faults,
    steps,
    generation: () => life.generation,
    onInternalError: recordFailure,
    clock: o.clock,
    deprecation: o.deprecation,
    journal,
    chaos,
    log: recorder,
  });

  // scripting (in): the namespaces, which the standalone server's control API calls too.
  const ctx: ControlContext = { steps, accounts, assertOpen, recorder };
  const onListenerError = (error: unknown) => listenerErrors.push(error);
  const scripting: Scripting = {
    calls: callScripting(ctx, { calls, numbers, network }),
    network: networkScripting(ctx, network),
    messages: messageScripting(ctx, messages, numbers),
    faults: faultScripting(ctx, faults),
    events: eventLog(ctx, bus, onListenerError),
    webhooks: webhookScripting(ctx, { deliveries, events, onListenerError }),
    recordings: recordingScripting(ctx, recordings, calls),
    transcripts: transcriptScripting(ctx, transcripts, calls, () => streams.count),
    keys: keyScripting(ctx, accounts, (key, removed) => changes.touch('key', key, '', removed)),
    requests: requestJournal(journal),
  };
  // The console's view is made when a console first reads it: most sandboxes never serve one.
  let view: ConsoleView | undefined;
  const internals: SandboxInternals = {
    changes,
    events: eventPositions(bus),
    deliveries: deliveryPages(deliveries),
    now: () => clock.now(),
    view: () => (view ??= new ConsoleView({ calls, messages, numbers, recordings, transcripts, subscriptions, deliveries, bus })),
    answer: (request) => (life.closed ? Promise.reject(closedError('handle a request')) : pipeline.answer(request)),
    rateHeaders: (authorization) => (life.closed ? null : pipeline.rateHeaders(authorization)),
    requests: (ids) => journal.find(ids),
  };
  // Reads the records above when asked, and folds them before a reset forgets them (docs/coverage.md).
  const coverage = add(
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
  );
  return {
    options: o,
    life,
    clock,
    pipeline,
    deliveries,
    recorder,
    receivers,
    coverage,
    failures,
    listenerErrors,
    scripting,
    internals,
    assertOpen,
    closedError,
  };
}

/** A chaos profile's `requests` key that fits no route would never apply: refused at creation. */
function assertChaosRoutes(chaos: Chaos): void {
  const unknown = chaos.unknownRoute(ROUTES);
  if (!unknown) return;
  const hint = unknown.near
    ? `: did you mean ${JSON.stringify(unknown.near)}?`
    : '; write a path such as "/v1/calls/{id}", or a method and a path such as "POST /v1/calls".';
  throw new SandboxError(`\`chaos.requests\` key ${JSON.stringify(unknown.key)} fits no route of the API, so it would never apply${hint}`, {
    where: 'createSandbox',
    code: 'invalid_options',
    param: `chaos.requests.${unknown.key}`,
  });
}
