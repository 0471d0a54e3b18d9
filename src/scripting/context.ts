import { AsyncLocalStorage } from 'node:async_hooks';
import { RuleViolation, SandboxError } from '../core/errors.js';
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
export type MemberKind = { kind: 'change'; name: string } | { kind: 'read' };
const KIND = Symbol('svc-sandbox.member');

function mark<F extends Member>(fn: F, kind: MemberKind): F {
  Object.defineProperty(fn, KIND, { value: kind });
  return fn;
}

/**
 * Declares a scripting member that changes the sandbox: each call is recorded (by `name`, its
 * public `namespace.member`, with its arguments) before it runs, and `name` is registered with
 * the recorder so a snapshot's replay calls the same function (docs/snapshots.md). The one
 * place scripting is recorded: a member declared neither a change nor a {@link read} fails
 * test/sandbox/snapshots.test.ts.
 */
export function change<F extends Member>(ctx: ControlContext, name: string, fn: F): F {
  ctx.recorder.register(name, fn);
  const recorded = (...args: Parameters<F>): ReturnType<F> => {
    ctx.recorder.call(name, args);
    return fn(...args) as ReturnType<F>;
  };
  return mark(recorded as F, { kind: 'change', name });
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
 * How the control API names the arguments of the call it makes: library argument → the
 * JSON field or path segment the HTTP client wrote (`behavior` → `` (the body itself),
 * `callId` → `id`); none while a library user is calling. Held per async context, so a route
 * that awaits (a trigger, a scenario, an advance) keeps its wording after the first await.
 */
const controlFields = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/**
 * Runs `fn` (a library scripting call made by the standalone server's control API) so that
 * the errors it throws speak the HTTP client's language: no library call in front
 * (`network.setBehavior: …`), and fields named as the JSON body names them (`outcome`,
 * not `behavior.outcome`; docs/server.md, "Errors"), for all it does, awaited parts included.
 *
 * @example
 * inControlApi({ behavior: '' }, () => sandbox.network.setBehavior(number, body));
 * // SandboxError: `outcome` must be one of "answered", "busy", ... (param `outcome`)
 */
export function inControlApi<T>(fields: Readonly<Record<string, string>>, fn: () => T): T {
  return controlFields.run(fields, fn);
}

/** The name of argument `path` as the caller wrote it (see {@link inControlApi}). */
export function field(path: string): string {
  const fields = controlFields.getStore();
  if (fields === undefined) return path;
  for (const [from, to] of Object.entries(fields)) {
    if (path !== from && !path.startsWith(`${from}.`) && !path.startsWith(`${from}[`)) continue;
    const rest = path.slice(from.length);
    return to === '' ? rest.replace(/^\./, '') : `${to}${rest}`;
  }
  return path;
}

/** A refusal's message: `where: text` for library callers, the text alone (capitalised) in the control API. */
export function say(where: string, text: string): string {
  if (controlFields.getStore() === undefined) return where ? `${where}: ${text}` : text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A library call named in a fix, or the control route that does the same for a client of the control API. */
export function named(library: string, route: string): string {
  return controlFields.getStore() === undefined ? library : route;
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
    return schema.parse(value, field(path));
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    // The control API reads a JSON body: its unknown keys are fields, not options.
    const message = controlFields.getStore() === undefined ? error.message : error.message.replace(/^Unknown option /, 'Unknown field ');
    throw new SandboxError(say(where, message), { code: error.code, param: error.param });
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
  throw new SandboxError(say(where, `${JSON.stringify(apiKey)} is not an API key this sandbox accepts (${why}).`), {
    param: field('apiKey'),
  });
}
