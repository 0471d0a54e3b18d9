import { SandboxError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { iso } from '../core/time.js';
import type { AttemptTape } from '../webhooks/deliveries.js';
import type { PostResult } from '../webhooks/transport.js';
import { type AnsweredRecord, answeredAlike, Elision } from './elision.js';
import {
  type AdvanceInput,
  type AnsweredRow,
  type CallInput,
  type ElidedInput,
  type RequestInput,
  type ResetInput,
  SNAPSHOT_FORMAT,
  type SandboxSnapshot,
} from './snapshots.js';
import { REPLAYED_HEADERS } from './snapshot-checks.js';

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
  /** Draws the request ids of `count` requests a snapshot kept as a count (an `elided` input). */
  skipRequests(count: number): void;
  /** Counts in coverage what an `elided` input's requests were answered with (its `answered` rows). */
  countAnswered(rows: readonly AnsweredRow[]): void;
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
type HeaderList = Array<[string, string]>;
/** What the recorder reads of a request: a web Request, or the server's lighter one (api/request-body.ts `Incoming`). */
interface ArrivingRequest {
  readonly method: string;
  readonly url: string;
}
/** The values of {@link REPLAYED_HEADERS} the pipeline read (api/pipeline.ts `ReadHeaders`), null for those absent. */
type ReadHeaders = { readonly [name: string]: string | null };

/** Bits of {@link LoggedRequest.flags}. */
const UNDER = 1; // `target` is below the base URL (a `path`), not a whole `url`
const TOLD = 2; // its body was told
const OVER = 4; // the body passed the size limit (`bodyOver`)
const BASE64 = 8; // `body` is base64, the body not being UTF-8
const ANSWERED = 16;
const INERT = 32; // answered changing nothing but its request id, its rate window and its journal entry (`record`: how)

/**
 * A request as the log keeps it: a class of one shape with its body and headers shared with the
 * requests that repeat them, and `times` for the same request repeated at one instant. It
 * becomes a snapshot's {@link RequestInput} only when a snapshot is taken.
 */
class LoggedRequest {
  times = 1;
  body: string | undefined = undefined;
  /** Of an inert request: its journal record, what coverage counts of it once it is elided (then let go). */
  record: AnsweredRecord | undefined = undefined;

  constructor(
    readonly at: number,
    readonly method: string,
    /** The path and query below the base URL (`UNDER`), or the whole URL. */
    readonly target: string,
    readonly headers: HeaderList,
    public flags: number,
  ) {}

  /** The snapshot's form of it (fresh objects: a snapshot is the caller's to change). */
  input(): RequestInput {
    const input: RequestInput = {
      kind: 'request',
      at: this.at,
      method: this.method,
      ...(this.flags & UNDER ? { path: this.target } : { url: this.target }),
      headers: this.headers.map(([name, value]) => [name, value]),
    };
    if (this.flags & OVER) input.bodyOver = true;
    else if (this.body !== undefined) {
      if (this.flags & BASE64) input.bodyBase64 = this.body;
      else input.body = this.body;
    }
    if (this.times > 1) input.times = this.times;
    return input;
  }

  /** The same request as `other`: one may count for both (`times`). */
  repeats(other: LoggedRequest): boolean {
    return (
      this.at === other.at &&
      this.flags === other.flags &&
      this.method === other.method &&
      this.target === other.target &&
      this.headers === other.headers &&
      this.body === other.body &&
      answeredAlike(this.record, other.record)
    );
  }
}

/** What the log holds: requests in their compact form, the other inputs as a snapshot writes them. */
type Logged = LoggedRequest | CallInput | AdvanceInput | ResetInput | ElidedInput;

/** The start of the one-second rate window an instant falls in (api/rate-limit.ts counts so). */
const windowOf = (ms: number) => ms - (ms % 1000);

export class Recorder implements AttemptTape {
  private inputs: Logged[] = [];
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
  private readonly headerLists = new Map<string, HeaderList>();
  /** The URL of the last request and what the log kept of it: the next one most often sends the same. */
  private lastUrl = '';
  private lastTarget = '';
  private lastFlags = 0;
  /** The header list of the last request: the next one most often sends the same. */
  private lastHeaders: HeaderList = [];
  /** Requests answered since the log was last compacted (see {@link compact}). */
  private answeredSince = 0;
  /** The request of the snapshot being replayed now: the pipeline tells it whether each of its repeats changed anything. */
  private replayed: LoggedRequest | undefined;
  /** The sandbox's start: where the clock stands after a reset. */
  private readonly startMs: number;
  /** The instant of the latest input since the last reset (the start before any). */
  private last: number;

  constructor(
    private readonly options: Record<string, unknown>,
    /** Origin and base path: a request's URL is kept below it. */
    private readonly prefix: string,
    private readonly now: () => number,
    /** The requests the request journal lists at most: a snapshot must give them back (see {@link compact}). */
    private readonly journalLimit = 10_000,
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

  /**
   * A request arrives (api/pipeline.ts `RequestLog`), before anything is drawn for it: logged in
   * arrival order. While a snapshot is replayed, the request replayed (nothing is logged).
   */
  arrive(request: ArrivingRequest, headers: ReadHeaders): LoggedRequest | undefined {
    if (this.replayingNow) return this.replayed;
    const { url, method } = request;
    // A suite sends the same URL again and again: what the log keeps of it is worked out once.
    if (url !== this.lastUrl) {
      // Below the base URL's /v1 it is kept as a path (a restore may serve another base URL); anything else whole.
      const next = url.charCodeAt(this.prefix.length + 3);
      const under =
        url.startsWith(this.prefix) &&
        url.startsWith('/v1', this.prefix.length) &&
        (Number.isNaN(next) || next === 0x2f || next === 0x3f || next === 0x23);
      this.lastUrl = url;
      this.lastTarget = under ? this.intern(url.slice(this.prefix.length)) : url;
      this.lastFlags = under ? UNDER : 0;
    }
    const entry = new LoggedRequest(this.stamp(), method, this.lastTarget, this.headersOf(headers), this.lastFlags);
    this.inputs.push(entry);
    this.reading++;
    return entry;
  }

  /** Its body, once read (or `over`; an empty one when none was read): only the first telling counts. */
  read(entry: LoggedRequest, body: Uint8Array | 'over'): void {
    if (entry.flags & TOLD) return;
    entry.flags |= TOLD;
    this.reading--;
    if (body === 'over') entry.flags |= OVER;
    else if (body.byteLength > 0) {
      try {
        entry.body = this.intern(utf8.decode(body));
      } catch {
        entry.body = Buffer.from(body).toString('base64');
        entry.flags |= BASE64;
      }
    }
  }

  /**
   * It was answered; `inert` when it changed nothing but its request id, its rate window and its
   * journal entry, `record` its journal record (what coverage counts of it, once elided). Without
   * a record it is kept as if it changed something. The same request again at the same instant,
   * answered alike, counts on the one before (`times`).
   */
  answered(entry: LoggedRequest, inert: boolean, record: AnsweredRecord | undefined): void {
    if (this.replayingNow) {
      if (!(entry.flags & INERT)) return;
      // One repeat that changed something, or was answered otherwise than the one before (a snapshot
      // may be older than that rule), and the whole run is kept as it is.
      if (inert && record !== undefined && (entry.record === undefined || answeredAlike(entry.record, record))) entry.record = record;
      else {
        entry.flags &= ~INERT;
        entry.record = undefined;
      }
      return;
    }
    if (inert && record !== undefined) {
      entry.flags |= ANSWERED | INERT;
      entry.record = record;
    } else entry.flags |= ANSWERED;
    const { inputs } = this;
    const last = inputs.length - 1;
    const before = inputs[last - 1];
    if (inputs[last] === entry && before instanceof LoggedRequest && before.repeats(entry)) {
      before.times += entry.times;
      inputs.pop();
    }
    if (++this.answeredSince >= Math.max(1024, this.journalLimit)) this.compact();
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
    this.inputs = this.inputs.filter(
      (input) => !(input instanceof LoggedRequest) && (input.kind === 'reset' || (input.kind === 'call' && input.name.startsWith('keys.'))),
    );
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
      inputs: this.inputs.map((input) => (input instanceof LoggedRequest ? input.input() : structuredClone(input))),
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
          `\`snapshot.inputs[${i}].name\` ${JSON.stringify(input.name)} is not a scripting call a snapshot records: ` +
            `one of ${[...this.members.keys()].sort().join(', ')}; give the snapshot as sandbox.snapshot() wrote it.`,
          { where: 'createSandbox', code: 'invalid_options', param: `snapshot.inputs[${i}].name` },
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
    this.inputs = snapshot.inputs.map((input) => {
      if (input.kind === 'request') return this.logged(input);
      // Compaction adds to an elided input's rows in place: the log's own, never the caller's.
      if (input.kind === 'elided' && input.answered) return { ...input, answered: input.answered.map((row) => [...row] as AnsweredRow) };
      return { ...input };
    });
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
      for (const [i, input] of snapshot.inputs.entries()) {
        // Drawing request ids depends on no instant: the clock stays where it is.
        if (input.kind === 'elided') {
          target.skipRequests(input.requests);
          if (input.answered) target.countAnswered(input.answered);
          continue;
        }
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
        if (input.kind === 'request') {
          this.replayed = this.inputs[i] as LoggedRequest;
          for (let n = input.times ?? 1; n > 0; n--) {
            passOver(() => target.request(input));
            target.settle();
          }
          this.replayed = undefined;
          continue;
        }
        const member = this.members.get(input.name) as ((...args: unknown[]) => unknown) | undefined;
        const args = JSON.parse(JSON.stringify(input.args), decode) as unknown[];
        passOver(() => member?.(...args));
        target.settle();
      }
      finish();
      if (endMs > target.now()) target.advance(endMs - target.now());
    } finally {
      this.replayingNow = false;
      this.replayed = undefined;
    }
  }

  private intern(text: string): string {
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    if (this.strings.size < INTERNED) this.strings.set(text, text);
    return text;
  }

  /** The headers a snapshot keeps, as one list shared by every request that sends the same. */
  private headersOf(headers: ReadHeaders): HeaderList {
    // Compared with the last request's list as they are read: a client mostly sends the same again.
    const last = this.lastHeaders;
    let matched = 0;
    let same = true;
    for (let i = 0; same && i < REPLAYED_HEADERS.length; i++) {
      const name = REPLAYED_HEADERS[i]!;
      const value = headers[name] ?? null;
      const pair = last[matched];
      if (pair !== undefined && pair[0] === name) {
        if (pair[1] === value) matched++;
        else same = false;
      } else if (value !== null) same = false;
    }
    if (same && matched === last.length) return last;
    const kept: HeaderList = [];
    for (const name of REPLAYED_HEADERS) {
      const value = headers[name] ?? null;
      if (value !== null) kept.push([name, value]);
    }
    this.lastHeaders = this.internHeaders(kept);
    return this.lastHeaders;
  }

  private internHeaders(kept: HeaderList): HeaderList {
    const key = kept.join('\n');
    const known = this.headerLists.get(key);
    if (known !== undefined) return known;
    if (this.headerLists.size < INTERNED) this.headerLists.set(key, kept);
    return kept;
  }

  /** A snapshot's request in the log's form, told and answered (a replay tells whether it changed anything). */
  private logged(input: RequestInput): LoggedRequest {
    const under = input.path !== undefined;
    const entry = new LoggedRequest(
      input.at,
      input.method,
      under ? this.intern(input.path!) : input.url!,
      this.internHeaders(input.headers.map(([name, value]) => [name, value])),
      (under ? UNDER : 0) |
        TOLD |
        ANSWERED |
        INERT |
        (input.bodyOver ? OVER : 0) |
        (input.bodyBase64 !== undefined && !input.bodyOver ? BASE64 : 0),
    );
    if (!input.bodyOver) entry.body = input.body ?? input.bodyBase64;
    entry.times = input.times ?? 1;
    return entry;
  }

  /**
   * Keeps the log bounded by what the sandbox holds, not by how many requests it answered
   * (docs/snapshots.md, "Cost"). A request that changed nothing but its request id, its rate
   * window and its journal entry (a read, a refusal before any handler ran) matters to a replay
   * only while the journal still lists it, or while a request kept after it shares its rate
   * window. Older ones are replaced by a count (an `elided` input) with rows of what they were
   * answered with, read from their journal records (which the log then lets go): a replay draws
   * their request ids and counts the rows in coverage, which is all they left behind. Run every
   * `journalLimit` requests (1,024 at least), so a request pays O(1) for it.
   */
  private compact(): void {
    this.answeredSince = 0;
    const { inputs } = this;
    // The horizon: the oldest request the journal lists (it lists the last `journalLimit`).
    let listed = 0;
    let horizon = inputs.length;
    while (horizon > 0 && listed < this.journalLimit) {
      const input = inputs[--horizon]!;
      if (input instanceof LoggedRequest) listed += input.times;
    }
    if (horizon === 0) return;
    // Requests kept from the horizon on may have counted on the windows they share with older ones.
    const window = windowOf(horizon < inputs.length ? inputs[horizon]!.at : this.now());
    const out: Logged[] = [];
    // Draws of request ids commute with every input but a request: a count gathers them until a kept request.
    let count: Elision | null = null;
    for (let i = 0; i < horizon; i++) {
      const input = inputs[i]!;
      if (input instanceof LoggedRequest) {
        if (input.flags & INERT && windowOf(input.at) < window) {
          if (count === null) out.push((count = Elision.startingAt(input.at)).input);
          count.add(input.times, input.record);
          continue;
        }
        count = null;
      } else if (input.kind === 'elided') {
        if (count !== null) {
          count.merge(input);
          continue;
        }
        count = new Elision(input);
      }
      out.push(input);
    }
    for (let i = horizon; i < inputs.length; i++) out.push(inputs[i]!);
    this.inputs = out;
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
