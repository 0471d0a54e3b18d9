import type { Accounts, Principal, Resource } from '../state/accounts.js';
import { ApiError } from './errors.js';

/** `Bearer` in any case, spaces or tabs, the token (no whitespace), optional spaces or tabs. */
const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The bearer token of an Authorization header value, if it has the Bearer form at all. A
 * regular expression: reading it by hand saved tens of nanoseconds a request, which no user feels.
 */
export function bearerToken(header: string | null): string | null {
  return header ? (BEARER.exec(header)?.[1] ?? null) : null;
}

const REFUSED = {
  live_key: () =>
    new ApiError(
      401,
      'live_key_not_allowed',
      'This is a production key (SVC_LIVE_…); the sandbox accepts only test keys that start with SVC_TEST_.',
    ),
  malformed: () =>
    new ApiError(
      401,
      'invalid_api_key',
      'The API key is not valid: a sandbox key is SVC_TEST_ followed by letters, digits, _ or - (200 characters at most).',
    ),
  not_configured: () =>
    new ApiError(
      401,
      'invalid_api_key',
      'This API key is not one of the keys this sandbox was configured with (options.keys) or made (sandbox.keys.create).',
    ),
  revoked: () =>
    new ApiError(
      401,
      'invalid_api_key',
      "This API key was revoked (sandbox.keys.revoke, or the console's API keys section): make a new one.",
    ),
};

/**
 * Bearer-key authentication (docs/auth-and-accounts.md): the header's form here, the keys themselves in
 * the account store (src/state/accounts.ts).
 */
export function authenticate(accounts: Accounts, header: string | null, token = bearerToken(header)): Principal {
  if (token === null) {
    throw new ApiError(
      401,
      'invalid_api_key',
      header
        ? 'The Authorization header must be `Bearer <API_KEY>` with a sandbox key such as SVC_TEST_abc123.'
        : 'No API key: send the header `Authorization: Bearer SVC_TEST_<key>`.',
    );
  }
  const principal = accounts.resolve(token);
  if (typeof principal === 'string') throw REFUSED[principal]();
  return principal;
}

/** 403 unless the key's scopes allow `access` to `resource`. */
export function authorize(principal: Principal, resource: Resource, access: 'read' | 'write'): void {
  const scopes = principal.scopes;
  if (!scopes || scopes.has('*') || scopes.has(`${resource}:*`) || scopes.has(`${resource}:${access}`)) return;
  throw new ApiError(
    403,
    'forbidden',
    `This API key has no ${access} access to ${resource}: it needs the scope ${resource}:${access} (it has ${[...scopes].join(', ') || 'none'}).`,
  );
}
