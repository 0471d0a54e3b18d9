import { SandboxError } from '../core/errors.js';
import { object, optional, string } from '../core/schema.js';
import { TEST_KEY, type ApiKey, type Accounts } from '../state/accounts.js';
import { act, check, type ControlContext } from './context.js';

const testKey = string({ description: 'A test key', pattern: TEST_KEY, patternHint: 'SVC_TEST_ followed by letters, digits, _ or -, e.g. SVC_TEST_alice', max: 200 });
export const keyOptions = object({ key: optional(testKey) }, { description: 'A key to make.', label: 'option' });

/** `sandbox.keys`: the API tab of the account console (docs/auth-and-accounts.md). */
export interface KeyScripting {
  /**
   * Makes a test key (a new random `SVC_TEST_…` one, or `key`), which works at once, even
   * with `onlyConfiguredKeys`. It is its own account, as any key is by default.
   */
  create(options?: { key?: string }): ApiKey;
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
export function keyScripting(ctx: ControlContext, accounts: Accounts): KeyScripting {
  return {
    create: (options = {}) =>
      act(ctx, 'create an API key', () => {
        const { key } = check(keyOptions, options, 'keys.create');
        if (key !== undefined && accounts.owns(key)) throw new SandboxError(`keys.create: ${key} exists already; pick another key or leave it out.`, { code: 'conflict', param: 'key' });
        return accounts.create(key);
      }),
    list: () => accounts.list(),
    revoke: (key) =>
      act(ctx, 'revoke an API key', () => {
        accounts.revoke(check(testKey, key, 'keys.revoke', 'key'));
      }),
  };
}
