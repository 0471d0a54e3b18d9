import { RuleViolation, SandboxError, type SandboxErrorOptions, type Said } from '../core/errors.js';
import { Invalid, type Schema } from '../core/schema.js';
import type { Steps } from '../core/steps.js';
import type { Accounts } from '../state/accounts.js';
import type { Recorder } from './recorder.js';

/**
 * What every scripting namespace needs from the sandbox. `src/scripting/` is the one surface
 * through which a test scripts a sandbox: the library's namespaces (`sandbox.calls`,
 * `sandbox.network`, ...) are these functions, and the standalone server's control API calls
 * the very same ones (src/server/control/api.ts), so the two cannot drift.
 */
export interface ControlContext {
  steps: Steps;
  accounts: Accounts;
  /** Throws SandboxError (`closed`) once the sandbox is closed. */
  assertOpen(what: string): void;
  /** The sandbox's one recorder of inputs (snapshots): {@link change} tells it. */
  recorder: Recorder;
}

type Member = (...args: never[]) => unknown;
/** What a public scripting member is: a change (recorded, under its public name) or a read. */
export type MemberKind = { kind: 'change'; name: string; keptByReset: boolean } | { kind: 'read' };
const KIND = Symbol('svc-sandbox.member');

function mark<F extends Member>(fn: F, kind: MemberKind): F {
  Object.defineProperty(fn, KIND, { value: kind });
  return fn;
}

/** What a change declares besides its name (see {@link change}). */
export interface ChangeDeclaration {
  /**
   * What it changes outlives `reset()` (API keys: console settings, not simulated state), so a
   * reset keeps its calls in the snapshot log. Default false: a reset forgets them.
   */
  keptByReset?: boolean;
}

/**
 * Declares a scripting member that changes the sandbox: each call is recorded (by `name`, its
 * public `namespace.member`, with its arguments) as it runs, and `name` is registered with
 * the recorder so a snapshot's replay calls the same function (docs/snapshots.md). A call that
 * throws, or whose promise is refused, changed nothing and is not kept; so a recorded call
 * that throws when it is replayed refuses the snapshot. The one place scripting is recorded: a
 * member declared neither a change nor a {@link read} fails test/sandbox/snapshots.test.ts.
 *
 * @example
 * revoke: change(ctx, 'keys.revoke', (key) => accounts.revoke(key), { keptByReset: true }),
 */
export function change<F extends Member>(ctx: ControlContext, name: string, fn: F, declared: ChangeDeclaration = {}): F {
  const { recorder } = ctx;
  const keptByReset = declared.keptByReset === true;
  recorder.register(name, fn, keptByReset);
  const recorded = (...args: Parameters<F>): ReturnType<F> => {
    // Recorded before it runs, so what it sets going comes after it in the log.
    const input = recorder.call(name, args);
    let result: unknown;
    try {
      result = fn(...args);
    } catch (error) {
      if (input) recorder.refused(input);
      throw error;
    }
    // A promise-returning member refuses by rejecting (its checks run before it changes anything);
    // once it is under way, an interruption (a reset, a close) does not undo what it began.
    if (input && result instanceof Promise) {
      result.catch((error: unknown) => {
        if (!(error instanceof SandboxError && (error.code === 'interrupted' || error.code === 'closed'))) recorder.refused(input);
      });
    }
    return result as ReturnType<F>;
  };
  return mark(recorded as F, { kind: 'change', name, keptByReset });
}

/** Declares a scripting member that changes nothing a snapshot must keep (a read, a listener). */
export function read<F extends Member>(fn: F): F {
  return mark(fn, { kind: 'read' });
}

/** How a public scripting member was declared ({@link change} or {@link read}); undefined when it was not. */
export function memberKind(fn: unknown): MemberKind | undefined {
  return typeof fn === 'function' ? (fn as { [KIND]?: MemberKind })[KIND] : undefined;
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
    throw new SandboxError(`Cannot ${what}: ${error.message}`, {
      code: error.code === 'invalid_parameter' ? 'invalid_parameter' : 'conflict',
      param: error.param,
    });
  }
}

/**
 * A scripting refusal: `where: text`, with how it was put together (core/errors.ts `SandboxError`'s parts),
 * so the standalone server's control API can say it with its route's words (the JSON field,
 * not the library argument) without the library knowing who called.
 */
export function refuse(where: string, text: string | Said, options: Omit<SandboxErrorOptions, 'where'> = {}): SandboxError {
  return new SandboxError(text, { ...options, where });
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
    if (!(error instanceof Invalid)) throw error;
    throw new SandboxError(error.parts, { where, code: error.code, param: error.param, unknown: error.unknown });
  }
}

/** The account an API key stands for, as the API would authenticate it. */
export function accountOf(ctx: ControlContext, apiKey: unknown, where: string): string {
  const refusal = typeof apiKey !== 'string' ? 'not a string' : undefined;
  const resolved = typeof apiKey === 'string' ? ctx.accounts.resolve(apiKey) : undefined;
  if (resolved !== undefined && typeof resolved !== 'string') return resolved.account;
  const why =
    refusal ??
    {
      live_key: 'a production key',
      malformed: 'not of the form SVC_TEST_<letters, digits, _ or ->',
      not_configured: 'not a configured key',
      revoked: 'revoked',
    }[resolved!];
  throw refuse(where, `${JSON.stringify(apiKey)} is not an API key this sandbox accepts (${why}).`, { param: 'apiKey' });
}
