import { SandboxError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { Invalid, invalid, missing, name, show } from '../core/schema.js';
import { MAX_TIME_MS, iso } from '../core/time.js';
import type { AttemptTape } from '../webhooks/deliveries.js';
import type { PostResult } from '../webhooks/transport.js';

/**
 * Snapshots and forks (docs/snapshots.md). A snapshot is an input log, not a dump of the
 * stores: the options a sandbox was made with, and every input that changed it, in order and
 * with its virtual instant (API requests, scripting calls, advances, resets), plus the result
 * of every webhook attempt as it was observed. Restoring replays the log on a new sandbox made
 * with the same options: the same seed, the same inputs in the same order give the same
 * state, timers, machines, rate windows and ids, byte for byte, however they are stored, and
 * webhook attempts take their recorded results instead of being sent again.
 */

/** What `format` says: this JSON value is a snapshot of svc-sandbox. */
export const SNAPSHOT_FORMAT = 'svc-sandbox-snapshot';

/** The scripting calls a snapshot records, by namespace: every call that changes a sandbox. */
export const RECORDED_CALLS = {
  calls: ['answer', 'hangUp', 'inbound'],
  network: ['setBehavior', 'queueBehavior', 'setMessageBehavior', 'queueMessageBehavior', 'clearBehavior'],
  messages: ['inbound'],
  faults: ['inject', 'clear'],
  recordings: ['setTiming'],
  transcripts: ['setScript'],
  keys: ['create', 'revoke'],
  webhooks: ['replay', 'replayAll'],
} as const;

/**
 * The request headers the API reads (src/api): the only ones a snapshot keeps, so it stays
 * small. A header the API comes to read must be added here (test/sandbox/snapshots.test.ts checks);
 * kept sorted, the order a Headers iterates in.
 */
export const REPLAYED_HEADERS = [
  'accept',
  'access-control-request-headers',
  'authorization',
  'content-length',
  'content-type',
  'last-event-id',
  'origin',
];

/** A request as the API received it. `path` is below the base URL (a restore may serve another one); `url` when it was outside it. */
export interface RequestInput {
  kind: 'request';
  /** Virtual instant it arrived, epoch ms. */
  at: number;
  method: string;
  path?: string;
  url?: string;
  headers: Array<[string, string]>;
  /** The body as read (UTF-8 text), absent when the API never read one. */
  body?: string;
  /** The body, when it was not UTF-8. */
  bodyBase64?: string;
  /** The body passed the 1 MiB limit while being read (its bytes are not kept). */
  bodyOver?: true;
}

/** A scripting call (`network.setBehavior`...) and its arguments as JSON. */
export interface CallInput {
  kind: 'call';
  at: number;
  name: string;
  args: unknown[];
}

/** An `advance` (or `advanceUntil`, which stopped at `stop`) begun at `at`. */
export interface AdvanceInput {
  kind: 'advance';
  at: number;
  ms: number;
  /** advanceUntil: the instant it stopped at. */
  stop?: number;
}

export interface ResetInput {
  kind: 'reset';
  at: number;
}

export type SnapshotInput = RequestInput | CallInput | AdvanceInput | ResetInput;

/** A webhook attempt's result as observed, by `deliveryId/run/attempt`. */
export type SnapshotAttempt = [string, PostResult];

/**
 * A snapshot: plain JSON (`JSON.stringify` it, keep it in a file). Take it with
 * `sandbox.snapshot()`; start from it with `createSandbox({ snapshot })`. The fields are the
 * sandbox's to read; treat the value as opaque and do not edit it.
 */
export interface SandboxSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  /** The svc-sandbox version that took it; another version refuses it. */
  version: string;
  /** The createSandbox options it was made with (JSON form). */
  options: Record<string, unknown>;
  /** Virtual now when it was taken (ISO 8601). */
  now: string;
  inputs: SnapshotInput[];
  attempts: SnapshotAttempt[];
  /** The server only: the session key the snapshot's requests came with (a session made from it answers for the same account). */
  apiKey?: string;
}

/** Non-finite numbers (`times: Infinity`) survive JSON as `{ "$number": "Infinity" }`. */
function encode(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? { $number: String(value) } : value;
}
function decode(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const n = (value as { $number?: unknown }).$number;
    if (keys.length === 1 && typeof n === 'string') return Number(n);
  }
  return value;
}

/** A JSON copy of `args`, without the trailing undefined ones (an omitted optional argument). */
function jsonArgs(args: unknown[]): unknown[] {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return JSON.parse(JSON.stringify(args.slice(0, end), encode)) as unknown[];
}

/** Arguments as the scripting call is given them again (non-finite numbers decoded). */
export function replayArgs(args: unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(args), decode) as unknown[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Distinct strings and header lists a log shares at most (see InputLog). */
const INTERNED = 10_000;

/**
 * The log one sandbox keeps: its inputs since it was made (a reset compacts them to the keys
 * made and revoked, which outlive a reset), and the webhook attempts' results.
 */
export class InputLog implements AttemptTape {
  private inputs: SnapshotInput[] = [];
  private attempts = new Map<string, PostResult>();
  /** Requests whose body is still being read: a snapshot then would miss it. */
  private reading = 0;
  /** While a snapshot is replayed, nothing is recorded (the log is the snapshot's already). */
  private paused = false;
  /**
   * Strings and header lists seen before, shared by every request that repeats them (a suite
   * sends the same headers, paths and often bodies again and again): a request costs its log
   * about 0.1 KB instead of 0.5 KB. At most {@link INTERNED} of each are kept.
   */
  private readonly strings = new Map<string, string>();
  private readonly headerLists = new Map<string, Array<[string, string]>>();

  constructor(
    private readonly options: Record<string, unknown>,
    /** Origin and base path: a request's URL is kept below it. */
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  /** Starts from a snapshot's log (before its replay). */
  load(snapshot: SandboxSnapshot): void {
    this.inputs = snapshot.inputs.map((input) => ({ ...input }));
    this.attempts = new Map(snapshot.attempts);
  }

  /** Runs `fn` without recording (the replay). */
  unrecorded<T>(fn: () => T): T {
    this.paused = true;
    try {
      return fn();
    } finally {
      this.paused = false;
    }
  }

  /** The recorded result of an attempt (the replay asks). */
  attempt(key: string): PostResult | undefined {
    return this.attempts.get(key);
  }

  put(key: string, result: PostResult): void {
    if (this.paused) return;
    this.attempts.set(key, { status: result.status, ok: result.ok, error: result.error, durationMs: result.durationMs });
  }

  /** A request arrives; the returned function is told its body once read. */
  request(request: Request): ((body: Uint8Array | 'over') => void) | undefined {
    if (this.paused) return undefined;
    const under = request.url.startsWith(this.prefix) && /^($|[/?#])/.test(request.url.slice(this.prefix.length));
    const input: RequestInput = {
      kind: 'request',
      at: this.now(),
      method: this.intern(request.method),
      ...(under ? { path: this.intern(request.url.slice(this.prefix.length)) } : { url: request.url }),
      headers: this.headersOf(request.headers),
    };
    this.inputs.push(input);
    this.reading++;
    let told = false;
    const tell = (body: Uint8Array | 'over') => {
      if (told) return;
      told = true;
      this.reading--;
      if (body === 'over') input.bodyOver = true;
      else if (body.byteLength > 0) {
        try {
          input.body = this.intern(utf8.decode(body));
        } catch {
          input.bodyBase64 = Buffer.from(body).toString('base64');
        }
      }
    };
    return tell;
  }

  private intern(text: string): string {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    if (this.strings.size < INTERNED) this.strings.set(text, text);
    return text;
  }

  /** The headers a snapshot keeps, as one list shared by every request that sends the same. */
  private headersOf(headers: Headers): Array<[string, string]> {
    // Asked by name, in REPLAYED_HEADERS' order (the sorted order iterating `headers` gives):
    // iterating a request's Headers sorts and copies all of them, on every request.
    const kept: Array<[string, string]> = [];
    for (const header of REPLAYED_HEADERS) {
      const value = headers.get(header);
      if (value !== null) kept.push([header, value]);
    }
    const key = kept.join('\n');
    const known = this.headerLists.get(key);
    if (known !== undefined) return known;
    if (this.headerLists.size < INTERNED) this.headerLists.set(key, kept);
    return kept;
  }

  /** A scripting call, before it runs (one that throws changed nothing, and throws again in the replay). */
  call(name: string, args: unknown[]): void {
    if (this.paused) return;
    let json: unknown[];
    try {
      json = jsonArgs(args);
    } catch (error) {
      throw new SandboxError(
        `${name}: its arguments are not JSON (${error instanceof Error ? error.message : String(error)}), so a snapshot could not keep them; pass plain data.`,
        { param: 'args' },
      );
    }
    this.inputs.push({ kind: 'call', at: this.now(), name, args: json });
  }

  /** An advance begins; the returned function is told where an advanceUntil stopped. */
  advance(ms: number): (stop: number) => void {
    if (this.paused) return () => undefined;
    const input: AdvanceInput = { kind: 'advance', at: this.now(), ms };
    this.inputs.push(input);
    return (stop) => {
      input.stop = stop;
    };
  }

  /**
   * A reset: the log keeps only the keys made and revoked (they outlive it, and the ids of
   * keys made later follow from them) and the resets, then this one.
   */
  reset(): void {
    if (this.paused) return;
    this.inputs = this.inputs.filter((input) => input.kind === 'reset' || (input.kind === 'call' && input.name.startsWith('keys.')));
    this.inputs.push({ kind: 'reset', at: this.now() });
    this.attempts.clear();
  }

  /** The snapshot, as plain JSON. */
  snapshot(): SandboxSnapshot {
    if (this.reading > 0) {
      throw new SandboxError(
        `Cannot take a snapshot while ${this.reading === 1 ? 'a request is' : `${this.reading} requests are`} still being read: the ` +
          `snapshot would miss ${this.reading === 1 ? 'it' : 'them'}. Take it once they are answered.`,
        { code: 'conflict' },
      );
    }
    return {
      format: SNAPSHOT_FORMAT,
      version: packageVersion(),
      options: structuredClone(this.options),
      now: iso(this.now()),
      inputs: structuredClone(this.inputs),
      attempts: [...this.attempts].map(([key, result]) => [key, { ...result }]),
    };
  }
}

/** What a replay drives: the new sandbox's own inputs, run at once. */
export interface ReplayTarget {
  now(): number;
  request(input: RequestInput): void;
  call(name: string, args: unknown[]): void;
  /** Moves the clock by `ms` now (until `stop` is reached, for an advanceUntil). */
  advance(ms: number, stop?: number): void;
  reset(): void;
}

/**
 * Replays a snapshot's inputs in order. An advance is run lazily: an input that arrived while
 * it ran (a request from a webhook receiver, a call from a listener) is applied once the clock
 * has reached its instant, then the advance goes on.
 */
export function replay(snapshot: SandboxSnapshot, target: ReplayTarget, endMs: number): void {
  let running: { end: number; stop?: number } | null = null;
  const finish = () => {
    if (running === null) return;
    const { end, stop } = running;
    running = null;
    target.advance(Math.max(0, Math.min(end, endMs) - target.now()), stop !== undefined && stop <= endMs ? stop : undefined);
  };
  for (const input of snapshot.inputs) {
    if (input.kind === 'advance') {
      finish();
      running = { end: input.at + input.ms, ...(input.stop === undefined ? {} : { stop: input.stop }) };
      continue;
    }
    if (input.kind === 'reset') {
      finish();
      target.reset();
      continue;
    }
    // An input that came while time moved: the clock first goes to its instant.
    if (input.at > target.now()) target.advance(input.at - target.now());
    if (input.kind === 'request') target.request(input);
    else target.call(input.name, input.args);
  }
  finish();
  if (endMs > target.now()) target.advance(endMs - target.now());
}

const INPUT_KINDS = ['request', 'call', 'advance', 'reset'] as const;

/**
 * Checks a snapshot (as `createSandbox({ snapshot })` and the server receive it) and returns
 * it typed, or throws a SandboxError naming the field (`snapshot.inputs[3].at`) and the fix.
 */
export function parseSnapshot(value: unknown, path = 'snapshot'): SandboxSnapshot {
  try {
    return parse(value, path);
  } catch (error) {
    if (error instanceof Invalid) throw new SandboxError(error.message, { code: error.code, param: error.param });
    throw error;
  }
}

function parse(value: unknown, path: string): SandboxSnapshot {
  const snapshot = record(value, path, 'a snapshot taken with sandbox.snapshot() (or GET /__sandbox/sessions/{s}/snapshot)');
  if (snapshot.format !== SNAPSHOT_FORMAT) {
    throw invalid(
      `${name(`${path}.format`)} must be "${SNAPSHOT_FORMAT}", got ${show(snapshot.format)}: pass the value sandbox.snapshot() returned ` +
        `(or GET /__sandbox/sessions/{s}/snapshot answered), unchanged.`,
      `${path}.format`,
    );
  }
  const version = text(snapshot.version, `${path}.version`);
  if (version !== packageVersion()) {
    throw invalid(
      `${name(`${path}.version`)}: this snapshot was taken by svc-sandbox ${version}, and this is ${packageVersion()}. Another version ` +
        `may simulate the same inputs differently, so its answers would not be the same: take the snapshot again with ` +
        `${packageVersion()}, or restore it with svc-sandbox@${version}.`,
      `${path}.version`,
    );
  }
  const options = record(snapshot.options, `${path}.options`, 'the createSandbox options the snapshot was made with');
  const now = instant(snapshot.now, `${path}.now`);
  const inputs = list(snapshot.inputs, `${path}.inputs`).map((input, i) => parseInput(input, `${path}.inputs[${i}]`));
  const attempts = list(snapshot.attempts, `${path}.attempts`).map((entry, i): SnapshotAttempt => {
    const where = `${path}.attempts[${i}]`;
    if (!Array.isArray(entry) || entry.length !== 2)
      throw invalid(`${name(where)} must be a [key, result] pair, got ${show(entry)}.`, where);
    const result = record(entry[1], `${where}[1]`, 'an attempt result { status, ok, error, durationMs }');
    const status = result.status === null ? null : integer(result.status, `${where}[1].status`);
    if (typeof result.ok !== 'boolean')
      throw invalid(`${name(`${where}[1].ok`)} must be true or false, got ${show(result.ok)}.`, `${where}[1].ok`);
    const error = result.error === null ? null : text(result.error, `${where}[1].error`);
    const durationMs = number(result.durationMs, `${where}[1].durationMs`);
    return [text(entry[0], `${where}[0]`), { status, ok: result.ok, error, durationMs }];
  });
  const out: SandboxSnapshot = { format: SNAPSHOT_FORMAT, version, options, now: iso(now), inputs, attempts };
  if (snapshot.apiKey !== undefined) out.apiKey = text(snapshot.apiKey, `${path}.apiKey`);
  return out;
}

function parseInput(value: unknown, path: string): SnapshotInput {
  const input = record(value, path, 'an input of the snapshot');
  const kind = input.kind;
  if (typeof kind !== 'string' || !(INPUT_KINDS as readonly string[]).includes(kind)) {
    throw invalid(
      `${name(`${path}.kind`)} must be one of ${INPUT_KINDS.map((k) => `"${k}"`).join(', ')}, got ${show(kind)}.`,
      `${path}.kind`,
    );
  }
  const at = instant(input.at, `${path}.at`);
  switch (kind as SnapshotInput['kind']) {
    case 'reset':
      return { kind: 'reset', at };
    case 'advance': {
      const ms = number(input.ms, `${path}.ms`);
      return { kind: 'advance', at, ms, ...(input.stop === undefined ? {} : { stop: instant(input.stop, `${path}.stop`) }) };
    }
    case 'call': {
      const callName = text(input.name, `${path}.name`);
      const [space, method] = callName.split('.');
      const known = RECORDED_CALLS[space as keyof typeof RECORDED_CALLS] as readonly string[] | undefined;
      if (!known?.includes(method ?? ''))
        throw invalid(`${name(`${path}.name`)} ${show(callName)} is not a scripting call a snapshot records.`, `${path}.name`);
      return { kind: 'call', at, name: callName, args: list(input.args, `${path}.args`) };
    }
    case 'request': {
      const method = text(input.method, `${path}.method`);
      const headers = list(input.headers, `${path}.headers`).map((pair, i): [string, string] => {
        if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
          throw invalid(
            `${name(`${path}.headers[${i}]`)} must be a [name, value] pair of strings, got ${show(pair)}.`,
            `${path}.headers[${i}]`,
          );
        }
        return [pair[0], pair[1]];
      });
      const out: RequestInput = { kind: 'request', at, method, headers };
      if (input.path !== undefined) out.path = text(input.path, `${path}.path`);
      else out.url = text(input.url, `${path}.url`);
      if (input.body !== undefined) out.body = text(input.body, `${path}.body`);
      if (input.bodyBase64 !== undefined) out.bodyBase64 = text(input.bodyBase64, `${path}.bodyBase64`);
      if (input.bodyOver === true) out.bodyOver = true;
      return out;
    }
  }
}

function record(value: unknown, path: string, what: string): Record<string, unknown> {
  if (value === undefined) throw missing(`${name(path)} is missing: give ${what}.`, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(`${name(path)} must be ${what}, got ${show(value)}.`, path);
  return value as Record<string, unknown>;
}

function list(value: unknown, path: string): unknown[] {
  if (value === undefined) throw missing(`${name(path)} is missing: give an array.`, path);
  if (!Array.isArray(value)) throw invalid(`${name(path)} must be an array, got ${show(value)}.`, path);
  return value;
}

function text(value: unknown, path: string): string {
  if (value === undefined) throw missing(`${name(path)} is missing: give a string.`, path);
  if (typeof value !== 'string') throw invalid(`${name(path)} must be a string, got ${show(value)}.`, path);
  return value;
}

function number(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw invalid(`${name(path)} must be a number of 0 or more, got ${show(value)}.`, path);
  return value;
}

function integer(value: unknown, path: string): number {
  if (!Number.isInteger(value)) throw invalid(`${name(path)} must be an integer, got ${show(value)}.`, path);
  return value as number;
}

/** An instant as a snapshot keeps it: epoch milliseconds (`now` is ISO 8601). */
function instant(value: unknown, path: string): number {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS)
    throw invalid(`${name(path)} must be an instant (epoch milliseconds or ISO 8601), got ${show(value)}.`, path);
  return ms;
}
