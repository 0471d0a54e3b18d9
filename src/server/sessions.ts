import { customAlphabet } from 'nanoid';
import type { ClockMode } from '../core/clock.js';
import type { KeyCreateOptions } from '../control/keys.js';
import { emptyCoverage, mergeCoverage, type CoverageReport } from '../control/coverage-report.js';
import { SandboxError } from '../core/errors.js';
import { SeededRandom } from '../core/random.js';
import type { Duration } from '../core/duration.js';
import { createSandbox, type Sandbox } from '../sandbox.js';
import type { SessionStreams } from './stream.js';

/** One session: a sandbox of its own, with its own clock, seed, ids, accounts and queues. */
export interface Session {
  /** `default`, or `ses_` and 16 characters. */
  readonly id: string;
  readonly seed: number;
  readonly sandbox: Sandbox;
  readonly streams: SessionStreams;
  /** The keys this session issued: the only `SVC_TEST_ses_…` keys that route to it. */
  readonly issued: Set<string>;
}

/** A key made for a session names it: `SVC_TEST_ses_<16>_<16>` (docs/server.md, "Sessions"). */
const SESSION_KEY = /^SVC_TEST_(ses_[0-9A-Za-z]{16})_/;
export const DEFAULT_SESSION = 'default';
/** Live sessions a server holds at most (docs/server.md, "Sessions"): each is a whole sandbox. */
export const MAX_SESSIONS = 1000;

export interface SessionDefaults {
  seed: number;
  startTime: string | number | Date | undefined;
  /**
   * Whether a seed was asked for: then session ids and keys derive from it (the same on every
   * run); otherwise they come from the operating system's secure random source, so no other
   * program can guess them (docs/server.md, "Security model").
   */
  seeded: boolean;
  /** Real time a webhook attempt may take (createSandbox's `webhookTimeout`); undefined: its default. */
  webhookTimeout?: Duration | undefined;
  /** The clock mode of sessions that give none. Default `manual`. */
  clock?: ClockMode | undefined;
}

/** What a new session may set; the rest is the server's. */
export interface SessionOptions {
  seed?: number;
  startTime?: string | number | Date;
  clock?: ClockMode;
  deprecation?: NonNullable<Parameters<typeof createSandbox>[0]>['deprecation'];
  webhookTimeout?: Duration;
  /** createSandbox's `chaos` profile (docs/chaos.md). */
  chaos?: NonNullable<Parameters<typeof createSandbox>[0]>['chaos'];
}

/** Where session ids and the server's keys come from. */
interface IdSource {
  id(prefix: 'ses' | 'key'): string;
}

/** 16 characters of [0-9A-Za-z] from the secure random source (nanoid's, over node:crypto). */
const secret16 = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16);
const SECRET: IdSource = { id: (prefix) => `${prefix}_${secret16()}` };

/**
 * The sessions of one server. Requests are routed by their API key: a key made for a
 * session names that session, and every other `SVC_TEST_` key belongs to `default`, which
 * always exists. A key that names a session routes there only if that session issued it: a
 * forged `SVC_TEST_ses_<id>_anything` is 401, as is a deleted session's key.
 */
export class Sessions {
  private readonly all = new Map<string, Session>();
  /** The coverage of the sessions that ended (deleted, or closed with the server). */
  private ended: CoverageReport = emptyCoverage();
  /** Session ids and their keys: seeded when a seed was asked for, else secret. */
  private readonly random: IdSource;

  constructor(
    private readonly baseUrl: string,
    private readonly defaults: SessionDefaults,
    private readonly makeStreams: (session: () => Session) => SessionStreams,
  ) {
    this.random = defaults.seeded ? new SeededRandom(defaults.seed) : SECRET;
    this.add(DEFAULT_SESSION, defaults.seed, this.sandbox({ seed: defaults.seed }));
  }

  get default(): Session {
    return this.all.get(DEFAULT_SESSION)!;
  }

  /** A new session; `seed`, `startTime`, `clock` and `webhookTimeout` default to the server's. */
  create(options: SessionOptions): { session: Session; apiKey: string } {
    if (this.all.size >= MAX_SESSIONS) {
      throw new SandboxError(`The server holds ${MAX_SESSIONS} sessions, its limit: delete the ones a finished test left (DELETE /__sandbox/sessions/{s}) before making more.`, { code: 'conflict' });
    }
    const seed = options.seed ?? this.defaults.seed;
    // Bad options throw before anything is drawn.
    const sandbox = this.sandbox({ ...options, seed });
    let id: string;
    do id = this.random.id('ses');
    while (this.all.has(id));
    const session = this.add(id, seed, sandbox);
    this.listChanged(id, false);
    return { session, apiKey: this.makeKey(session) };
  }

  get(id: string): Session | undefined {
    return this.all.get(id);
  }

  list(): Session[] {
    return [...this.all.values()];
  }

  /** Ends a session at any moment: its advance in flight rejects, its attempts and streams stop, its keys are 401. */
  delete(id: string): void {
    const session = this.all.get(id);
    if (!session) return;
    if (id === DEFAULT_SESSION) {
      throw new SandboxError('The default session always exists: reset it instead (POST /__sandbox/sessions/default/reset).', { code: 'conflict', param: 's' });
    }
    this.all.delete(id);
    session.streams.closeAll();
    session.sandbox.close();
    this.listChanged(id, true);
    this.ended = mergeCoverage(this.ended, session.sandbox.coverage());
  }

  /** The session list changed: every console, whichever session it shows, updates its picker. */
  private listChanged(id: string, removed: boolean): void {
    for (const other of this.all.values()) other.streams.changed([{ kind: 'session', id, removed }]);
  }

  /** The union of the coverage of every session this server held, deleted ones included (docs/coverage.md). */
  coverage(): CoverageReport {
    return mergeCoverage(this.ended, ...this.list().map((s) => s.sandbox.coverage()));
  }

  /** A new test key of `session`, which routes to it; `options` as `sandbox.keys.create` takes them (plan, scopes). */
  makeKey(session: Session, options: Omit<KeyCreateOptions, 'key'> = {}): string {
    const suffix = this.random.id('key').slice('key_'.length);
    const key = session.id === DEFAULT_SESSION ? `SVC_TEST_${suffix}` : `SVC_TEST_${session.id}_${suffix}`;
    session.issued.add(session.sandbox.keys.create({ ...options, key }).key);
    return key;
  }

  /**
   * The session a bearer token belongs to: `gone` for a key of a deleted session, `forged` for
   * a key that names a live session which never issued it.
   */
  route(token: string | null): Session | 'gone' | 'forged' {
    const named = token === null ? null : SESSION_KEY.exec(token)?.[1];
    if (!named) return this.default;
    const session = this.all.get(named);
    if (!session) return 'gone';
    return session.issued.has(token!) ? session : 'forged';
  }

  closeAll(): void {
    for (const session of this.all.values()) {
      session.streams.closeAll();
      session.sandbox.close();
    }
    this.ended = this.coverage();
    this.all.clear();
  }

  private sandbox(options: SessionOptions & { seed: number }): Sandbox {
    const startTime = options.startTime ?? this.defaults.startTime;
    const clock = options.clock ?? this.defaults.clock;
    const webhookTimeout = options.webhookTimeout ?? this.defaults.webhookTimeout;
    return createSandbox({
      baseUrl: this.baseUrl,
      seed: options.seed,
      ...(startTime === undefined ? {} : { startTime }),
      ...(clock === undefined ? {} : { clock }),
      ...(webhookTimeout === undefined ? {} : { webhookTimeout }),
      ...(options.deprecation === undefined ? {} : { deprecation: options.deprecation }),
      ...(options.chaos === undefined ? {} : { chaos: options.chaos }),
    });
  }

  private add(id: string, seed: number, sandbox: Sandbox): Session {
    let session: Session;
    const streams = this.makeStreams(() => session);
    session = { id, seed, sandbox, streams, issued: new Set() };
    this.all.set(id, session);
    return session;
  }
}
