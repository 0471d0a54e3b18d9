import type { Accounts, Principal, Resource } from '../state/accounts.js';
import { ApiError } from './errors.js';

/**
 * The bearer token of an Authorization header value, if it has the Bearer form at all:
 * `Bearer` in any case, spaces or tabs, the token (no whitespace), optional spaces or tabs.
 * Read by hand rather than by a regular expression: it runs on every request, and the match
 * array a regex makes was a visible share of what a request allocates.
 */
export function bearerToken(header: string | null): string | null {
  if (!header || header.length < 8) return null;
  const scheme = header.charCodeAt(0) | 0x20;
  if (scheme !== 0x62 || header.slice(1, 6).toLowerCase() !== 'earer') return null;
  let start = 6;
  while (isBlank(header.charCodeAt(start))) start++;
  if (start === 6) return null;
  let end = start;
  while (end < header.length && !isWhitespace(header.charCodeAt(end))) end++;
  if (end === start) return null;
  for (let i = end; i < header.length; i++) if (!isBlank(header.charCodeAt(i))) return null;
  return header.slice(start, end);
}

/** A space or a tab. */
function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** What `\s` matches in a header value: blanks, line breaks, and the other Unicode spaces. */
function isWhitespace(code: number): boolean {
  return code <= 0x20
    ? code === 0x20 || (code >= 0x09 && code <= 0x0d)
    : code === 0xa0 ||
        code === 0x1680 ||
        (code >= 0x2000 && code <= 0x200a) ||
        code === 0x2028 ||
        code === 0x2029 ||
        code === 0x202f ||
        code === 0x205f ||
        code === 0x3000 ||
        code === 0xfeff;
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
