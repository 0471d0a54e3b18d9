// Longer than most files: `show`'s index of a snapshot (every version of every item, by instant) and the answers it
// gives from it are one structure, read and written by the same few functions.
import { CONSOLE_KINDS, type ConsoleKind } from '../scripting/console-view.js';
import { callOfEvent, type EventPositions, type SandboxEvent } from '../scripting/events.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { type InternalOptions, REPLAY_ONLY } from '../options.js';
import { Sandbox, type SandboxInternals } from '../sandbox.js';

/**
 * A session's history, for the console's time travel (`svc-sandbox show`, docs/debugging.md):
 * the snapshot is replayed once, and every version of every resource the console shows is kept
 * with the virtual instant it took effect, with every event; the session as it was at any
 * instant is then read from that index, never by replaying again.
 *
 * The index costs little beside the replayed sandbox it reads from, whose stores hold each
 * item's last version and every event already: a version keeps only the fields in which it
 * differs from the next one (a call's `status` and stamps, not its numbers), an event only its
 * instant. So the memory grows with the snapshot's size, some 40% more than the sandbox's, and an
 * answer costs the items it carries: a list is windowed to its newest items
 * ({@link DEFAULT_WINDOW}), and each count said (bench/show.mjs and bench/show-limits.mjs
 * measure both ends).
 *
 * The versions come from the sandbox's own change feed (state/changes.ts), which names what each
 * step changed, timed by the clock when the step ends: the same feed that keeps the live
 * console current, so what the time travel shows is what a console watching the original run
 * would have shown at that instant.
 */

/**
 * What the index keeps versions of: the console's kinds (each item as the console's lists give
 * it, but a delivery without its `event`, which the log holds, and a recording without its
 * `transcript`, which the transcripts hold), and the session's API keys.
 */
export type HistoryKind = ConsoleKind | 'key';
export const HISTORY_KINDS: readonly HistoryKind[] = [...CONSOLE_KINDS, 'key'];
/** Listed oldest first, as the console's lists are (the others newest first). */
const OLDEST_FIRST = new Set<HistoryKind>(['delivery', 'key']);
/** The most events an answer carries (the newest): the console draws no more. */
export const NEWEST_EVENTS = 500;
/** The most items of one kind a state answer carries by default: the newest, with the count of all. */
export const DEFAULT_WINDOW = 500;
/** The most a reader may ask for (`limit`): an answer stays a few MB whatever the session. */
export const MAX_WINDOW = 5000;

type Fields = Record<string, unknown>;

/**
 * One version of an item, from `at` on. Its fields are those of the next version with `undo`
 * applied (the fields in which it differs, and the names of those it lacks), or `json` when it
 * is kept whole (before a removal, or when the sandbox's last version differs); the last
 * version of an item that exists at the end is the sandbox's own item.
 */
class Version {
  // Every field is set as it is made: one shape, each field inside the object. The index holds a
  // version per change of every item; a plain object given its fields later costs half again as much.
  /** The item is gone from `at` on. */
  gone = false;
  /** A live transcript: its segments follow the clock (see {@link SessionHistory.itemAt}). */
  live = false;
  json: string | undefined = undefined;
  /** JSON of `[fields]` or `[fields, absent names]`. */
  undo: string | undefined = undefined;

  constructor(readonly at: number) {}
}

/** A mark of the time axis: an event of the log, when, what, and the resource it is about. */
interface Mark {
  at: string;
  id: string;
  type: string;
  /** The resource it is about (`data.id`), and the call it belongs to (null for a message's). */
  subject: string;
  call: string | null;
}

/** Segments as a transcript's JSON holds them. */
interface Segment {
  speaker: string;
  text: string;
  start: number;
  end: number;
}

/** One kind's items: their versions, and their ids in the order they first appeared. */
interface KindIndex {
  versions: Map<string, Version[]>;
  ids: string[];
}

/** What the index reads its items' last versions and the events' JSON from: the replayed sandbox. */
interface Source {
  /** An item as the console's lists give it at the end (slimmed), or undefined when it is gone. */
  final(kind: HistoryKind, id: string): Fields | undefined;
  events: Pick<EventPositions, 'after'>;
}

/** How many events the index reads from the log at a time. */
const EVENT_PAGE = 10_000;

export class SessionHistory {
  constructor(
    /** The session's start: its clock's start, or its last reset. Epoch ms. */
    readonly start: number,
    /** When the snapshot was taken. Epoch ms. */
    readonly end: number,
    private readonly kinds: ReadonlyMap<HistoryKind, KindIndex>,
    /**
     * The instant of each event of the log (epoch ms), oldest first: so in order. The events
     * themselves are read from the sandbox's log, which holds them already.
     */
    readonly eventInstants: Float64Array,
    /** Each transcript: when its call was answered, and its segments at the end. */
    private readonly transcripts: ReadonlyMap<string, { answeredMs: number; segments: Segment[] }>,
    private readonly source: Source,
  ) {}

  /** How many events happened at or before `ms`. */
  eventsUntil(ms: number): number {
    let lo = 0;
    let hi = this.eventInstants.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.eventInstants[mid] ?? Number.POSITIVE_INFINITY) <= ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** How many items of a kind existed at `ms`. */
  countAt(kind: HistoryKind, ms: number): number {
    let count = 0;
    const index = this.kinds.get(kind);
    if (!index) return 0;
    for (const versions of index.versions.values()) {
      const version = versionAt(versions, ms);
      if (version && !version.gone) count++;
    }
    return count;
  }

  /**
   * The items of a kind as they were at `ms`, as JSON texts, in the console list's order: the
   * newest `limit` of them (all by default).
   */
  itemsAt(kind: HistoryKind, ms: number, limit = Number.POSITIVE_INFINITY): string[] {
    const index = this.kinds.get(kind);
    if (!index) return [];
    const out: string[] = [];
    for (let i = index.ids.length - 1; i >= 0 && out.length < limit; i--) {
      const id = index.ids[i] ?? '';
      const versions = index.versions.get(id) ?? [];
      const json = this.jsonOf(kind, id, versions, versionIndexAt(versions, ms), ms);
      if (json !== null) out.push(json);
    }
    return OLDEST_FIRST.has(kind) ? out.reverse() : out;
  }

  /**
   * The session at `ms` as the show server answers it (JSON text): `now`, the newest `limit`
   * items of each kind in the console lists' order, `counts` (how many of each kind existed
   * then), and the event log's length with its newest events (at most {@link NEWEST_EVENTS}).
   */
  stateAt(ms: number, limit = DEFAULT_WINDOW): string {
    const items = HISTORY_KINDS.map((kind) => `${JSON.stringify(kind)}:[${this.itemsAt(kind, ms, limit).join(',')}]`);
    return `{"now":${JSON.stringify(iso(ms))},"items":{${items.join(',')}},"counts":${this.countsJson(ms)},"events":${this.eventsJson(ms)}}`;
  }

  /**
   * What changed between the session at `from` and at `to`, as the console's `change` frames
   * carry it (`{kind, id, removed, data}`: each item whose JSON differs, with its JSON at `to`,
   * or removed), so a page holding the session at `from` moves to `to` with what a step
   * changed, not the whole session. Items new at `to` come oldest first (a page puts each new
   * one on top). Null when more than `limit` items changed: the whole state is then cheaper.
   */
  changesBetween(from: number, to: number, limit = 2000): string | null {
    const changes: string[] = [];
    for (const kind of HISTORY_KINDS) {
      for (const [id, versions] of this.kinds.get(kind)?.versions ?? []) {
        const before = versionIndexAt(versions, from);
        const after = versionIndexAt(versions, to);
        const moving = versions[after]?.live === true && from !== to;
        if (before === after && !moving) continue;
        const json = this.jsonOf(kind, id, versions, after, to);
        if (json === null && (before < 0 || versions[before]?.gone)) continue;
        if (changes.length === limit) return null;
        changes.push(`{"kind":${JSON.stringify(kind)},"id":${JSON.stringify(id)},"removed":${json === null},"data":${json ?? 'null'}}`);
      }
    }
    return `{"now":${JSON.stringify(iso(to))},"changes":[${changes.join(',')}],"counts":${this.countsJson(to)},"events":${this.eventsJson(to)}}`;
  }

  /**
   * The marks of the time axis as the show server sends them: the JSON text of `[{at, id,
   * type, subject, call}]` in pieces, a page of events each. Made as it is read, never kept: a
   * long session's marks are tens of MB of text.
   */
  *marksJson(): Generator<string, void, void> {
    yield '[';
    for (let position = 0; position < this.eventInstants.length; position += EVENT_PAGE) {
      const page = this.source.events.after(position, EVENT_PAGE).map((event) => JSON.stringify(markOf(event)));
      yield `${position === 0 ? '' : ','}${page.join(',')}`;
    }
    yield ']';
  }

  private countsJson(ms: number): string {
    return `{${HISTORY_KINDS.map((kind) => `${JSON.stringify(kind)}:${this.countAt(kind, ms)}`).join(',')}}`;
  }

  /** `{count, newest}`: how many events happened by `ms`, and the newest of them (read from the sandbox's log). */
  private eventsJson(ms: number): string {
    const count = this.eventsUntil(ms);
    const from = Math.max(0, count - NEWEST_EVENTS);
    const newest = this.source.events.after(from, count - from).map((e) => JSON.stringify(e));
    return `{"count":${count},"newest":[${newest.join(',')}]}`;
  }

  /**
   * The JSON of `versions[index]` (the item's last version at or before `ms`), or null when the
   * item did not exist then. A live transcript's JSON follows the clock with no change to mark
   * it (the API shows the lines spoken by now), so its segments are those of its final text
   * that had ended by `ms`, as the API answered then.
   */
  private jsonOf(kind: HistoryKind, id: string, versions: readonly Version[], index: number, ms: number): string | null {
    const version = versions[index];
    if (!version || version.gone) return null;
    const transcript = version.live && kind === 'transcript' ? this.transcripts.get(id) : undefined;
    if (!transcript) return version.json ?? JSON.stringify(this.fieldsOf(kind, id, versions, index));
    // As state/transcripts.ts spokenSegments and toJson make them.
    const segments = transcript.segments.filter((s) => transcript.answeredMs + Math.round(s.end * 1000) <= ms);
    const text = segments.map((s) => `${s.speaker}: ${s.text}`).join('\n');
    return JSON.stringify({ ...this.fieldsOf(kind, id, versions, index), segments, text });
  }

  /** The fields of `versions[index]`: from the nearest later version kept whole (or the sandbox's item), each undo applied back. */
  private fieldsOf(kind: HistoryKind, id: string, versions: readonly Version[], index: number): Fields {
    let base = index;
    while (base < versions.length - 1 && versions[base]?.json === undefined) base++;
    const whole = versions[base]?.json;
    let fields: Fields = whole !== undefined ? (JSON.parse(whole) as Fields) : { ...this.source.final(kind, id) };
    for (let i = base - 1; i >= index; i--) fields = undo(fields, versions[i]?.undo);
    return fields;
  }
}

/** `fields` with a version's undo applied: its own values set, the names it lacks removed. */
function undo(fields: Fields, patch: string | undefined): Fields {
  if (patch === undefined) return fields;
  const [set, absent = []] = JSON.parse(patch) as [Fields, string[]?];
  const out = { ...fields, ...set };
  for (const name of absent) delete out[name];
  return out;
}

/** What turns `next` back into `previous` (JSON of `[fields]` or `[fields, absent names]`), or undefined when they are the same. */
function undoOf(previous: Fields, next: Fields): string | undefined {
  const set: Fields = {};
  let differs = false;
  for (const name of Object.keys(previous)) {
    const a = previous[name];
    const b = next[name];
    if (a === undefined || a === b) continue;
    if (same(a, b)) continue;
    set[name] = a;
    differs = true;
  }
  const absent = Object.keys(next).filter((name) => next[name] !== undefined && previous[name] === undefined);
  if (!differs && absent.length === 0) return undefined;
  return JSON.stringify(absent.length > 0 ? [set, absent] : [set]);
}

/** Whether two JSON values are equal (a transcript's segments are new objects at each read): no text made. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Fields;
  const y = b as Fields;
  const names = Object.keys(x);
  if (names.length !== Object.keys(y).length) return false;
  for (const name of names) if (!(name in y) || !same(x[name], y[name])) return false;
  return true;
}

/** The index of the last version at or before `ms` (versions are in the order of their instants), -1 when none. */
function versionIndexAt(versions: readonly Version[], ms: number): number {
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((versions[mid]?.at ?? Number.POSITIVE_INFINITY) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function versionAt(versions: readonly Version[], ms: number): Version | undefined {
  return versions[versionIndexAt(versions, ms)];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An event as the time axis marks it. */
function markOf(event: SandboxEvent): Mark {
  return { at: event.created_at, id: event.id, type: event.type, subject: event.data.id, call: callOfEvent(event) ?? null };
}

/** What an item carries that another list holds already: a delivery's event (the log), a recording's transcript (the transcripts). */
const HELD_ELSEWHERE: Partial<Record<HistoryKind, string>> = { delivery: 'event', recording: 'transcript' };

/**
 * An item without what another list holds: a copy of it in every version of every item would
 * make most of the history (and of each answer), for what the console reads from that list.
 */
function slim(kind: HistoryKind, item: Fields): Fields {
  const field = HELD_ELSEWHERE[kind];
  if (field === undefined) return item;
  const { [field]: _held, ...rest } = item;
  return rest;
}

/**
 * Replays `snapshot` on a new sandbox, recording its history, and answers both: the sandbox
 * (closed as its replay ends, {@link REPLAY_ONLY}: nothing runs in it after the replay, and an
 * attempt the snapshot holds no result for, in flight when it was taken, is never sent; its
 * stores stay readable, as the recordings' audio and the index's last versions need) and the
 * index. Throws what `createSandbox({ snapshot })` throws for a snapshot it refuses.
 */
export function recordHistory(snapshot: SandboxSnapshot): { history: SessionHistory; sandbox: Sandbox; internals: SandboxInternals } {
  const kinds = new Map<HistoryKind, KindIndex>(HISTORY_KINDS.map((kind) => [kind, { versions: new Map(), ids: [] }]));
  /** Each item's fields at its last version, to tell what the next one changed; dropped once the replay ends. */
  const last = new Map<HistoryKind, Map<string, Fields>>(HISTORY_KINDS.map((kind) => [kind, new Map()]));
  const keyChanges: Array<[number, string, boolean]> = [];
  const answered = new Map<string, number>();
  let handedInternals: SandboxInternals | undefined;
  let start = 0;
  const push = (kind: HistoryKind, id: string, at: number, fields: Fields | undefined, live: boolean) => {
    const index = kinds.get(kind);
    const lastOf = last.get(kind);
    if (!index || !lastOf) return;
    const versions = index.versions.get(id);
    const previous = lastOf.get(id);
    const version = new Version(at);
    version.gone = fields === undefined;
    version.live = live;
    if (!versions) {
      index.versions.set(id, [version]);
      index.ids.push(id);
    } else {
      const tail = versions[versions.length - 1];
      if (!tail) return;
      if (fields === undefined) {
        if (tail.gone) return;
        // Nothing follows a removal to undo from: the version before it is kept whole.
        if (previous) tail.json = JSON.stringify(previous);
      } else if (previous && !tail.gone) {
        const back = undoOf(previous, fields);
        if (back === undefined && tail.live === version.live) return;
        tail.undo = back;
      }
      versions.push(version);
    }
    if (fields === undefined) lastOf.delete(id);
    else lastOf.set(id, fields);
  };
  const record = (handed: SandboxInternals) => {
    handedInternals = handed;
    start = handed.now();
    handed.changes.subscribe((batch) => {
      if (batch.kind === 'reset') {
        // Before a reset is another session's life (a snapshot keeps only its keys): start over.
        for (const index of kinds.values()) {
          index.versions.clear();
          index.ids.length = 0;
        }
        for (const map of last.values()) map.clear();
        answered.clear();
        start = handed.now();
        // Keys outlive a reset (they are console settings): the new life starts with them.
        for (const change of keyChanges) change[0] = start;
        return;
      }
      const at = handed.now();
      const view = handed.view();
      for (const { kind, id, removed } of batch.records) {
        // The request journal is read whole, not versioned (its entries never change once written).
        if (kind === 'clock' || kind === 'request') continue;
        if (kind === 'key') {
          keyChanges.push([at, id, removed]);
          continue;
        }
        const item = removed ? undefined : view.get(kind, id);
        if (item === undefined) {
          push(kind, id, at, undefined, false);
          continue;
        }
        const live = kind === 'transcript' && item.status === 'live';
        if (live && !answered.has(id)) answered.set(id, Date.parse(String(view.get('call', String(item.call_id))?.answered_at)));
        push(kind, id, at, slim(kind, item), live);
      }
    });
  };
  const sandbox = new Sandbox({ snapshot, [REPLAY_ONLY]: true } as InternalOptions, record);
  if (!handedInternals) throw new Error('recordHistory: the sandbox handed no internals.');
  const internals = handedInternals;
  const end = sandbox.now().getTime();
  const view = internals.view();
  const transcripts = new Map<string, { answeredMs: number; segments: Segment[] }>();
  for (const [id, answeredMs] of answered) {
    const segments = (view.get('transcript', id)?.segments ?? []) as Segment[];
    transcripts.set(id, { answeredMs, segments });
  }
  // A key's JSON is the console's list's (a change of a key carries none); a key revoked by the
  // end is gone from that list, and is shown with what the log knows of it. Keys are few: each
  // version is kept whole.
  const keys = new Map(sandbox.keys.list().map((k) => [k.key, JSON.stringify(k)]));
  const keyIndex = kinds.get('key');
  for (const [at, key, removed] of keyChanges) {
    if (!keyIndex) break;
    const versions = keyIndex.versions.get(key) ?? [];
    if (versions.length === 0) {
      keyIndex.versions.set(key, versions);
      keyIndex.ids.push(key);
    }
    const json = removed ? undefined : (keys.get(key) ?? JSON.stringify({ key, createdAt: iso(at) }));
    const tail = versions[versions.length - 1];
    if (tail && tail.json === json && !tail.gone === !removed) continue;
    const version = new Version(at);
    version.gone = removed;
    version.json = json;
    versions.push(version);
  }
  const final = (kind: HistoryKind, id: string): Fields | undefined => {
    const item = kind === 'key' ? undefined : view.get(kind, id);
    return item === undefined ? undefined : slim(kind, item);
  };
  // An item's last version is read from the sandbox when the sandbox's item is the same; else it is kept whole.
  for (const [kind, lastOf] of last) {
    const versions = kinds.get(kind)?.versions;
    for (const [id, fields] of lastOf) {
      const tail = versions?.get(id)?.at(-1);
      const now = final(kind, id);
      if (tail && (now === undefined || undoOf(fields, now) !== undefined)) tail.json = JSON.stringify(fields);
    }
  }
  last.clear();
  // Each item's versions at their length: an array grown by pushes keeps room for a dozen more.
  for (const index of kinds.values()) for (const [id, versions] of index.versions) index.versions.set(id, versions.slice());
  const instants = new Float64Array(internals.events.length);
  for (let position = 0; position < instants.length; position += EVENT_PAGE) {
    for (const [i, event] of internals.events.after(position, EVENT_PAGE).entries()) instants[position + i] = Date.parse(event.created_at);
  }
  const source: Source = { final, events: internals.events };
  return { history: new SessionHistory(start, end, kinds, instants, transcripts, source), sandbox, internals };
}
