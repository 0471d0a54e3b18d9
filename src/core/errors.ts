/**
 * What kind of misuse a {@link SandboxError} reports, so that a program (the standalone
 * server's control API, a test) can tell them apart without reading the message:
 *
 * - `invalid_parameter` / `missing_parameter`: a scripting argument is wrong or absent (`param` names it);
 * - `not_found`: it names a call, message, dead letter or key the sandbox does not have;
 * - `conflict`: the thing exists but is in the wrong state (answering a completed call);
 * - `closed`: the sandbox was closed;
 * - `interrupted`: an `advance()` was cut short by `reset()` or `close()`;
 * - `listener_failed`: an `events.subscribe` or `webhooks.subscribe` listener threw (see `cause`);
 * - `unhandled_request`: a request to a production host or with a production key was stopped
 *   before it left the process (`onUnhandledRequest: 'error'`);
 * - `invalid_options`: `createSandbox` options are wrong.
 */
export type SandboxErrorCode =
  | 'invalid_parameter'
  | 'missing_parameter'
  | 'not_found'
  | 'conflict'
  | 'closed'
  | 'interrupted'
  | 'listener_failed'
  | 'unhandled_request'
  | 'invalid_options';

export interface SandboxErrorOptions {
  cause?: unknown;
  /** Default `invalid_parameter`. */
  code?: SandboxErrorCode;
  /** The argument or field at fault, e.g. `behavior.ring`. */
  param?: string;
  /**
   * The call the message is about (`createSandbox`, `network.setBehavior`): the message is then
   * `where: text`, and a caller that names no such call (the CLI, the control API) says `text` alone.
   */
  where?: string;
  /** An unknown field's refusal: its path and the fix, to be said with a caller's word for a field. */
  unknown?: { path: string; fix: string };
}

/**
 * The one error class thrown for misuse of the library (bad options, advancing a
 * closed sandbox, scripting a call that does not exist). Errors of the simulated
 * HTTP API are never thrown at the user: they are JSON responses (see `src/api/errors.ts`).
 *
 * @example
 * try { await sandbox.advance('-1s'); } catch (e) { if (e instanceof SandboxError) console.log(e.code, e.message); }
 */
export class SandboxError extends Error {
  override name = 'SandboxError';
  readonly code: SandboxErrorCode;
  readonly param: string | undefined;
  /**
   * @internal The parts the message is made of, so each boundary says it in its own words
   * without rewriting it: the call it is about ('' for a scripting refusal that names none;
   * undefined when it is no call's refusal), the text after it, and for an unknown field its path and the fix.
   */
  readonly where: string | undefined;
  /** @internal The message without `where: `. */
  readonly text: string;
  /** @internal See {@link SandboxErrorOptions.unknown}. */
  readonly unknown: { path: string; fix: string } | undefined;
  /**
   * @param text what went wrong and the fix; with `options.where`, the message is `where: text`.
   */
  constructor(text: string, options: SandboxErrorOptions = {}) {
    const { where } = options;
    super(where ? `${where}: ${text}` : text, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code ?? 'invalid_parameter';
    this.param = options.param;
    this.where = where;
    this.text = text;
    this.unknown = options.unknown;
  }
}

/** What `error` says to a caller that is itself `call` (the server is createSandbox's caller): the text without naming the call. */
export function saidBy(error: SandboxError, call: string): string {
  return error.where === call ? error.text : error.message;
}

/** The codes a domain rule refuses with; the API answers them as 400 (`invalid_parameter`) or 422. */
export type RuleCode = 'invalid_parameter' | 'unreachable_destination' | 'number_unavailable' | 'call_not_active';

/**
 * A rule of the simulated service refused an action (a destination no carrier serves, a number
 * someone holds, a transfer of a call that is not answered). The rule lives in the state
 * service that owns the data (docs/architecture.md, "Rules"), so every road into the sandbox
 * meets it; each road says it in its own terms, in one place: the API as a 400/422 answer
 * (api/pipeline.ts), scripting as a `SandboxError` (scripting/context.ts `act`). A value, not an
 * `Error`: it describes the request, not the sandbox, so it needs no stack.
 */
export class RuleViolation {
  constructor(
    readonly code: RuleCode,
    readonly message: string,
    readonly param?: string,
  ) {}
}
