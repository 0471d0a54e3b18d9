// Longer than most files: the server's sessions, made, found by key, forked, restored from a snapshot, admitted by
// the heap and deleted, share one table and one lifecycle; each way in is a few lines over that table.
import { bearerToken } from '../api/auth.js';
import type { Incoming } from '../api/request-body.js';
import { customAlphabet } from 'nanoid';
import { CLOCK_MODES, WALL_CLOCK, type ClockMode, type WallClock } from '../core/clock.js';
import type { KeyCreateOptions } from '../scripting/keys.js';
import { emptyCoverage, mergeCoverage, type CoverageReport } from '../scripting/coverage-report.js';
import { field, partsBy, SandboxError, said } from '../core/errors.js';
import { SeededRandom } from '../core/random.js';
import type { Duration } from '../core/duration.js';
import type { SandboxInternals } from '../sandbox.js';
import { openRestoredSandbox, openSandbox, type Sandbox } from '../sandbox.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { PUBLIC_URL } from '../options.js';
import type { SessionStreams } from './stream.js';
import { admission, type HeapGauge, nodeHeap, sessionBytes } from './capacity.js';

/** One session: a sandbox of its own, with its own clock, seed, ids, accounts and queues. */
/** A sandbox as the server opens it: with its internals. */
type Opened = ReturnType<typeof openSandbox>;

export interface Session {
  /** `default`, or `ses_` and 16 characters. */
  readonly id: string;
  readonly seed: number;
  readonly sandbox: Sandbox;
  /** What the server reads of its sandbox beside the public surface (the change feed, the console's view). */
  readonly internals: SandboxInternals;
  readonly streams: SessionStreams;
  /** The keys this session issued: the only `SVC_TEST_ses_…` keys that route to it. */
  readonly issued: Set<string>;
  /**
   * The key its sandbox knows the session's requests by: the apiKey POST /sessions answered,
   * or, for a session made from a snapshot or a fork, the original session's (null: default).
   */
  primaryKey: string | null;
  /**
   * Keys of a session made from a snapshot or a fork → the original session's key, which its
   * sandbox knows: a request with one reaches the sandbox with the other (docs/snapshots.md).
   */
  readonly aliases: Map<string, string>;
}

/**
 * The request as the session's sandbox is to see it: with a key of a session made from a
 * snapshot or a fork, the original session's key instead, so that it opens the same account
 * and the same rate window and gets the same answers as the original would (docs/snapshots.md).
 */
export function asKnown(session: Session, request: Incoming): Incoming {
  if (session.aliases.size === 0) return request;
  const header = request.headers.get('authorization');
  // The scheme in any case, blanks as the API reads them (api/auth.ts): routing read it so too.
  const token = bearerToken(header);
  const known = token === null ? undefined : session.aliases.get(token);
  if (known === undefined) return request;
  return new Rekeyed(request, `Bearer ${known}`);
}

/** A request with another Authorization header, the rest read from the request itself. */
class Rekeyed implements Incoming {
  readonly headers: Incoming['headers'];

  constructor(
    private readonly request: Incoming,
    authorization: string,
  ) {
    this.headers = {
      get: (name) => (name === 'authorization' ? authorization : request.headers.get(name)),
      forEach: (each) =>
        request.headers.forEach((value, name) => {
          each(name === 'authorization' ? authorization : value, name);
        }),
    };
  }

  get method() {
    return this.request.method;
  }
  get url() {
    return this.request.url;
  }
  get body() {
    return this.request.body;
  }
  get signal() {
    return this.request.signal;
  }
}

/** A key made for a session names it: `SVC_TEST_ses_<16>_<16>` (docs/server.md, "Sessions"). */
const SESSION_KEY = /^SVC_TEST_(ses_[0-9A-Za-z]{16})_/;
export const DEFAULT_SESSION = 'default';
/** Live sessions a server holds at most unless `startServer({ maxSessions })` says otherwise (docs/server.md, "Sessions"): each is a whole sandbox. */
export const DEFAULT_MAX_SESSIONS = 1000;

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
  /** The default session starts from it (`serve --import FILE`). */
  snapshot?: SandboxSnapshot | undefined;
  /** Live sessions held at most, the default one included (checked by {@link checkSessionDefaults}). Default {@link DEFAULT_MAX_SESSIONS}. */
  maxSessions?: number | undefined;
  /**
   * Requests each new session's journal keeps (createSandbox's `maxJournalEntries`); undefined: its
   * default. A session made from a snapshot keeps the snapshot's.
   */
  maxJournalEntries?: number | undefined;
  /** What realtime sessions follow instead of the real wall clock (the tests' internal option, {@link WALL_CLOCK}). */
  wall?: WallClock | undefined;
  /** What absolute URLs in every session's answers and webhook bodies start with (server.ts `publicUrl`). */
  publicUrl?: string | undefined;
  /** The heap new sessions are admitted against (capacity.ts); default V8's own. */
  heap?: HeapGauge | undefined;
  /** Requests a new session's journal keeps when `maxJournalEntries` is not given: the library's default. */
  journalDefault: number;
}

/**
 * Refuses, before a server starts, session defaults it cannot serve: a clock that is not one of
 * the server's modes (`global` is the in-process test's clock, with its reason) and a
 * `maxSessions` that is no whole number of 1 or more.
 */
export function checkSessionDefaults({ clock, maxSessions }: { clock?: unknown; maxSessions?: unknown }): void {
  if (clock !== undefined && !(CLOCK_MODES as readonly unknown[]).includes(clock)) {
    const why =
      clock === 'global'
        ? "'global' is the in-process mode (a sandbox on the test's own Date and timers), and a server has no test's clock to " +
          "share: use 'realtime' (virtual time flows with the wall clock) or 'manual'."
        : `must be one of ${CLOCK_MODES.map((mode) => `"${mode}"`).join(', ')}, got ${JSON.stringify(clock)}.`;
    throw new SandboxError(said`${field('clock')} ${why}`, { where: 'startServer', code: 'invalid_options', param: 'clock' });
  }
  if (maxSessions !== undefined && !(Number.isSafeInteger(maxSessions) && (maxSessions as number) >= 1)) {
    throw new SandboxError(
      said`${field('maxSessions')} must be a whole number of 1 or more (the default session counts as one), got ${String(maxSessions)}.`,
      { where: 'startServer', code: 'invalid_options', param: 'maxSessions' },
    );
  }
}

/** What a new session may set; the rest is the server's. */
export interface SessionOptions {
  seed?: number;
  startTime?: string | number | Date;
  clock?: ClockMode;
  deprecation?: NonNullable<Parameters<typeof openSandbox>[0]>['deprecation'];
  webhookTimeout?: Duration;
  /** createSandbox's `chaos` profile (docs/chaos.md). */
  chaos?: NonNullable<Parameters<typeof openSandbox>[0]>['chaos'];
  /** Start from this snapshot (docs/snapshots.md); only `webhookTimeout` may be given beside it. */
  snapshot?: SandboxSnapshot;
  /** Fork this session: start from its snapshot, now. */
  from?: string;
}

/** The fields a snapshot or a fork carries itself. */
const CARRIED = ['seed', 'startTime', 'clock', 'deprecation', 'chaos'] as const;

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
  private readonly maxSessions: number;
  /** Sessions whose snapshot is being replayed ({@link open}): not listed yet, but counted against the limit. */
  private restoring = 0;
  /** What one session may come to, its journal full: what the heap's admission counts each session at. */
  private readonly perSession: number;
  private readonly heap: HeapGauge;
  private readonly defaultSession: Session;

  /**
   * The sessions of a server started from a snapshot (`serve --import`), its default session's
   * replay run in slices of real time; without one, as the constructor makes them.
   */
  static async start(
    baseUrl: string,
    defaults: SessionDefaults,
    makeStreams: (session: () => Session) => SessionStreams,
  ): Promise<Sessions> {
    const { snapshot, webhookTimeout, wall, publicUrl } = defaults;
    if (!snapshot) return new Sessions(baseUrl, defaults, makeStreams);
    const opened = await openRestoredSandbox({
      baseUrl,
      snapshot,
      ...(webhookTimeout === undefined ? {} : { webhookTimeout }),
      ...(wall === undefined ? {} : { [WALL_CLOCK]: wall }),
      ...(publicUrl === undefined ? {} : { [PUBLIC_URL]: publicUrl }),
    }).catch((error: unknown) => {
      throw refusedSnapshot(error);
    });
    return new Sessions(baseUrl, defaults, makeStreams, opened);
  }

  /** `restoredDefault`: the default session's sandbox, already restored from `defaults.snapshot` ({@link start}). */
  constructor(
    private readonly baseUrl: string,
    private readonly defaults: SessionDefaults,
    private readonly makeStreams: (session: () => Session) => SessionStreams,
    restoredDefault?: Opened,
  ) {
    this.maxSessions = defaults.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.perSession = sessionBytes(defaults.maxJournalEntries ?? defaults.journalDefault);
    this.heap = defaults.heap ?? nodeHeap;
    this.random = defaults.seeded ? new SeededRandom(defaults.seed) : SECRET;
    if (defaults.snapshot) {
      const opened = restoredDefault ?? this.restored(defaults.snapshot, defaults.webhookTimeout);
      this.defaultSession = this.add(DEFAULT_SESSION, opened.sandbox.seed, opened);
      this.defaultSession.primaryKey = defaults.snapshot.apiKey ?? null;
    } else this.defaultSession = this.add(DEFAULT_SESSION, defaults.seed, this.sandbox({ seed: defaults.seed }));
  }

  /** The session every key no other session issued reaches; it is never deleted (closeAll ends it with the others). */
  get default(): Session {
    return this.defaultSession;
  }

  /** A new session; `seed`, `startTime`, `clock` and `webhookTimeout` default to the server's. */
  create(options: SessionOptions): { session: Session; apiKey: string } {
    this.admit();
    if (options.snapshot !== undefined || options.from !== undefined) {
      const { snapshot, original, webhookTimeout } = this.source(options);
      return this.copied(this.restored(snapshot, webhookTimeout), original);
    }
    const seed = options.seed ?? this.defaults.seed;
    // Bad options throw before anything is drawn.
    const sandbox = this.sandbox({ ...options, seed });
    const session = this.add(this.newId(), seed, sandbox);
    const apiKey = this.makeKey(session);
    session.primaryKey = apiKey;
    return { session, apiKey };
  }

  /**
   * A new session as {@link create} makes one, but one made from a snapshot or a fork has its
   * replay run in slices of real time (core/slices.ts), so a long snapshot holds no other
   * session: the control API's door. The session is listed once its replay is done; a refused
   * snapshot leaves nothing behind.
   */
  async open(options: SessionOptions): Promise<{ session: Session; apiKey: string }> {
    if (options.snapshot === undefined && options.from === undefined) return this.create(options);
    this.admit();
    const { snapshot, original, webhookTimeout } = this.source(options);
    // Held while it replays, so sessions made meanwhile still count it against the limit.
    this.restoring++;
    let opened: Opened;
    try {
      opened = await this.restoredInSlices(snapshot, webhookTimeout);
    } finally {
      this.restoring--;
    }
    return this.copied(opened, original);
  }

  /** Refuses a new session when the server holds its limit, or the heap could not hold one more (sessions being restored included). */
  private admit(): void {
    // Refused before the heap could not hold every session at its journal full (capacity.ts): running out ends them all.
    const refused = admission(this.all.size + this.restoring, this.maxSessions, this.perSession, this.heap());
    if (refused !== null) throw new SandboxError(refused, { code: 'conflict' });
  }

  /**
   * What a session made from a snapshot, or a fork of a live session (its snapshot now), starts
   * from: the snapshot, and the original session's key its apiKey will stand for (see
   * {@link asKnown}); a snapshot of the default session names no key (null).
   */
  private source(options: SessionOptions): {
    snapshot: SandboxSnapshot;
    original: string | null;
    webhookTimeout: Duration | undefined;
  } {
    const given = options.from !== undefined ? 'from' : 'snapshot';
    if (options.from !== undefined && options.snapshot !== undefined) {
      throw new SandboxError('Give either `snapshot` (a snapshot to start from) or `from` (a session to fork), not both.', {
        param: 'from',
      });
    }
    const carried = CARRIED.find((field) => options[field] !== undefined);
    if (carried) {
      throw new SandboxError(
        `\`${carried}\` cannot be given with \`${given}\`: the ${given === 'from' ? 'session forked' : 'snapshot'} carries its own. Leave it out.`,
        { param: carried },
      );
    }
    let snapshot: SandboxSnapshot;
    let original: string | null;
    if (options.from !== undefined) {
      const source = this.all.get(options.from);
      if (!source)
        throw new SandboxError(`No session ${JSON.stringify(options.from.slice(0, 80))} to fork: list them with GET /__sandbox/sessions.`, {
          code: 'not_found',
          param: 'from',
        });
      snapshot = source.sandbox.snapshot();
      original = source.primaryKey;
    } else {
      snapshot = options.snapshot!;
      const named: unknown = snapshot !== null && typeof snapshot === 'object' ? Reflect.get(snapshot, 'apiKey') : undefined;
      original = typeof named === 'string' ? named : null;
    }
    return { snapshot, original, webhookTimeout: options.webhookTimeout ?? this.defaults.webhookTimeout };
  }

  /** The session made from a restored sandbox; its apiKey a key of its own, or one that stands for `original`. */
  private copied(opened: Opened, original: string | null): { session: Session; apiKey: string } {
    const session = this.add(this.newId(), opened.sandbox.seed, opened);
    if (original === null) {
      const apiKey = this.makeKey(session);
      session.primaryKey = apiKey;
      return { session, apiKey };
    }
    const apiKey = this.keyName(session);
    session.issued.add(apiKey);
    session.aliases.set(apiKey, original);
    session.primaryKey = original;
    return { session, apiKey };
  }

  /** A sandbox restored from `snapshot`; a bad one is refused naming its field (`snapshot.version`). */
  private restored(snapshot: SandboxSnapshot, webhookTimeout: Duration | undefined): Opened {
    try {
      return openSandbox(this.restoreOptions(snapshot, webhookTimeout));
    } catch (error) {
      throw refusedSnapshot(error);
    }
  }

  /** {@link restored}, its replay in slices of real time. */
  private async restoredInSlices(snapshot: SandboxSnapshot, webhookTimeout: Duration | undefined): Promise<Opened> {
    try {
      return await openRestoredSandbox(this.restoreOptions(snapshot, webhookTimeout));
    } catch (error) {
      throw refusedSnapshot(error);
    }
  }

  private restoreOptions(snapshot: SandboxSnapshot, webhookTimeout: Duration | undefined) {
    return { baseUrl: this.baseUrl, snapshot, ...(webhookTimeout === undefined ? {} : { webhookTimeout }), ...this.wall() };
  }

  private newId(): string {
    let id: string;
    do id = this.random.id('ses');
    while (this.all.has(id));
    return id;
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
      throw new SandboxError('The default session always exists: reset it instead (POST /__sandbox/sessions/default/reset).', {
        code: 'conflict',
        param: 's',
      });
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
    const key = this.keyName(session);
    session.issued.add(session.sandbox.keys.create({ ...options, key }).key);
    return key;
  }

  /** A new key's name: it names its session (none for the default). */
  private keyName(session: Session): string {
    const suffix = this.random.id('key').slice('key_'.length);
    return session.id === DEFAULT_SESSION ? `SVC_TEST_${suffix}` : `SVC_TEST_${session.id}_${suffix}`;
  }

  /**
   * The session a bearer token belongs to: `gone` for a key of a deleted session, `forged` for
   * a key that names a live session which never issued it.
   */
  route(token: string | null): Session | 'gone' | 'forged' {
    if (token === null) return this.default;
    const named = SESSION_KEY.exec(token)?.[1];
    if (!named) return this.default;
    const session = this.all.get(named);
    if (!session) return 'gone';
    return session.issued.has(token) ? session : 'forged';
  }

  closeAll(): void {
    for (const session of this.all.values()) {
      session.streams.closeAll();
      session.sandbox.close();
    }
    this.ended = this.coverage();
    this.all.clear();
  }

  private sandbox(options: SessionOptions & { seed: number }): Opened {
    const startTime = options.startTime ?? this.defaults.startTime;
    const clock = options.clock ?? this.defaults.clock;
    const webhookTimeout = options.webhookTimeout ?? this.defaults.webhookTimeout;
    const { maxJournalEntries } = this.defaults;
    return openSandbox({
      baseUrl: this.baseUrl,
      seed: options.seed,
      ...(startTime === undefined ? {} : { startTime }),
      ...(clock === undefined ? {} : { clock }),
      ...(webhookTimeout === undefined ? {} : { webhookTimeout }),
      ...(maxJournalEntries === undefined ? {} : { maxJournalEntries }),
      ...(options.deprecation === undefined ? {} : { deprecation: options.deprecation }),
      ...(options.chaos === undefined ? {} : { chaos: options.chaos }),
      ...this.wall(),
    });
  }

  /**
   * The internal options every session is opened with: the tests' wall clock for realtime
   * sessions, when one was given, and the public URL its bodies name.
   */
  private wall(): { [WALL_CLOCK]?: WallClock; [PUBLIC_URL]?: string } {
    const { wall, publicUrl } = this.defaults;
    return { ...(wall === undefined ? {} : { [WALL_CLOCK]: wall }), ...(publicUrl === undefined ? {} : { [PUBLIC_URL]: publicUrl }) };
  }

  private add(id: string, seed: number, { sandbox, internals }: Opened): Session {
    let session: Session;
    const streams = this.makeStreams(() => session);
    session = { id, seed, sandbox, internals, streams, issued: new Set(), primaryKey: null, aliases: new Map() };
    this.all.set(id, session);
    this.listChanged(id, false);
    return session;
  }
}

/** A refused snapshot as the server says it: without the library call's name it does not make. */
function refusedSnapshot(error: unknown): unknown {
  if (error instanceof SandboxError) return new SandboxError(partsBy(error, 'createSandbox'), { code: error.code, param: error.param });
  return error;
}
