import { array, object, oneOf, optional, string, type Schema } from '../core/schema.js';
import { PLANS, RESOURCES, TEST_KEY, type ApiKey, type Accounts, type KeyOptions, type Scope } from '../state/accounts.js';
import { act, check, type ControlContext, change, read, refuse } from './context.js';

/** A test key: what `keys.create` takes as `key`, and what every key listed or made is. */
export const testKey = string({
  description: 'A test key',
  pattern: TEST_KEY,
  patternHint: 'SVC_TEST_ followed by letters, digits, _ or -, e.g. SVC_TEST_alice',
  max: 200,
});
const SCOPE = new RegExp(`^(\\*|(${RESOURCES.join('|')}):(read|write|\\*))$`);

/** A key's plan: `options.keys`, `keys.create`, and the key the control API answers with. */
export const planSchema = oneOf(PLANS, "The key's plan: `enterprise` has no rate cap.");
/** A key's scopes. */
export const scopesSchema = array(
  string({
    description: 'A scope',
    pattern: SCOPE,
    patternHint: `'<resource>:read', '<resource>:write', '<resource>:*' or '*' with a resource among ${RESOURCES.join(', ')}`,
  }),
  { description: 'What the key may do (default: everything).' },
) as Schema<Scope[]>;

/** How one key behaves: `options.keys` values, and what `keys.create` takes beside `key`. */
const settings = {
  account: optional(string({ description: 'The account the key belongs to', max: 200 })),
  plan: optional(planSchema),
  scopes: optional(scopesSchema),
};
export const keySettings = object(settings, { description: 'How one API key behaves.', label: 'option' }) satisfies Schema<KeyOptions>;
export const keyOptions = object(
  { key: optional(testKey), ...settings },
  { description: 'A key to make, and how it behaves.', label: 'option' },
) satisfies Schema<KeyCreateOptions>;

/** Options of `sandbox.keys.create`. */
export interface KeyCreateOptions extends KeyOptions {
  /** The key to make; default a new random `SVC_TEST_…` one. */
  key?: string;
}

/** `sandbox.keys`: the API tab of the account console (docs/auth-and-accounts.md). */
export interface KeyScripting {
  /**
   * Makes a test key (a new random `SVC_TEST_…` one, or `key`), which works at once, even
   * with `onlyConfiguredKeys`. It is its own account, as any key is by default, unless
   * `account` names another; `plan` and `scopes` as in `options.keys` (an `enterprise` key
   * has no rate cap; a request outside `scopes` is 403). The answer repeats the options given.
   */
  create(options?: KeyCreateOptions): ApiKey;
  /** The keys made so far, oldest first. */
  list(): ApiKey[];
  /** Refuses `key` from now on (401 `invalid_api_key`): a made, configured or ad-hoc key alike. */
  revoke(key: string): void;
}

/**
 * Builds `sandbox.keys`. Made and revoked keys are console settings, not simulated state:
 * `reset()` keeps them.
 *
 * @example
 * const { key } = sandbox.keys.create();     // 'SVC_TEST_…'
 * sandbox.keys.revoke('SVC_TEST_alice');     // now 401
 */
export function keyScripting(
  ctx: ControlContext,
  accounts: Accounts,
  changed: (key: string, removed: boolean) => void = () => undefined,
): KeyScripting {
  return {
    create: change(
      ctx,
      'keys.create',
      (options = {}) =>
        act(ctx, 'create an API key', () => {
          const { key, ...rest } = check(keyOptions, options, 'keys.create');
          if (key !== undefined && accounts.owns(key))
            throw refuse('keys.create', `${key} exists already; pick another key or leave it out.`, {
              code: 'conflict',
              param: 'key',
            });
          const made = accounts.create(key, rest);
          changed(made.key, false);
          return made;
        }),
      { keptByReset: true },
    ),
    list: read(() => accounts.list()),
    revoke: change(
      ctx,
      'keys.revoke',
      (key) =>
        act(ctx, 'revoke an API key', () => {
          accounts.revoke(check(testKey, key, 'keys.revoke', 'key'));
          changed(key, true);
        }),
      { keptByReset: true },
    ),
  };
}
