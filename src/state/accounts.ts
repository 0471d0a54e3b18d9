import type { Service } from '../core/lifecycle.js';
import { SeededRandom } from '../core/random.js';
import { iso } from '../core/time.js';

/** The resources a key's scopes can name. */
export const RESOURCES = ['calls', 'numbers', 'messages', 'recordings', 'transcripts', 'webhooks'] as const;
export type Resource = (typeof RESOURCES)[number];

/** `calls:read`, `calls:write`, `calls:*` or `*`. Reads are GET; writes are POST, PUT and DELETE. */
export type Scope = `${Resource}:${'read' | 'write' | '*'}` | '*';
export const PLANS = ['standard', 'enterprise'] as const;

/** How one API key behaves. Keys not listed behave as `{}` unless `onlyConfiguredKeys` is set. */
export interface KeyOptions {
  /** Keys naming the same account share its resources. Default: the key is its own account. */
  account?: string;
  /** `enterprise` has no rate cap (spec, Limits). Default `standard`: 100 requests per second. */
  plan?: (typeof PLANS)[number];
  /** Restricts the key; a request outside them is 403 `forbidden`. Default: everything. */
  scopes?: Scope[];
}

/**
 * A test key: `SVC_TEST_` and up to 191 letters, digits, `_` or `-` (200 characters in all).
 * The cap is the sandbox's choice (docs/auth-and-accounts.md): it bounds the memory of the key
 * cache and the rate windows in bytes, not only in count.
 */
export const TEST_KEY = /^SVC_TEST_[A-Za-z0-9_-]{1,191}$/;
/** Requests per one-second window of a standard key (spec, Limits). */
export const STANDARD_LIMIT = 100;
/** Principals kept ready; beyond this the oldest is forgotten (a flood of distinct keys cannot grow memory). */
export const PRINCIPAL_CACHE = 10_000;

/** The caller a key authenticates as. */
export interface Principal {
  key: string;
  account: string;
  /** Requests per one-second window; null for no cap (enterprise). */
  limit: number | null;
  scopes: ReadonlySet<Scope> | null;
}

/** Why a token is refused: the API layer words the 401. */
export type KeyRefusal = 'live_key' | 'malformed' | 'not_configured' | 'revoked';

/** A key made by `sandbox.keys.create()` (or the console's "Create test key"). */
export interface ApiKey extends KeyOptions {
  key: string;
  /** Virtual instant it was made (ISO 8601). */
  createdAt: string;
  // `account`, `plan` and `scopes` are present when the key was made with them.
}

/**
 * The keys and accounts of one sandbox (docs/auth-and-accounts.md): the keys
 * configured in options, the keys made later (the account console's API tab), revoked
 * keys, and a bounded cache of resolved principals. Keys made and revoked are settings of
 * the account console, not simulated state: `reset()` keeps them.
 */
export class Accounts implements Service {
  private readonly cache = new Map<string, Principal>();

  /** The principals resolved and kept, newest last: bounded by `PRINCIPAL_CACHE`. */
  get cached(): ReadonlyMap<string, Principal> {
    return this.cache;
  }
  private readonly made = new Map<string, ApiKey>();
  private readonly revoked = new Set<string>();
  /** A stream of its own that reset() does not restart, so a key made after a reset is new. */
  private readonly random: SeededRandom;

  constructor(
    private readonly config: { keys: ReadonlyMap<string, KeyOptions>; onlyConfiguredKeys: boolean; seed: number },
    private readonly now: () => number,
  ) {
    this.random = new SeededRandom(config.seed);
  }

  /** The rate limit that applies to a token, valid or not (for the headers of any response). */
  limitFor(token: string | null): number | null {
    return token && this.settings(token)?.plan === 'enterprise' ? null : STANDARD_LIMIT;
  }

  /** A key's settings: those it was made with (`keys.create`) over those of the options. */
  private settings(token: string): KeyOptions | undefined {
    const made = this.made.get(token);
    const configured = this.config.keys.get(token);
    if (!made) return configured;
    const { key: _key, createdAt: _at, ...options } = made;
    return { ...configured, ...options };
  }

  /** The principal of `token`, or why it is refused. */
  resolve(token: string): Principal | KeyRefusal {
    const known = this.cache.get(token);
    if (known) return known;
    if (token.startsWith('SVC_LIVE_')) return 'live_key';
    if (!TEST_KEY.test(token)) return 'malformed';
    if (this.revoked.has(token)) return 'revoked';
    if (!this.config.keys.has(token) && this.config.onlyConfiguredKeys && !this.made.has(token)) return 'not_configured';
    const settings = this.settings(token);
    const principal: Principal = {
      key: token,
      account: settings?.account ?? token,
      limit: this.limitFor(token),
      scopes: settings?.scopes ? new Set(settings.scopes) : null,
    };
    if (this.cache.size >= PRINCIPAL_CACHE) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(token, principal);
    return principal;
  }

  /**
   * Makes a key (a new random one unless `key` is given) with `options` over any configured
   * for it; it works at once, even with `onlyConfiguredKeys`.
   */
  create(key?: string, options: KeyOptions = {}): ApiKey {
    let made = key;
    while (made === undefined || (key === undefined && this.made.has(made)))
      made = `SVC_TEST_${this.random.id('key').slice('key_'.length)}`;
    this.revoked.delete(made);
    this.cache.delete(made);
    const entry: ApiKey = { key: made, createdAt: iso(this.now()), ...options };
    this.made.set(made, entry);
    return copy(entry);
  }

  /** The keys made so far, oldest first. */
  list(): ApiKey[] {
    return [...this.made.values()].map(copy);
  }

  /** Whether `key` was made here (and not revoked since). */
  owns(key: string): boolean {
    return this.made.has(key);
  }

  /** Refuses `key` from now on (401), whether it was made, configured or used as it came. */
  revoke(key: string): void {
    this.made.delete(key);
    this.revoked.add(key);
    this.cache.delete(key);
  }

  /** Forgets cached principals; made and revoked keys stay (they are console settings). */
  reset(): void {
    this.cache.clear();
  }
}

function copy(key: ApiKey): ApiKey {
  return { ...key, ...(key.scopes ? { scopes: [...key.scopes] } : {}) };
}
