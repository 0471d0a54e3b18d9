import { SandboxError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { iso } from '../core/time.js';
import type { AttemptTape } from '../webhooks/deliveries.js';
import type { PostResult } from '../webhooks/transport.js';
import { API_PATH, REPLAYED_HEADERS } from './snapshot-checks.js';
import { type AdvanceInput, type RequestInput, SNAPSHOT_FORMAT, type SandboxSnapshot, type SnapshotInput } from './snapshots.js';

/**
 * The one recorder of a sandbox (docs/snapshots.md): it keeps every input that can change the
 * sandbox, and replays a snapshot's inputs on a new one. Inputs arrive at four doors, each
 * told once: the API pipeline (a request), `changes()` in scripting/context.ts (every scripting
 * member that changes something, by its public name, `webhooks.replay` included), the
 * sandbox's `advance`/`advanceUntil`/`reset`, and webhook delivery (an attempt's result). A
 * scripting member is recorded because it is declared a change where its namespace is
 * written, and the same declaration registers it here for the replay: there is no second
 * list of names to keep (test/sandbox/snapshots.test.ts fails on a member declared neither
 * a change nor a read).
 */

/** What a replay drives besides the scripting calls: the new sandbox's own inputs, run at once. */
export interface ReplayTarget {
  now(): number;
  request(input: RequestInput): void;
  /** Moves the clock by `ms` now (until `stop` is reached, for an advanceUntil). */
  advance(ms: number, stop?: number): void;
  /** A recorded advance ended here (the replay may have run it in pieces, around inputs that came while it ran). */
  end(): void;
  reset(): void;
  /** After each request and call: what they set going at this instant runs now. */
  settle(): void;
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

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Distinct strings and header lists a log shares at most (see Recorder). */
const INTERNED = 10_000;

type Member = (...args: never[]) => unknown;

export class Recorder implements AttemptTape {
  private inputs: SnapshotInput[] = [];
  private attempts = new Map<string, PostResult>();
  /** The scripting members that change the sandbox, by public name, as `changes()` declared them. */
  private readonly members = new Map<string, Member>();
  /** Requests whose body is still being read: a snapshot then would miss it. */
  private reading = 0;
  private replayingNow = false;
  /**
   * Strings and header lists seen before, shared by every request that repeats them (a suite
   * sends the same headers, paths and often bodies again and again): a request costs its log
   * about 0.1 KB instead of 0.5 KB. At most {@link INTERNED} of each are kept.
   */
  private readonly strings = new Map<string, string>();
  private readonly headerLists = new Map<string, Array<[string, string]>>();
  /** The sandbox's start: where the clock stands after a reset. */
  private readonly startMs: number;
  /** The instant of the latest input since the last reset (the start before any). */
  private last: number;

  constructor(
    private readonly options: Record<string, unknown>,
    /** Origin and base path: a request's URL is kept below it. */
    private readonly prefix: string,
    private readonly now: () => number,
  ) {
    const start = Date.parse(String(options.startTime));
    this.startMs = Number.isFinite(start) ? start : Number.NEGATIVE_INFINITY;
    this.last = this.startMs;
  }

  /**
   * Virtual now, for an input: never before the input before it. Only a 'global' clock goes
   * back (the process's Date, which a test may set back); a replay, on a clock of its own, runs
   * such an input at the later instant anyway, and a snapshot's inputs stay in order.
   */
  private stamp(): number {
    const now = this.now();
    if (now > this.last) this.last = now;
    return this.last;
  }

  get replaying(): boolean {
    return this.replayingNow;
  }

  /** Registers a member that changes the sandbox, under its public name, so a replay can call it. */
  register(name: string, member: Member): void {
    this.members.set(name, member);
  }

  /** A scripting call, before it runs (one that throws changed nothing, and throws again in the replay). */
  call(name: string, args: unknown[]): void {
    if (this.replayingNow) return;
    let json: unknown[];
    try {
      json = jsonArgs(args);
    } catch (error) {
      throw new SandboxError(
        `${name}: its arguments are not JSON (${error instanceof Error ? error.message : String(error)}), so a snapshot could not keep them; pass plain data.`,
        { param: 'args' },
      );
    }
    this.inputs.push({ kind: 'call', at: this.stamp(), name, args: json });
  }

  /** A request arrives; the returned function is told its body once read. */
  request(request: Request): ((body: Uint8Array | 'over') => void) | undefined {
    if (this.replayingNow) return undefined;
    // Below the base URL's /v1 it is kept as a path (a restore may serve another base URL); anything else whole.
    const under = request.url.startsWith(this.prefix) && API_PATH.test(request.url.slice(this.prefix.length));
    const input: RequestInput = {
      kind: 'request',
      at: this.stamp(),
      method: this.intern(request.method),
      ...(under ? { path: this.intern(request.url.slice(this.prefix.length)) } : { url: request.url }),
      headers: this.headersOf(request.headers),
    };
    this.inputs.push(input);
    this.reading++;
    let told = false;
    return (body) => {
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
  }

  /** An advance begins; the returned function is told where an advanceUntil stopped. */
  advance(ms: number): (stop: number) => void {
    if (this.replayingNow) return () => undefined;
    const input: AdvanceInput = { kind: 'advance', at: this.stamp(), ms };
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
    if (this.replayingNow) return;
    this.inputs = this.inputs.filter((input) => input.kind === 'reset' || (input.kind === 'call' && input.name.startsWith('keys.')));
    this.inputs.push({ kind: 'reset', at: this.stamp() });
    this.last = this.startMs;
    this.attempts.clear();
  }

  put(key: string, result: PostResult): void {
    if (this.replayingNow) return;
    this.attempts.set(key, { status: result.status, ok: result.ok, error: result.error, durationMs: result.durationMs });
  }

  recorded(key: string): PostResult | undefined {
    return this.attempts.get(key);
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
      now: iso(Math.max(this.now(), this.last)),
      inputs: structuredClone(this.inputs),
      attempts: [...this.attempts].map(([key, result]) => [key, { ...result }]),
    };
  }

  /**
   * Refuses a snapshot one of whose calls is no scripting member this sandbox records, naming
   * it (`snapshot.inputs[3].name`): checked before anything is replayed.
   */
  check(snapshot: SandboxSnapshot): void {
    snapshot.inputs.forEach((input, i) => {
      if (input.kind === 'call' && !this.members.has(input.name)) {
        throw new SandboxError(
          `createSandbox: \`snapshot.inputs[${i}].name\` ${JSON.stringify(input.name)} is not a scripting call a snapshot records: ` +
            `one of ${[...this.members.keys()].sort().join(', ')}; give the snapshot as sandbox.snapshot() wrote it.`,
          { code: 'invalid_options', param: `snapshot.inputs[${i}].name` },
        );
      }
    });
  }

  /**
   * Replays a snapshot's inputs in order on this (new) sandbox, recording nothing meanwhile:
   * the log becomes the snapshot's. An advance is run lazily: an input that arrived while it
   * ran (a request from a webhook receiver, a call from a listener) is applied once the clock
   * has reached its instant, then the advance goes on. What threw when it was first made
   * throws again and changed nothing either time, so it is passed over.
   */
  replay(snapshot: SandboxSnapshot, target: ReplayTarget): void {
    this.inputs = snapshot.inputs.map((input) => ({ ...input }));
    this.attempts = new Map(snapshot.attempts);
    const endMs = Date.parse(snapshot.now);
    this.replayingNow = true;
    try {
      let running: { end: number; stop?: number } | null = null;
      const finish = () => {
        if (running === null) return;
        const { end, stop } = running;
        running = null;
        // An advanceUntil ends at the end of the instant it stopped at: inputs after it may have taken the clock there already.
        if (!(stop !== undefined && stop <= endMs && target.now() >= stop))
          target.advance(Math.max(0, Math.min(end, endMs) - target.now()), stop !== undefined && stop <= endMs ? stop : undefined);
        // Unless the snapshot was taken while it ran.
        if ((stop ?? end) <= endMs) target.end();
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
        if (input.kind === 'request') passOver(() => target.request(input));
        else {
          const member = this.members.get(input.name) as ((...args: unknown[]) => unknown) | undefined;
          const args = JSON.parse(JSON.stringify(input.args), decode) as unknown[];
          passOver(() => member?.(...args));
        }
        target.settle();
      }
      finish();
      if (endMs > target.now()) target.advance(endMs - target.now());
    } finally {
      this.replayingNow = false;
    }
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
}

/** Runs one replayed input: it threw when it was first made too, and changed nothing then either. */
function passOver(fn: () => unknown): void {
  try {
    const result = fn();
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // see above
  }
}
