import { RuleViolation, SandboxError } from '../core/errors.js';
import { Invalid, type Schema } from '../core/schema.js';
import type { Steps } from '../core/steps.js';
import type { Accounts } from '../state/accounts.js';

/**
 * What every scripting namespace needs from the sandbox. `src/control/` is the one surface
 * through which a test scripts a sandbox: the library's namespaces (`sandbox.calls`,
 * `sandbox.network`, ...) are these functions, and the standalone server's control API calls
 * the very same ones (src/server/control-api.ts), so the two cannot drift.
 */
export interface ControlContext {
  steps: Steps;
  accounts: Accounts;
  /** Throws SandboxError (`closed`) once the sandbox is closed. */
  assertOpen(what: string): void;
}

/**
 * Runs one scripting call: refused on a closed sandbox, then run as one step (core/steps.ts).
 * A domain rule's refusal (core/errors.ts `RuleViolation`) becomes a SandboxError here, the
 * one place scripting says it: `invalid_parameter` stays, the others are `conflict`.
 */
export function act<T>(ctx: ControlContext, what: string, fn: () => T): T {
  ctx.assertOpen(what);
  try {
    return ctx.steps.run(fn);
  } catch (error) {
    if (!(error instanceof RuleViolation)) throw error;
    throw new SandboxError(`Cannot ${what}: ${error.message}`, { code: error.code === 'invalid_parameter' ? 'invalid_parameter' : 'conflict', param: error.param });
  }
}

/**
 * Validates scripting input with the same schema kit as the HTTP routes: a refusal becomes
 * a SandboxError that names the call, the field and the fix (`code` and `param` set).
 *
 * @example
 * check(callBehavior, { outcome: 'bussy' }, 'network.setBehavior', 'behavior');
 * // SandboxError: network.setBehavior: `behavior.outcome` must be one of "answered", "busy", ... got "bussy": did you mean "busy"?
 */
export function check<T>(schema: Schema<T>, value: unknown, where: string, path = ''): T {
  try {
    return schema.parse(value, path);
  } catch (error) {
    if (error instanceof Invalid) throw new SandboxError(where ? `${where}: ${error.message}` : error.message, { code: error.code, param: error.param });
    throw error;
  }
}

/** The account an API key stands for, as the API would authenticate it. */
export function accountOf(ctx: ControlContext, apiKey: unknown, where: string): string {
  const refusal = typeof apiKey !== 'string' ? 'not a string' : undefined;
  const resolved = typeof apiKey === 'string' ? ctx.accounts.resolve(apiKey) : undefined;
  if (resolved !== undefined && typeof resolved !== 'string') return resolved.account;
  const why = refusal ?? { live_key: 'a production key', malformed: 'not of the form SVC_TEST_<letters, digits, _ or ->', not_configured: 'not a configured key', revoked: 'revoked' }[resolved!];
  throw new SandboxError(`${where}: ${JSON.stringify(apiKey)} is not an API key this sandbox accepts (${why}).`, { param: 'apiKey' });
}
