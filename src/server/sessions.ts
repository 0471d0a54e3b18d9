import type { KeyCreateOptions } from '../control/keys.js';
import { SandboxError } from '../core/errors.js';
import { SeededRandom } from '../core/random.js';
import { createSandbox, type Sandbox } from '../sandbox.js';
import type { SessionStreams } from './stream.js';

/** One session: a sandbox of its own, with its own clock, seed, ids, accounts and queues. */
export interface Session {
  /** `default`, or `ses_` and 16 characters. */
  readonly id: string;
  readonly seed: number;
  readonly sandbox: Sandbox;
  readonly streams: SessionStreams;
}

/** A key made for a session names it: `SVC_TEST_ses_<16>_<16>` (docs/server.md, "Sessions"). */
const SESSION_KEY = /^SVC_TEST_(ses_[0-9A-Za-z]{16})_/;
export const DEFAULT_SESSION = 'default';

export interface SessionDefaults {
  seed: number;
  startTime: string | number | Date | undefined;
}

/**
 * The sessions of one server. Requests are routed by their API key: a key made for a
 * session names that session (so routing needs no table that could grow), and every other
 * `SVC_TEST_` key belongs to `default`, which always exists. A deleted session's keys name a
 * session that is gone: 401.
 */
export class Sessions {
  private readonly all = new Map<string, Session>();
  /** Session ids and their keys: seeded, so a server started with the same seed makes the same ones. */
  private readonly random: SeededRandom;

  constructor(
    private readonly baseUrl: string,
    private readonly defaults: SessionDefaults,
    private readonly makeStreams: (session: () => Session) => SessionStreams,
  ) {
    this.random = new SeededRandom(defaults.seed);
    this.add(DEFAULT_SESSION, defaults.seed, this.sandbox(defaults.seed, defaults.startTime));
  }

  get default(): Session {
    return this.all.get(DEFAULT_SESSION)!;
  }

  /** A new session; `seed` and `startTime` default to the server's. */
  create(options: { seed?: number; startTime?: string | number | Date }): { session: Session; apiKey: string } {
    const seed = options.seed ?? this.defaults.seed;
    const sandbox = this.sandbox(seed, options.startTime ?? this.defaults.startTime); // bad options throw before anything is drawn
    let id: string;
    do id = this.random.id('ses');
    while (this.all.has(id));
    const session = this.add(id, seed, sandbox);
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
  }

  /** A new test key of `session`, which routes to it; `options` as `sandbox.keys.create` takes them (plan, scopes). */
  makeKey(session: Session, options: Omit<KeyCreateOptions, 'key'> = {}): string {
    if (session.id === DEFAULT_SESSION) return session.sandbox.keys.create(options).key;
    return session.sandbox.keys.create({ ...options, key: `SVC_TEST_${session.id}_${this.random.id('key').slice('key_'.length)}` }).key;
  }

  /** The session a bearer token belongs to; `gone` for a key of a deleted session. */
  route(token: string | null): Session | 'gone' {
    const named = token === null ? null : SESSION_KEY.exec(token)?.[1];
    if (!named) return this.default;
    return this.all.get(named) ?? 'gone';
  }

  closeAll(): void {
    for (const session of this.all.values()) {
      session.streams.closeAll();
      session.sandbox.close();
    }
    this.all.clear();
  }

  private sandbox(seed: number, startTime: SessionDefaults['startTime']): Sandbox {
    return createSandbox({ baseUrl: this.baseUrl, seed, ...(startTime === undefined ? {} : { startTime }) });
  }

  private add(id: string, seed: number, sandbox: Sandbox): Session {
    let session: Session;
    const streams = this.makeStreams(() => session);
    session = { id, seed, sandbox, streams };
    this.all.set(id, session);
    return session;
  }
}
