// Longer than most files: every public member of the sandbox carries its documentation and
// example here (under 200 lines of code).
import type { OpenAPIDocument } from '../api/openapi-document.js';
import { openApiDocument } from '../api/openapi.js';
import { ClockStopped } from '../core/clock.js';
import { toMs, type Duration } from '../core/duration.js';
import { SandboxError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import { intercept } from '../intercept/interceptor.js';
import type { SandboxOptions } from '../options.js';
import type { CallScripting } from '../scripting/calls.js';
import type { CoverageReport } from '../scripting/coverage-report.js';
import type { EventLog } from '../scripting/events.js';
import type { FaultScripting } from '../scripting/faults.js';
import type { KeyScripting } from '../scripting/keys.js';
import type { RecordingScripting, TranscriptScripting } from '../scripting/media.js';
import type { MessageScripting } from '../scripting/messages.js';
import type { NetworkScripting } from '../scripting/network.js';
import type { RequestJournal } from '../scripting/requests.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import type { WebhookScripting } from '../scripting/webhooks.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from '../state/events.js';
import type { SimulatedReceivers } from '../webhooks/receivers.js';
import { type InternalError, makeParts, type Parts, type SandboxInternals } from './parts.js';
import { restore } from './restore.js';
import { ROUTES } from '../api/routes/index.js';

/**
 * One simulated service: its own clock, seeded randomness, accounts, calls and event
 * log. Nothing is shared between two sandboxes except the process-wide interception,
 * which routes by base URL. Create it with {@link createSandbox}.
 *
 * This class is the sandbox without its scenarios and triggers (src/sandbox.ts adds them, so
 * src/scenarios can drive it): the lifecycle (`listen`, `advance`, `reset`, `close`) and the
 * public members. Its parts are made in parts.ts; the scripting namespaces are src/scripting/,
 * the HTTP API src/api/ (docs/architecture.md).
 */
export class SandboxBase {
  /** The base URL served, without a trailing slash. */
  readonly baseUrl: string;
  readonly seed: number;

  private readonly parts: Parts;
  /** A scenario's simulated webhook receivers (src/webhooks/receivers.ts). */
  protected readonly receivers: SimulatedReceivers;
  /** Its generation (every reset and the close change it) and whether it is closed: how long work (a scenario) sees its world is gone. */
  protected readonly lifecycle: Pick<Lifecycle, 'generation' | 'closed'>;
  private listening = false;

  /**
   * @param internals The standalone server's handle on what it reads beside the public
   * surface (src/sandbox.ts `openSandbox`); a library user passes nothing. Internal.
   */
  constructor(options: SandboxOptions = {}, internals?: (internals: SandboxInternals) => void) {
    const parts = (this.parts = makeParts(options));
    this.baseUrl = parts.options.baseUrl;
    this.seed = parts.options.seed;
    this.receivers = parts.receivers;
    this.lifecycle = parts.life;
    ({
      calls: this.calls,
      messages: this.messages,
      network: this.network,
      faults: this.faults,
      events: this.events,
      webhooks: this.webhooks,
      recordings: this.recordings,
      transcripts: this.transcripts,
      keys: this.keys,
      requests: this.requests,
    } = parts.scripting);
    internals?.(parts.internals);
    if (parts.options.snapshot) restore(parts, parts.options.snapshot);
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
    return this.parts.recorder.snapshot();
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
      this.parts.life.defer(
        intercept(this.parts.options.origin, this.parts.options.basePath, (request) => this.handle(request), this.parts.options.unhandled),
      );
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
    this.parts.life.close();
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
    this.parts.clock.assertMovable(ms, 'advance');
    this.parts.recorder.advance(ms);
    await this.advanceWithin(ms);
  }

  private async advanceWithin(ms: number, until?: () => boolean): Promise<void> {
    try {
      await this.parts.clock.advance(ms, until);
    } catch (error) {
      if (!(error instanceof ClockStopped)) throw error;
      throw new SandboxError(
        this.parts.life.closed
          ? 'advance() was interrupted: the sandbox was closed while it ran, so its pending work was cancelled.'
          : 'advance() was interrupted: the sandbox was reset while it ran; the clock is back at startTime.',
        { code: 'interrupted' },
      );
    }
    if (this.parts.listenerErrors.length > 0) {
      const [first] = this.parts.listenerErrors.splice(0);
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
    this.parts.clock.assertMovable(max, 'advanceUntil');
    const matches = typeof match === 'function' ? match : (event: SandboxEvent) => event.type === match;
    let found: SandboxEvent | undefined;
    const stop = this.events.subscribe((event) => {
      if (found === undefined && matches(event)) found = event;
    });
    const start = this.now();
    const stopped = this.parts.recorder.advance(max);
    try {
      await this.advanceWithin(max, () => found !== undefined);
    } finally {
      stop();
    }
    if (found !== undefined) stopped(this.parts.clock.now());
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
    return new Date(this.parts.clock.now());
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
    if (this.parts.life.closed) return Promise.reject(this.parts.closedError('handle a request'));
    return this.parts.pipeline.handle(request);
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
    this.parts.recorder.reset();
    this.parts.life.reset();
  }

  /**
   * The OpenAPI 3.1 description of this sandbox's API (paths, parameters, request bodies,
   * responses, errors), generated from the same schemas that validate requests.
   *
   * @example
   * writeFileSync('openapi.json', JSON.stringify(sandbox.openapi(), null, 2));
   */
  openapi(): OpenAPIDocument {
    return openApiDocument(ROUTES, this.baseUrl);
  }

  /**
   * Unexpected exceptions caught inside the sandbox (each was answered as a 500 or logged). Empty in a healthy run.
   *
   * @example
   * afterEach(() => expect(sandbox.internalErrors()).toEqual([]));
   */
  internalErrors(): InternalError[] {
    return [...this.parts.failures];
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
    return this.parts.coverage.report();
  }

  /** Throws SandboxError (`closed`) once the sandbox is closed. */
  protected assertOpen(what: string): void {
    this.parts.assertOpen(what);
  }
}
