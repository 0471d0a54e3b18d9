import { Auth } from './api/auth.js';
import { Faults, type ActiveFault, type FaultRule } from './api/faults.js';
import { Cursors } from './api/pagination.js';
import { Pipeline } from './api/pipeline.js';
import { RateLimiter } from './api/rate-limit.js';
import { Router, type Route } from './api/router.js';
import { openApiDocument } from './api/openapi.js';
import { routeTable } from './api/routes/index.js';
import { SandboxError } from './core/errors.js';
import { EventBus } from './state/event-bus.js';
import { TranscriptStreams } from './api/transcript-stream.js';
import { webhookScripting, type WebhookScripting } from './control/webhooks.js';
import { Webhooks } from './events/deliveries.js';
import { eventLog, type EventLog } from './control/events.js';
import { intercept } from './intercept/interceptor.js';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js';
import { callScripting, type CallScripting } from './control/calls.js';
import { CallService } from './state/calls.js';
import { recordingScripting, transcriptScripting, type RecordingScripting, type TranscriptScripting } from './control/media.js';
import { RecordingService } from './state/recordings.js';
import { messageScripting, type MessageScripting } from './control/messages.js';
import { MessageService } from './state/messages.js';
import { NumberService } from './state/numbers.js';
import { Templates } from './state/templates.js';
import { iso } from './core/time.js';
import { NumberInventory } from './sim/inventory.js';
import { VirtualClock } from './core/clock.js';
import { Dialer } from './state/dialer.js';
import { toMs, type Duration } from './core/duration.js';
import { MessageNetwork, type MessageBehavior } from './state/message-network.js';
import { Network, type CallBehavior } from './state/network.js';
import { SeededRandom } from './core/random.js';

/** An unexpected exception inside the sandbox, kept for inspection (it was answered as a 500 or reported by `advance`). */
export interface InternalError {
  error: unknown;
  requestId?: string;
  at: string;
}

/**
 * One simulated service: its own clock, seeded randomness, accounts, calls and event
 * log. Nothing is shared between two sandboxes except the process-wide interception,
 * which routes by base URL. Create it with {@link createSandbox}.
 */
export class Sandbox {
  /** The base URL served, without a trailing slash. */
  readonly baseUrl: string;
  readonly seed: number;

  private readonly options: ResolvedOptions;
  private readonly clock: VirtualClock;
  private readonly random: SeededRandom;
  private readonly bus: EventBus;
  private readonly networkSim = new Network();
  private readonly messageNetworkSim = new MessageNetwork();
  private readonly faultRules = new Faults();
  private readonly callService: CallService;
  private readonly dialer: Dialer;
  private readonly numberService: NumberService;
  private readonly messageService: MessageService;
  private readonly webhookService: Webhooks;
  private readonly recordingService: RecordingService;
  private readonly transcriptStreams: TranscriptStreams;
  private readonly auth: Auth;
  private readonly limiter = new RateLimiter();
  private readonly pipeline: Pipeline;
  private readonly routes: readonly Route[];
  private readonly failures: InternalError[] = [];
  /** Errors thrown by the user's own event listeners, rethrown by the next advance(). */
  private readonly listenerErrors: unknown[] = [];
  private stopIntercepting: (() => void) | null = null;
  private closed = false;

  constructor(options: SandboxOptions = {}) {
    this.options = resolveOptions(options);
    this.baseUrl = this.options.baseUrl;
    this.seed = this.options.seed;
    this.random = new SeededRandom(this.seed);
    const onError = (error: unknown) => this.recordFailure(error);
    this.clock = new VirtualClock(this.options.startMs, onError);
    this.bus = new EventBus(this.random, () => this.clock.now(), onError);
    this.callService = new CallService({
      clock: this.clock,
      random: this.random,
      bus: this.bus,
      baseUrl: this.baseUrl,
      aiHandler: this.options.aiHandler,
      onError,
    });
    this.dialer = new Dialer({
      clock: this.clock,
      random: this.random,
      calls: this.callService,
      network: this.networkSim,
      aiHandler: this.options.aiHandler,
      intervalMs: this.options.dialIntervalMs,
    });
    this.webhookService = new Webhooks({
      clock: this.clock,
      random: this.random,
      bus: this.bus,
      timeoutMs: this.options.webhookTimeoutMs,
      onError,
    });
    this.recordingService = new RecordingService({ clock: this.clock, bus: this.bus, calls: this.callService, baseUrl: this.baseUrl, aiHandler: this.options.aiHandler });
    this.transcriptStreams = new TranscriptStreams({ clock: this.clock, recordings: this.recordingService });
    this.recordings = recordingScripting(this.recordingService, (what) => this.assertOpen(what));
    this.transcripts = transcriptScripting(this.recordingService, this.transcriptStreams, (what) => this.assertOpen(what));
    this.webhooks = webhookScripting(this.webhookService, (key, where) => this.accountOf(key, where), (what) => this.assertOpen(what));
    this.auth = new Auth(this.options);
    this.numberService = new NumberService({ clock: this.clock, random: this.random, inventory: new NumberInventory(this.random) });
    this.messageService = new MessageService({ clock: this.clock, random: this.random, bus: this.bus });
    const accountOf = (key: string, where: string) => this.accountOf(key, where);
    const assertOpen = (what: string) => this.assertOpen(what);
    this.calls = callScripting({ calls: this.callService, numbers: this.numberService, network: this.networkSim, accountOf, assertOpen });
    this.messages = messageScripting(this.messageService, this.numberService, assertOpen);
    this.events = eventLog(this.bus, accountOf, (error) => this.listenerErrors.push(error));
    const router = new Router(
      routeTable({
        calls: this.callService,
        dialer: this.dialer,
        network: this.networkSim,
        messageNetwork: this.messageNetworkSim,
        cursors: new Cursors(`svc-sandbox:${this.seed}`),
        recordings: this.recordingService,
        transcriptStreams: this.transcriptStreams,
        webhooks: this.webhookService,
        sandboxOrigin: this.options.origin,
        numbers: this.numberService,
        messages: this.messageService,
        templates: new Templates(this.options.templates),
      }),
    );
    this.routes = router.routes;
    this.pipeline = new Pipeline({
      router,
      auth: this.auth,
      limiter: this.limiter,
      random: this.random,
      now: () => this.clock.now(),
      basePath: this.options.basePath,
      faults: this.faultRules,
      onInternalError: (error, requestId) => this.recordFailure(error, requestId),
    });
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
    this.stopIntercepting ??= intercept(new URL(this.baseUrl).origin, this.options.basePath, (request) => this.handle(request));
    return this;
  }

  /**
   * Stops intercepting (the last sandbox to close restores every patched global) and
   * cancels all pending virtual work, webhook retries and attempts in flight. Safe to call
   * twice. A closed sandbox cannot be reused.
   *
   * @example
   * afterEach(() => sandbox.close());
   */
  close(): void {
    this.stopIntercepting?.();
    this.stopIntercepting = null;
    this.callService.stopAll();
    this.webhookService.stopAll();
    this.transcriptStreams.closeAll();
    this.clock.cancelAll();
    this.closed = true;
  }

  /**
   * Moves virtual time forward, running every transition, event and delivery due in the
   * window in order; resolves when the work it started has settled. Idle time is free.
   *
   * @example
   * await sandbox.advance('90s'); // ms number or '500ms' '30s' '5m' '2h' '1d'
   */
  async advance(duration: Duration): Promise<void> {
    this.assertOpen('advance');
    await this.clock.advance(toMs(duration, 'Failed to advance'));
    if (this.listenerErrors.length > 0) {
      const [first] = this.listenerErrors.splice(0);
      throw new SandboxError('An event listener you registered with sandbox.events.subscribe() threw; see `cause`.', { cause: first });
    }
  }

  /**
   * Virtual now.
   *
   * @example
   * sandbox.now().toISOString(); // '2026-01-01T00:00:00.000Z' right after creation
   */
  now(): Date {
    return new Date(this.clock.now());
  }

  /**
   * Answers one request without interception: the same pipeline `listen()` routes to.
   * Never rejects for API errors (they are JSON responses) nor for sandbox bugs (500).
   *
   * @example
   * const res = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: 'Bearer SVC_TEST_me' } }));
   */
  handle(request: Request): Promise<Response> {
    this.assertOpen('handle a request');
    return this.pipeline.handle(request);
  }

  /**
   * Empties the instance: calls, campaigns, events, webhook subscriptions, deliveries and
   * dead letters (attempts in flight are abandoned), provisioned numbers (all back in the
   * pool), messages and conversations, rate windows, scripted behaviour; the
   * clock returns to `startTime` and ids start over. It keeps listening.
   *
   * @example
   * beforeEach(() => sandbox.reset());
   */
  reset(): void {
    this.assertOpen('reset');
    this.callService.clear();
    this.dialer.store.clear();
    this.webhookService.clear();
    this.transcriptStreams.closeAll();
    this.recordingService.clear();
    this.numberService.clear();
    this.messageService.clear();
    this.clock.reset(this.options.startMs);
    this.bus.clear();
    this.limiter.clear();
    this.auth.clear();
    this.networkSim.clearBehavior();
    this.messageNetworkSim.clearBehavior();
    this.faultRules.clear();
    this.random.reset();
    this.failures.length = 0;
    this.listenerErrors.length = 0;
  }

  /**
   * The OpenAPI 3.1 description of this sandbox's API (paths, parameters, request bodies,
   * errors), generated from the same schemas that validate requests.
   *
   * @example
   * writeFileSync('openapi.json', JSON.stringify(sandbox.openapi(), null, 2));
   */
  openapi(): Record<string, unknown> {
    return openApiDocument(this.routes, this.baseUrl);
  }

  /** Unexpected exceptions caught inside the sandbox (each was answered as a 500 or logged). Empty in a healthy run. */
  internalErrors(): InternalError[] {
    return [...this.failures];
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
   * Scripting the simulated carrier per destination (CONTRACT §7 gives the defaults and
   * magic numbers).
   *
   * @example
   * sandbox.network.setBehavior('+14155550123', { outcome: 'busy' });
   * sandbox.network.queueBehavior('+14155550124', { outcome: 'no_answer' }, { outcome: 'answered' }); // first call unanswered, the retry answered
   * sandbox.network.setMessageBehavior('+14155550125', { outcome: 'failed' }); // its SMS end `failed`
   */
  readonly network = {
    /** Every later call to `number` behaves so (until cleared). */
    setBehavior: (number: string, behavior: CallBehavior): void => this.networkSim.setBehavior(number, behavior),
    /** The next calls to `number` take these behaviours, one each, before the standing one applies again. */
    queueBehavior: (number: string, ...behaviors: CallBehavior[]): void => this.networkSim.queueBehavior(number, behaviors),
    /** Every later message to `number` ends so (until cleared): `{ outcome: 'failed' }` or `'delivered'`. */
    setMessageBehavior: (number: string, behavior: MessageBehavior): void => this.messageNetworkSim.setBehavior(number, behavior),
    /** The next messages to `number` take these behaviours, one each, before the standing one applies again. */
    queueMessageBehavior: (number: string, ...behaviors: MessageBehavior[]): void => this.messageNetworkSim.queueBehavior(number, behaviors),
    /** Forgets scripted call and message behaviour of `number`, or of every number. */
    clearBehavior: (number?: string): void => {
      this.networkSim.clearBehavior(number);
      this.messageNetworkSim.clearBehavior(number);
    },
  };

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
  readonly faults = {
    /** Adds a rule; rules apply in the order they were injected. Throws SandboxError on a malformed rule. */
    inject: (rule: FaultRule = {}): void => {
      this.assertOpen('inject a fault');
      this.faultRules.inject(rule);
    },
    /** The rules with hits left, in order. */
    list: (): ActiveFault[] => this.faultRules.list(),
    /** Forgets every rule. */
    clear: (): void => this.faultRules.clear(),
  };

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

  private accountOf(apiKey: string, where: string): string {
    try {
      return this.auth.authenticate(`Bearer ${apiKey}`).account;
    } catch (error) {
      throw new SandboxError(`${where}: ${JSON.stringify(apiKey)} is not an API key this sandbox accepts (${(error as Error).message})`);
    }
  }

  private recordFailure(error: unknown, requestId?: string): void {
    this.failures.push({ error, at: iso(this.clock.now()), ...(requestId ? { requestId } : {}) });
  }

  private assertOpen(what: string): void {
    if (this.closed) throw new SandboxError(`Failed to ${what}: the sandbox is closed. Create a new one with createSandbox().`);
  }
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
