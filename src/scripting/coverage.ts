import type { Service } from '../core/lifecycle.js';
import { ANSWERED_BY, DISPOSITIONS, MESSAGE_OUTCOMES } from '../sim/carrier.js';
import type { Deliveries } from '../webhooks/deliveries.js';
import type { CallService } from '../state/calls.js';
import type { EventBus } from '../state/event-bus.js';
import type { Journal, JournalRecord } from '../state/journal.js';
import type { MachineCoverage } from '../state/machine-coverage.js';
import type { MessageService } from '../state/messages.js';
import { EVENT_TYPES } from '../state/events.js';
import { COVERAGE_FORMAT, COVERAGE_VERSION, withUncovered, type CoverageCounts, type CoverageReport } from './coverage-report.js';
import type { AnsweredRow } from './snapshots.js';

/** What a webhook delivery may have gone through (docs/coverage.md). */
export const WEBHOOK_PATHS = ['delivered_first_time', 'retried', 'dead_lettered', 'replayed'] as const;
/** How a message may end: the carrier's outcomes of an outbound one, and `received` for an inbound one. */
const MESSAGE_ENDS = [...MESSAGE_OUTCOMES, 'received'] as const;

/** One operation of the API with the statuses its document lists (api/openapi.ts `documentedStatuses`). */
export interface DocumentedOperation {
  method: string;
  path: string;
  statuses: readonly number[];
}

export interface CoverageSources {
  /** Its calls placed at this instant start their machines before a report counts them. */
  calls: CallService;
  journal: Journal;
  bus: EventBus;
  messages: MessageService;
  deliveries: Deliveries;
  /** The call machine's states and transitions, counted as its actors run. */
  machine: MachineCoverage;
  /** The API's operations and their documented statuses, read when a report is first made. */
  operations: () => readonly DocumentedOperation[];
  /** The `error.code` values the API answers with. */
  errorCodes: readonly string[];
}

/** Counts taken from the sandbox's records (everything but the machine's, which counts itself). */
interface Tally {
  /** By `METHOD /path`, then status. */
  endpoints: Map<string, CoverageCounts>;
  dispositions: CoverageCounts;
  answeredBy: CoverageCounts;
  outcomes: CoverageCounts;
  webhooks: CoverageCounts;
  events: CoverageCounts;
  errors: CoverageCounts;
}

const emptyTally = (): Tally => ({
  endpoints: new Map(),
  dispositions: {},
  answeredBy: {},
  outcomes: {},
  webhooks: {},
  events: {},
  errors: {},
});
const bump = (counts: CoverageCounts, key: string, n = 1) => void (counts[key] = (counts[key] ?? 0) + n);
/** Every name with its count in `seen` (0 when unseen), then what `seen` has beyond them. */
function counted(names: readonly (string | number)[], seen: CoverageCounts | undefined): CoverageCounts {
  const out: CoverageCounts = {};
  for (const name of names) out[name] = seen?.[name] ?? 0;
  for (const [key, value] of Object.entries(seen ?? {})) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * Coverage of one sandbox (docs/coverage.md): what its life exercised, against everything it
 * could have. It adds no work to a request: it reads the records the sandbox keeps anyway (the
 * request journal, the event log, the messages, the deliveries) when a report is asked for, and
 * folds them into its own counts just before they are forgotten: when the sandbox stops for a
 * reset or a close, and when the journal trims its oldest entries. So coverage outlives
 * `reset()`: a suite that resets between tests gets one report of the whole suite.
 */
export class Coverage implements Service {
  /** What the records held before they were forgotten. */
  private readonly folded = emptyTally();
  /** Whether the records hold anything not yet folded (false once stopped, until reset). */
  private live = true;
  private documented: { operations: readonly DocumentedOperation[]; keys: Set<string> } | null = null;

  /** The API's error codes, and `network_error` for an injected network fault. */
  private readonly errorCodes: readonly string[];

  constructor(private readonly sources: CoverageSources) {
    this.errorCodes = [...sources.errorCodes, 'network_error'];
  }

  /** Counts the answered requests the journal forgets (its trim, or an answer that came after it). */
  forgotten(entries: readonly JournalRecord[]): void {
    this.countRequests(this.folded, entries);
  }

  /**
   * Counts requests a snapshot kept only as rows (an `elided` input's `answered`, docs/snapshots.md):
   * a restored sandbox replays no journal records for them, and must report what the original did.
   */
  fold(rows: readonly AnsweredRow[]): void {
    if (rows.length === 0) return;
    const { keys } = this.operations();
    for (const [method, path, status, errorCode, n] of rows) countAnswer(this.folded, keys, method, path, status, errorCode, n);
  }

  /** Folds the records before a reset forgets them; after a close they stay as they are, already counted. */
  stop(): void {
    if (!this.live) return;
    this.count(this.folded);
    this.live = false;
  }

  /** The records are empty again: what they gather from now on is new. */
  reset(): void {
    this.live = true;
  }

  /** The report of the sandbox's life so far. */
  report(): CoverageReport {
    // A call's machine starts lazily, still at the instant it was placed (state/calls.ts): start
    // the pending ones now, so a call placed just before the report has entered its first state.
    if (this.live) this.sources.calls.startPending();
    const t = this.live ? this.count(copy(this.folded)) : this.folded;
    const { operations } = this.operations();
    const machine = this.sources.machine.counts();
    const endpoints: Record<string, CoverageCounts> = {};
    for (const op of operations) {
      const key = `${op.method} ${op.path}`;
      endpoints[key] = counted(op.statuses, t.endpoints.get(key));
    }
    return withUncovered({
      format: COVERAGE_FORMAT,
      version: COVERAGE_VERSION,
      sandboxes: 1,
      endpoints,
      calls: {
        states: machine.states,
        transitions: machine.transitions,
        dispositions: counted(DISPOSITIONS, t.dispositions),
        answeredBy: counted(ANSWERED_BY, t.answeredBy),
      },
      messages: { outcomes: counted(MESSAGE_ENDS, t.outcomes) },
      webhooks: counted(WEBHOOK_PATHS, t.webhooks),
      events: counted(EVENT_TYPES, t.events),
      errors: counted(this.errorCodes, t.errors),
    });
  }

  private operations(): { operations: readonly DocumentedOperation[]; keys: Set<string> } {
    if (!this.documented) {
      const operations = this.sources.operations();
      this.documented = { operations, keys: new Set(operations.map((op) => `${op.method} ${op.path}`)) };
    }
    return this.documented;
  }

  /** Adds what the records hold now to `t`; returns `t`. */
  private count(t: Tally): Tally {
    const { journal, bus, messages, deliveries } = this.sources;
    this.countRequests(t, journal.held());
    for (const event of bus.after(0, bus.length)) {
      bump(t.events, event.type);
      if (event.type === 'call.completed') bump(t.dispositions, (event.data as { disposition: string }).disposition);
      else if (event.type === 'call.answered') bump(t.answeredBy, (event.data as { answered_by: string }).answered_by);
    }
    for (const message of messages.store.all()) {
      if (message.status === 'delivered' || message.status === 'failed' || message.status === 'received') bump(t.outcomes, message.status);
    }
    for (const d of deliveries.deliveries()) {
      const first = d.attempts[0];
      if (first?.ok && first.replay === 0) bump(t.webhooks, 'delivered_first_time');
      if (d.attempts.some((a) => a.attempt > 1)) bump(t.webhooks, 'retried');
      if (d.state === 'dead' || d.replays > 0) bump(t.webhooks, 'dead_lettered');
      if (d.replays > 0) bump(t.webhooks, 'replayed');
    }
    return t;
  }

  private countRequests(t: Tally, entries: readonly JournalRecord[]): void {
    if (entries.length === 0) return; // a sandbox closed without a request pays nothing here
    const { keys } = this.operations();
    for (const entry of entries) {
      // In flight: counted when answered (the journal hands it over then if it has forgotten it).
      if (entry.answered) countAnswer(t, keys, entry.method, entry.path, entry.status, entry.errorCode, 1);
    }
  }
}

/** Counts `n` requests answered alike: by endpoint and status, and by error code. */
function countAnswer(
  t: Tally,
  documented: ReadonlySet<string>,
  method: string,
  path: string,
  status: number,
  errorCode: string | null,
  n: number,
): void {
  if (errorCode !== null) bump(t.errors, errorCode, n);
  const key = `${method} ${path}`;
  // A request that matched no operation (a 404 path, a 405) counts under its error code only;
  // a network fault (status 0) answered nothing.
  if (status === 0 || !documented.has(key)) return;
  let statuses = t.endpoints.get(key);
  if (!statuses) t.endpoints.set(key, (statuses = {}));
  bump(statuses, String(status), n);
}

function copy(t: Tally): Tally {
  return {
    endpoints: new Map([...t.endpoints].map(([key, counts]) => [key, { ...counts }])),
    dispositions: { ...t.dispositions },
    answeredBy: { ...t.answeredBy },
    outcomes: { ...t.outcomes },
    webhooks: { ...t.webhooks },
    events: { ...t.events },
    errors: { ...t.errors },
  };
}
