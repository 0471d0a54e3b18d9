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

/** A field named inside a message (`behavior.ring`, '' for the whole value): each boundary says it with its own word for a field. */
export interface FieldRef {
  readonly field: string;
}

/** A library call offered inside a message as the fix (`calls.inbound`): a boundary with another road to it names that road. */
export interface CallRef {
  readonly call: string;
}

/** A piece of a message: text as it is said everywhere, or a name a boundary says in its own words. */
export type Part = string | FieldRef | CallRef;

/** A message as its parts ({@link said}), rendered by {@link render}. */
export type Said = readonly Part[];

/**
 * A {@link FieldRef}: `field('to')`. Put into a plain template literal by mistake (not {@link said}),
 * it still reads as the library says it, `` `to` ``, never `[object Object]`.
 */
export const field = (path: string): FieldRef =>
  Object.defineProperty({ field: path }, 'toString', { value: () => (path === '' ? 'the value' : `\`${path}\``), enumerable: false });

/** A {@link CallRef}: `callRef('calls.inbound')`, said `calls.inbound()` by the library. */
export const callRef = (name: string): CallRef => ({ call: name });

/**
 * Builds a message as parts: the text between the placeholders, and each {@link FieldRef} or
 * {@link CallRef} kept as it is, so no boundary has to find a name again in finished text.
 *
 * @example
 * said`${field('to')} must be E.164, got ${JSON.stringify(to)}.`
 */
export function said(strings: TemplateStringsArray, ...values: readonly (Part | number)[]): Part[] {
  const parts: Part[] = [];
  strings.forEach((text, i) => {
    if (text) parts.push(text);
    const value = values[i];
    if (value !== undefined) parts.push(typeof value === 'number' ? String(value) : value);
  });
  return parts;
}

/** How a boundary says the names of a message; what it leaves out is said as the library says it. */
export interface Naming {
  field?(path: string): string;
  call?(name: string): string;
}

/** The library's words: a field in backticks (the whole value "the value"), a call with its parentheses. */
export const LIBRARY_NAMING: Required<Naming> = {
  field: (path) => (path ? `\`${path}\`` : 'the value'),
  call: (name) => `${name}()`,
};

/** A message said with `naming` (the library's words where it says nothing). */
export function render(parts: Said, naming: Naming = {}): string {
  const fieldName = naming.field ?? LIBRARY_NAMING.field;
  const callName = naming.call ?? LIBRARY_NAMING.call;
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : 'field' in part ? fieldName(part.field) : callName(part.call);
  return text;
}

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
   * undefined when it is no call's refusal), the text after it as {@link Part}s, and for an unknown field its path and the fix.
   */
  readonly where: string | undefined;
  /** @internal The message without `where: `, in the library's words. */
  readonly text: string;
  /** @internal {@link text} as its parts, for a boundary that names fields and calls its own way ({@link render}). */
  readonly parts: Said;
  /** @internal See {@link SandboxErrorOptions.unknown}. */
  readonly unknown: { path: string; fix: string } | undefined;
  /**
   * @param told what went wrong and the fix, as text or as parts ({@link said}); with `options.where`, the message is `where: text`.
   */
  constructor(told: string | Said, options: SandboxErrorOptions = {}) {
    const { where } = options;
    const parts = typeof told === 'string' ? [told] : told;
    const text = render(parts);
    super(where ? `${where}: ${text}` : text, options.cause === undefined ? undefined : { cause: options.cause });
    this.parts = parts;
    this.code = options.code ?? 'invalid_parameter';
    this.param = options.param;
    this.where = where;
    this.text = text;
    this.unknown = options.unknown;
  }
}

/**
 * What `error` says to a caller that is itself one of `calls` (the server is createSandbox's
 * caller): the text without naming the call, its fields and calls named with `naming`.
 */
export function saidBy(error: SandboxError, calls: string | readonly string[], naming: Naming = {}): string {
  return render(partsBy(error, calls), naming);
}

/** The parts of what `error` says to a caller that is itself one of `calls` (see {@link saidBy}). */
export function partsBy(error: SandboxError, calls: string | readonly string[]): Said {
  const own = error.where === undefined || error.where === calls || (typeof calls !== 'string' && calls.includes(error.where));
  return own ? error.parts : [`${error.where}: `, ...error.parts];
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
