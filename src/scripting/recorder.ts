// Longer than most files: the snapshot log records every input, folds old reads into counts and replays a
// snapshot, and the three share the log's one representation: splitting them would split that format.
import { SandboxError } from '../core/errors.js';
import { packageVersion } from '../core/package-version.js';
import { Slices } from '../core/slices.js';
import { iso } from '../core/time.js';
import type { AttemptTape } from '../webhooks/deliveries.js';
import type { PostResult } from '../webhooks/transport.js';
import { type AnsweredRecord, answeredAlike, answerKey, Elision } from './elision.js';
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
import { MAX_SNAPSHOT_REQUESTS, REPLAYED_HEADERS } from './snapshot-checks.js';

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
  /** Counts again, now, the requests an `elided` input kept as counts per rate window (its `windows`). */
  countRate(windows: ReadonlyArray<readonly [string, number]>): void;
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

/**
 * A request as the log keeps it: a class of one shape with its body and headers shared with the
 * requests that repeat them, and `times` for the same request repeated at one instant. It
 * becomes a snapshot's {@link RequestInput} only when a snapshot is taken.
 */
class LoggedRequest {
  times = 1;
  body: string | undefined = undefined;
  /** Its body was told (only the first telling counts). */
  told = false;
  /** The body passed the size limit (`bodyOver`). */
  over = false;
  /** `body` is base64, the body not being UTF-8. */
  base64 = false;
  /** Answered changing nothing but its request id, its rate window and its journal entry (`record` says how). */
  inert = false;
  /** Of an inert request: its journal record, what coverage counts of it once it is elided (then let go). */
  record: AnsweredRecord | undefined = undefined;
  /** The rate window it was counted in (null: none). */
  bucket: string | null = null;

  constructor(
    readonly at: number,
    readonly method: string,
    /** The path and query below the base URL (when `under`), or the whole URL. */
    readonly target: string,
    readonly headers: HeaderList,
    /** `target` is below the base URL (a `path`), not a whole `url`. */
    readonly under: boolean,
  ) {}

  /** The snapshot's form of it (fresh objects: a snapshot is the caller's to change). */
  input(): RequestInput {
    const input: RequestInput = {
      kind: 'request',
      at: this.at,
      method: this.method,
      ...(this.under ? { path: this.target } : { url: this.target }),
      headers: this.headers.map(([name, value]) => [name, value]),
    };
    if (this.over) input.bodyOver = true;
    else if (this.body !== undefined) {
      if (this.base64) input.bodyBase64 = this.body;
      else input.body = this.body;
    }
    if (this.times > 1) input.times = this.times;
    return input;
  }

  /** The same request as `other`: one may count for both (`times`). */
  repeats(other: LoggedRequest): boolean {
    return (
      this.at === other.at &&
      this.under === other.under &&
      this.over === other.over &&
      this.base64 === other.base64 &&
      this.inert === other.inert &&
      this.method === other.method &&
      this.target === other.target &&
      this.headers === other.headers &&
      this.body === other.body &&
      this.bucket === other.bucket &&
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
  /** The scripting members that change the sandbox, by public name, as `change()` declared them. */
  private readonly members = new Map<string, Member>();
  /** Those whose changes outlive a reset (declared so with the member): their calls stay in the log at a reset. */
  private readonly keptByReset = new Set<string>();
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
  /**
   * What the log keeps of a read's journal record until it is elided: the four fields coverage
   * counts, one object for every request answered alike. The journal's own record holds its error
   * message and request id as well (half a KB a read), which the journal forgets in its time.
   */
  private readonly answers = new Map<string, AnsweredRecord>();
  /** The URL of the last request and what the log kept of it: the next one most often sends the same. */
  private lastUrl = '';
  private lastTarget = '';
  private lastUnder = false;
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
    /** How many requests the journal holds now (its byte bound may keep fewer than `journalLimit`). */
    private readonly journalHeld: () => number = () => journalLimit,
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

  /**
   * Registers a member that changes the sandbox, under its public name, so a replay can call it;
   * `keptByReset` when what it changes outlives a reset (API keys), so its calls stay in the log.
   */
  register(name: string, member: Member, keptByReset = false): void {
    this.members.set(name, member);
    if (keptByReset) this.keptByReset.add(name);
  }

  /**
   * A scripting call, before it runs, so that what it sets going comes after it in the log. The
   * returned entry is handed back to {@link refused} when the call throws: a call that throws
   * changed nothing (its checks run before it changes anything), and is not kept.
   */
  call(name: string, args: unknown[]): CallInput | undefined {
    if (this.replayingNow) return undefined;
    let json: unknown[];
    try {
      json = jsonArgs(args);
    } catch (error) {
      throw new SandboxError(
        `${name}: its arguments are not JSON (${error instanceof Error ? error.message : String(error)}), so a snapshot could not keep them; pass plain data.`,
        { param: 'args' },
      );
    }
    const input: CallInput = { kind: 'call', at: this.stamp(), name, args: json };
    this.inputs.push(input);
    return input;
  }

  /** A call recorded by {@link call} threw (or its promise was refused): it changed nothing, and leaves the log. */
  refused(input: CallInput): void {
    const i = this.inputs.lastIndexOf(input);
    if (i >= 0) this.inputs.splice(i, 1);
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
      this.lastUnder = under;
    }
    const entry = new LoggedRequest(this.stamp(), method, this.lastTarget, this.headersOf(headers), this.lastUnder);
    this.inputs.push(entry);
    this.reading++;
    return entry;
  }

  /** Its body, once read (or `over`; an empty one when none was read): only the first telling counts. */
  read(entry: LoggedRequest, body: Uint8Array | 'over'): void {
    if (entry.told) return;
    entry.told = true;
    this.reading--;
    if (body === 'over') entry.over = true;
    else if (body.byteLength > 0) {
      try {
        entry.body = this.intern(utf8.decode(body));
      } catch {
        entry.body = Buffer.from(body).toString('base64');
        entry.base64 = true;
      }
    }
  }

  /**
   * It was answered (as api/pipeline.ts `AnsweredRequest` tells): `inert` when it changed nothing
   * but its request id, its rate window and its journal entry, `record` its journal record (what
   * coverage counts of it, once elided), `matched` when that names a documented path, `bucket`
   * the rate window it was counted in (null: none). Without a record it is kept as if it changed
   * something. The same request again at the same instant, answered alike, counts on the one
   * before (`times`).
   */
  answered(
    entry: LoggedRequest,
    { inert, record, matched, bucket }: { inert: boolean; record: AnsweredRecord | undefined; matched: boolean; bucket: string | null },
  ): void {
    entry.bucket = bucket;
    const answer = record === undefined ? undefined : this.answerOf(record, matched);
    if (this.replayingNow) {
      if (!entry.inert) return;
      // One repeat that changed something, or was answered otherwise than the one before (a snapshot
      // may be older than that rule), and the whole run is kept as it is.
      if (inert && answer !== undefined && (entry.record === undefined || answeredAlike(entry.record, answer))) entry.record = answer;
      else {
        entry.inert = false;
        entry.record = undefined;
      }
      return;
    }
    if (inert && answer !== undefined) {
      entry.inert = true;
      entry.record = answer;
    }
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
   * A reset: the log keeps only the calls declared to outlive it (keys made and revoked: the
   * ids of keys made later follow from them) and the resets, then this one.
   */
  reset(): void {
    if (this.replayingNow) return;
    this.inputs = this.inputs.filter(
      (input) =>
        !(input instanceof LoggedRequest) && (input.kind === 'reset' || (input.kind === 'call' && this.keptByReset.has(input.name))),
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
    const counted = this.inputs.reduce(
      (sum, input) => sum + (input instanceof LoggedRequest ? input.times : input.kind === 'elided' ? input.requests : 0),
      0,
    );
    if (counted > MAX_SNAPSHOT_REQUESTS) {
      throw new SandboxError(
        `Cannot take a snapshot: this sandbox answered ${counted} requests since it was made or last reset, more than the ` +
          `${MAX_SNAPSHOT_REQUESTS} a snapshot may count (docs/snapshots.md, "What a snapshot may hold"), so no sandbox could ` +
          `restore it. Reset it (or use a new one) between suites, and take the snapshot within one.`,
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
   * Replays a snapshot's inputs in order on this (new) sandbox at once, recording nothing
   * meanwhile: the log becomes the snapshot's. Throws a SandboxError naming the input
   * (`snapshot.inputs[3]`) when one does not replay as it was recorded (see {@link replaySteps}).
   */
  replay(snapshot: SandboxSnapshot, target: ReplayTarget): void {
    for (const _ of this.replaySteps(snapshot, target));
  }

  /**
   * The same replay in slices of real time (core/slices.ts): between two steps the event loop
   * takes other work, so a long snapshot holds no other session of a server (docs/server.md,
   * "Long work"). Nothing else reaches this sandbox meanwhile: it is handed out once restored.
   */
  async replayInSlices(snapshot: SandboxSnapshot, target: ReplayTarget): Promise<void> {
    const slices = new Slices();
    for (const _ of this.replaySteps(snapshot, target)) if (slices.due) await slices.pause();
  }

  /**
   * The replay, a step at a time: it yields after each input, each repeat of a request and
   * each {@link SKIP_SLICE} elided request ids. An advance is run lazily: an input that arrived
   * while it ran (a request from a webhook receiver, a call from a listener) is applied once
   * the clock has reached its instant, then the advance goes on. A call is recorded only when
   * it did not throw, so one that throws now diverges: the sandbox would silently differ from
   * the one the snapshot was taken of, and the snapshot is refused naming the input.
   */
  private *replaySteps(snapshot: SandboxSnapshot, target: ReplayTarget): Generator<void, void, undefined> {
    this.inputs = snapshot.inputs.map((input) => {
      if (input.kind === 'request') return this.logged(input);
      // Compaction adds to an elided input's rows and windows in place: the log's own, never the caller's.
      if (input.kind === 'elided')
        return {
          ...input,
          ...(input.answered ? { answered: input.answered.map((row) => [...row] as AnsweredRow) } : {}),
          ...(input.windows ? { windows: input.windows.map(([bucket, n]) => [bucket, n] as [string, number]) } : {}),
        };
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
        // Drawing request ids depends on no instant: the clock stays where it is, unless the
        // requests counted in rate windows that later requests share: they are counted again there.
        if (input.kind === 'elided') {
          if (input.windows) {
            if (input.at > target.now()) target.advance(input.at - target.now());
            target.countRate(input.windows);
          }
          for (let left = input.requests; left > 0; left -= SKIP_SLICE) {
            target.skipRequests(Math.min(left, SKIP_SLICE));
            yield;
          }
          if (input.answered) target.countAnswered(input.answered);
          continue;
        }
        if (input.kind === 'advance') {
          finish();
          running = { end: input.at + input.ms, ...(input.stop === undefined ? {} : { stop: input.stop }) };
          yield;
          continue;
        }
        if (input.kind === 'reset') {
          finish();
          target.reset();
          yield;
          continue;
        }
        // An input that came while time moved: the clock first goes to its instant.
        if (input.at > target.now()) target.advance(input.at - target.now());
        if (input.kind === 'request') {
          this.replayed = this.inputs[i] as LoggedRequest;
          for (let n = input.times ?? 1; n > 0; n--) {
            diverges(i, 'request', () => target.request(input));
            target.settle();
            yield;
          }
          this.replayed = undefined;
          continue;
        }
        const member = this.members.get(input.name) as ((...args: unknown[]) => unknown) | undefined;
        const args = JSON.parse(JSON.stringify(input.args), decode) as unknown[];
        diverges(i, input.name, () => member?.(...args));
        target.settle();
        yield;
      }
      finish();
      if (endMs > target.now()) target.advance(endMs - target.now());
    } finally {
      this.replayingNow = false;
      this.replayed = undefined;
    }
  }

  /**
   * What coverage counts of an answer, one object for every request answered alike. The path of
   * one that matched no operation is {@link UNMATCHED}: coverage counts it under its error code
   * alone, and a flood of made-up paths is one row, not one each.
   */
  private answerOf({ method, path: named, status, errorCode }: AnsweredRecord, matched: boolean): AnsweredRecord {
    const path = matched ? named : UNMATCHED;
    const key = answerKey(method, path, status, errorCode);
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const kept: AnsweredRecord = { method, path, status, errorCode };
    if (this.answers.size < INTERNED) this.answers.set(key, kept);
    return kept;
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
    for (const name of REPLAYED_HEADERS) {
      if (!same) break;
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
    const { path } = input;
    const under = path !== undefined;
    const entry = new LoggedRequest(
      input.at,
      input.method,
      // The schema gave one of `path` and `url`.
      path !== undefined ? this.intern(path) : (input.url ?? ''),
      this.internHeaders(input.headers.map(([name, value]) => [name, value])),
      under,
    );
    // Told and answered; a replay tells whether it changed anything.
    entry.told = true;
    entry.inert = true;
    entry.over = input.bodyOver === true;
    entry.base64 = input.bodyBase64 !== undefined && !input.bodyOver;
    if (!input.bodyOver) entry.body = input.body ?? input.bodyBase64;
    entry.times = input.times ?? 1;
    return entry;
  }

  /**
   * Keeps the log bounded by what the sandbox holds, not by how many requests it answered
   * (docs/snapshots.md, "Cost"). A request that changed nothing but its request id, its rate
   * window and its journal entry (a read, a refusal before any handler ran) matters to a replay
   * only while the journal still lists it. Older ones are replaced by a count (an `elided` input)
   * with rows of what they were answered with, read from their journal records (which the log
   * then lets go): a replay draws their request ids and counts the rows in coverage, which is all
   * they left behind. Those of the second the oldest kept request falls in share rate windows
   * with it (the clock stood still): their count says, too, how many each window counted
   * (`windows`, in the order the windows opened), which a replay counts again at their instant (a
   * second's windows are never dropped, so their counts are all the limiter kept of them). Run
   * every `journalLimit` requests (1,024 at least), so a request pays O(1) for it.
   */
  private compact(): void {
    this.answeredSince = 0;
    const { inputs } = this;
    // The horizon: the oldest request the journal lists (the last `journalLimit`, or fewer when its bytes are full).
    const lists = Math.min(this.journalLimit, this.journalHeld());
    let listed = 0;
    let horizon = inputs.length;
    while (horizon > 0 && listed < lists) {
      const input = inputs[--horizon];
      if (input instanceof LoggedRequest) listed += input.times;
    }
    if (horizon === 0) return;
    // Requests kept from the horizon on may have counted on the windows they share with older ones.
    const window = windowOf(inputs[horizon]?.at ?? this.now());
    const out: Logged[] = [];
    // Draws of request ids commute with every input but a request: a count gathers them until a kept request.
    let count: Elision | null = null;
    for (let input of inputs.slice(0, horizon)) {
      if (input instanceof LoggedRequest) {
        const inWindow = windowOf(input.at) >= window;
        if (input.inert) {
          // A count of the shared second starts at its first request's instant, which its replay takes the clock to.
          if (count === null || count.inWindow !== inWindow) out.push((count = Elision.startingAt(input.at, inWindow)).input);
          count.add(input.times, input.record, input.bucket);
          continue;
        }
        count = null;
      } else if (input.kind === 'elided') {
        // Its second is over for every request kept after it: its windows are spent.
        if (input.windows !== undefined && windowOf(input.at) < window) {
          const { windows: _spent, ...over } = input;
          input = over;
        }
        const inWindow = input.windows !== undefined;
        if (count !== null && count.inWindow === inWindow) {
          count.merge(input);
          continue;
        }
        count = new Elision(input, inWindow);
      }
      out.push(input);
    }
    this.inputs = out.concat(inputs.slice(horizon));
  }
}

/** The path an elided row names for requests that matched no operation: one no operation has. */
const UNMATCHED = '/';

/** Elided request ids drawn between two steps of a replay: some milliseconds of work. */
const SKIP_SLICE = 10_000;

/**
 * Runs one replayed input, which did not throw when it was recorded (a call that throws is not
 * recorded): one that throws now would leave this sandbox another than the one the snapshot was
 * taken of, so the snapshot is refused naming it. A promise it returns settles later, in the
 * sandbox's own time, as it did the first time.
 */
function diverges(i: number, what: string, fn: () => unknown): void {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SandboxError(
      `\`snapshot.inputs[${i}]\` (${what}) does not replay as it was recorded: it succeeded then and now fails ` +
        `(${why}), so the sandbox would not be the one the snapshot was taken of. Give the snapshot as sandbox.snapshot() wrote ` +
        `it, with the svc-sandbox version that took it, or take it again.`,
      { where: 'createSandbox', code: 'invalid_options', param: `snapshot.inputs[${i}]`, cause: error },
    );
  }
  if (result instanceof Promise) result.catch(() => undefined);
}
