import { CONSOLE_KINDS, type ConsoleKind } from '../scripting/console-view.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { type InternalOptions, REPLAY_ONLY } from '../options.js';
import { Sandbox, type SandboxInternals } from '../sandbox.js';

/**
 * A session's history, for the console's time travel (`svc-sandbox show`, docs/debugging.md):
 * the snapshot is replayed once, and every version of every resource the console shows is kept
 * with the virtual instant it took effect, with every event; the session as it was at any
 * instant is then read from that index, never by replaying again. A replay of a 1,000-call
 * session takes a few hundred ms, an answer from the index a few ms (bench/show.mjs).
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

/** One version of an item: its JSON from `at` on, or null once it is gone. */
interface Version {
  at: number;
  json: string | null;
  /** A live transcript: its segments follow the clock (see {@link SessionHistory.itemAt}). */
  live?: true;
}

/** An event of the log: when, what, and its JSON. */
export interface HistoryEvent {
  at: number;
  id: string;
  type: string;
  /** The resource it is about (`data.id`), and the call it belongs to (null for a message's). */
  subject: string;
  call: string | null;
  json: string;
}

/** Segments as a transcript's JSON holds them. */
interface Segment {
  speaker: string;
  text: string;
  start: number;
  end: number;
}

export class SessionHistory {
  constructor(
    /** The session's start: its clock's start, or its last reset. Epoch ms. */
    readonly start: number,
    /** When the snapshot was taken. Epoch ms. */
    readonly end: number,
    private readonly versions: ReadonlyMap<HistoryKind, ReadonlyMap<string, readonly Version[]>>,
    /** The event log, oldest first (so in the order of its instants). */
    readonly events: readonly HistoryEvent[],
    /** Each transcript: when its call was answered, and its segments at the end. */
    private readonly transcripts: ReadonlyMap<string, { answeredMs: number; segments: Segment[] }>,
  ) {}

  /** How many events happened at or before `ms`. */
  eventsUntil(ms: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.at <= ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The items of a kind as they were at `ms`, as JSON texts, in the console list's order. */
  itemsAt(kind: HistoryKind, ms: number): string[] {
    const out: string[] = [];
    for (const [id, versions] of this.versions.get(kind) ?? []) {
      const json = this.jsonOf(kind, id, versionAt(versions, ms), ms);
      if (json !== null) out.push(json);
    }
    return OLDEST_FIRST.has(kind) ? out : out.reverse();
  }

  /**
   * The session at `ms` as the show server answers it (JSON text, built from the kept texts
   * without parsing them): `now`, every item of each kind in the console lists' order, and the
   * event log's length with its newest events (at most {@link NEWEST_EVENTS}).
   */
  stateAt(ms: number): string {
    const items = HISTORY_KINDS.map((kind) => `${JSON.stringify(kind)}:[${this.itemsAt(kind, ms).join(',')}]`);
    return `{"now":${JSON.stringify(iso(ms))},"items":{${items.join(',')}},"events":${this.eventsJson(ms)}}`;
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
      for (const [id, versions] of this.versions.get(kind) ?? []) {
        const before = versionAt(versions, from);
        const after = versionAt(versions, to);
        const moving = after?.live === true && from !== to;
        if (before === after && !moving) continue;
        const json = this.jsonOf(kind, id, after, to);
        if (json === null && (before === undefined || before.json === null)) continue;
        if (changes.length === limit) return null;
        changes.push(`{"kind":${JSON.stringify(kind)},"id":${JSON.stringify(id)},"removed":${json === null},"data":${json ?? 'null'}}`);
      }
    }
    return `{"now":${JSON.stringify(iso(to))},"changes":[${changes.join(',')}],"events":${this.eventsJson(to)}}`;
  }

  /** `{count, newest}`: how many events happened by `ms`, and the newest of them. */
  private eventsJson(ms: number): string {
    const count = this.eventsUntil(ms);
    const newest = this.events.slice(Math.max(0, count - NEWEST_EVENTS), count).map((e) => e.json);
    return `{"count":${count},"newest":[${newest.join(',')}]}`;
  }

  /**
   * An item's JSON in `version` (its last at or before `ms`). A live transcript's JSON follows
   * the clock with no change to mark it (the API shows the lines spoken by now), so its
   * segments are those of its final text that had ended by `ms`, as the API answered then.
   */
  private jsonOf(kind: HistoryKind, id: string, version: Version | undefined, ms: number): string | null {
    if (!version || version.json === null) return null;
    const transcript = version.live && kind === 'transcript' ? this.transcripts.get(id) : undefined;
    if (!transcript) return version.json;
    // As state/transcripts.ts spokenSegments and toJson make them.
    const segments = transcript.segments.filter((s) => transcript.answeredMs + Math.round(s.end * 1000) <= ms);
    const text = segments.map((s) => `${s.speaker}: ${s.text}`).join('\n');
    return JSON.stringify({ ...(JSON.parse(version.json) as object), segments, text });
  }
}

/** The last version at or before `ms` (versions are in the order of their instants). */
function versionAt(versions: readonly Version[], ms: number): Version | undefined {
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (versions[mid]!.at <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : versions[lo - 1];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What an item carries that another list holds already: a delivery's event (the log), a recording's transcript (the transcripts). */
const HELD_ELSEWHERE: Partial<Record<HistoryKind, string>> = { delivery: 'event', recording: 'transcript' };

/**
 * An item without what another list holds: a copy of it in every version of every item would
 * make most of the history (and of each answer), for what the console reads from that list.
 */
function slim(kind: HistoryKind, item: Record<string, unknown>): Record<string, unknown> {
  const field = HELD_ELSEWHERE[kind];
  if (field === undefined) return item;
  const { [field]: _held, ...rest } = item;
  return rest;
}

/**
 * Replays `snapshot` on a new sandbox, recording its history, and answers both: the sandbox
 * (closed as its replay ends, {@link REPLAY_ONLY}: nothing runs in it after the replay, and an
 * attempt the snapshot holds no result for, in flight when it was taken, is never sent; its
 * stores stay readable, as the recordings' audio needs) and the index. Throws what
 * `createSandbox({ snapshot })` throws for a snapshot it refuses.
 */
export function recordHistory(snapshot: SandboxSnapshot): { history: SessionHistory; sandbox: Sandbox; internals: SandboxInternals } {
  const versions = new Map<HistoryKind, Map<string, Version[]>>(HISTORY_KINDS.map((kind) => [kind, new Map()]));
  const keyChanges: Array<[number, string, boolean]> = [];
  const answered = new Map<string, number>();
  let internals!: SandboxInternals;
  let start = 0;
  const push = (kind: HistoryKind, id: string, version: Version) => {
    const map = versions.get(kind)!;
    const list = map.get(id);
    if (!list) map.set(id, [version]);
    else if (list[list.length - 1]!.json !== version.json) list.push(version);
  };
  const record = (handed: SandboxInternals) => {
    internals = handed;
    start = handed.now();
    handed.changes.subscribe((batch) => {
      if (batch.kind === 'reset') {
        // Before a reset is another session's life (a snapshot keeps only its keys): start over.
        for (const map of versions.values()) map.clear();
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
          push(kind, id, { at, json: null });
          continue;
        }
        const version: Version = { at, json: JSON.stringify(slim(kind, item)) };
        if (kind === 'transcript' && item.status === 'live') {
          version.live = true;
          if (!answered.has(id)) answered.set(id, Date.parse(String(view.get('call', String(item.call_id))?.answered_at)));
        }
        push(kind, id, version);
      }
    });
  };
  const sandbox = new Sandbox({ snapshot, [REPLAY_ONLY]: true } as InternalOptions, record);
  const end = sandbox.now().getTime();
  const view = internals.view();
  const transcripts = new Map<string, { answeredMs: number; segments: Segment[] }>();
  for (const [id, answeredMs] of answered) {
    const segments = (view.get('transcript', id)?.segments ?? []) as Segment[];
    transcripts.set(id, { answeredMs, segments });
  }
  // A key's JSON is the console's list's (a change of a key carries none); a key revoked by the
  // end is gone from that list, and is shown with what the log knows of it.
  const keys = new Map(sandbox.keys.list().map((k) => [k.key, JSON.stringify(k)]));
  for (const [at, key, removed] of keyChanges) {
    push('key', key, { at, json: removed ? null : (keys.get(key) ?? JSON.stringify({ key, createdAt: iso(at) })) });
  }
  const events = sandbox.events.list().map((event): HistoryEvent => {
    const data = event.data as { id: string; call_id?: string };
    return {
      at: Date.parse(event.created_at),
      id: event.id,
      type: event.type,
      subject: data.id,
      call: event.type.startsWith('call.') ? data.id : (data.call_id ?? null),
      json: JSON.stringify(event),
    };
  });
  return { history: new SessionHistory(start, end, versions, events, transcripts), sandbox, internals };
}
