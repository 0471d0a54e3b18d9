import { TEST_KEY, type ResolvedOptions, type Resource, type Scope } from '../options.js';
import { ApiError } from './errors.js';

/** The caller a request was authenticated as. */
export interface Principal {
  key: string;
  account: string;
  /** Requests per one-second window; null for no cap (enterprise). */
  limit: number | null;
  scopes: ReadonlySet<Scope> | null;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;
export const STANDARD_LIMIT = 100;

/**
 * Bearer-key authentication (CONTRACT §3). Any `SVC_TEST_` key is valid and is its own
 * account unless options say otherwise; production keys are refused outright.
 */
export class Auth {
  private readonly principals = new Map<string, Principal>();

  constructor(private readonly options: ResolvedOptions) {}

  /** The bearer token of a header value, if it has the Bearer form at all. */
  static token(header: string | null): string | null {
    return header ? (BEARER.exec(header)?.[1] ?? null) : null;
  }

  /** The rate limit that applies to a token, valid or not (for the headers of any response). */
  limitFor(token: string | null): number | null {
    return token && this.options.keys.get(token)?.plan === 'enterprise' ? null : STANDARD_LIMIT;
  }

  authenticate(header: string | null): Principal {
    const token = Auth.token(header);
    if (token === null) {
      throw new ApiError(
        401,
        'invalid_api_key',
        header
          ? 'The Authorization header must be `Bearer <API_KEY>` with a sandbox key such as SVC_TEST_abc123.'
          : 'No API key: send the header `Authorization: Bearer SVC_TEST_<key>`.',
      );
    }
    const known = this.principals.get(token);
    if (known) return known;
    if (token.startsWith('SVC_LIVE_')) {
      throw new ApiError(401, 'live_key_not_allowed', 'This is a production key (SVC_LIVE_…); the sandbox accepts only test keys that start with SVC_TEST_.');
    }
    if (!TEST_KEY.test(token)) {
      throw new ApiError(401, 'invalid_api_key', 'The API key is not valid: a sandbox key is SVC_TEST_ followed by letters, digits, _ or -.');
    }
    const settings = this.options.keys.get(token);
    if (!settings && this.options.onlyConfiguredKeys) {
      throw new ApiError(401, 'invalid_api_key', 'This API key is not one of the keys this sandbox was configured with (options.keys).');
    }
    const principal: Principal = {
      key: token,
      account: settings?.account ?? token,
      limit: this.limitFor(token),
      scopes: settings?.scopes ? new Set(settings.scopes) : null,
    };
    this.principals.set(token, principal);
    return principal;
  }

  /** 403 unless the key's scopes allow `access` to `resource`. */
  authorize(principal: Principal, resource: Resource, access: 'read' | 'write'): void {
    const scopes = principal.scopes;
    if (!scopes || scopes.has('*') || scopes.has(`${resource}:*`) || scopes.has(`${resource}:${access}`)) return;
    throw new ApiError(
      403,
      'forbidden',
      `This API key has no ${access} access to ${resource}: it needs the scope ${resource}:${access} (it has ${[...scopes].join(', ') || 'none'}).`,
    );
  }

  clear(): void {
    this.principals.clear();
  }
}
