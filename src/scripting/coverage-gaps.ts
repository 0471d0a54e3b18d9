/**
 * What a coverage report never exercised, grouped by what a test does to reach it: the one
 * place that decides what a report leads with (docs/coverage.md, "What it never reached"). The
 * report's `gaps`, the printed summary and the HTML page all render {@link coverageGaps}.
 */

type Counts = Record<string, number>;

/** What a gap needs: the suite's own behaviour (scripting, plain requests), or an injected fault. */
export const GAP_NEEDS = ['behaviour', 'fault'] as const;

/** One group of items never exercised, with how a test reaches them. */
export interface CoverageGap {
  /** `behaviour`: a test reaches it by scripting the sandbox or by plain requests; `fault`: only an injected fault produces it. */
  needs: (typeof GAP_NEEDS)[number];
  /** The report's section its items are counted in: `calls.dispositions`, `endpoints`, `errors`. */
  section: string;
  /** What the items are, in words: `How calls ended`. */
  title: string;
  /** The items never exercised: `failed`; an endpoint's `POST /v1/calls 422`. */
  never: string[];
  /** How a test makes them happen. */
  how: string;
}

/** The counts of a report that gaps are read from. */
export interface GapCounts {
  endpoints: Record<string, Counts>;
  calls: { states: Counts; transitions: Counts; dispositions: Counts; answeredBy: Counts };
  messages: { outcomes: Counts };
  webhooks: Counts;
  events: Counts;
  errors: Counts;
}

/** The title of the gap whose items are whole operations, not statuses. */
export const OPERATIONS_NEVER_CALLED = 'Operations never called';

/** The items of `counts` never exercised. */
export const zeros = (counts: Counts) => Object.keys(counts).filter((item) => counts[item] === 0);

/** Error codes that only an injected fault answers (faults.inject, chaos): a 5xx's, and a dropped connection. */
export const FAULT_ONLY_ERRORS: ReadonlySet<string> = new Set(['internal_error', 'service_unavailable', 'network_error']);
/** Statuses only an injected fault answers: every 5xx (without one, a 500 is a bug of the sandbox's). */
export const isFaultOnlyStatus = (status: string) => Number(status) >= 500;

/** Each called operation's statuses never answered that `which` keeps, as `METHOD /path status`. */
function statusesNeverAnswered(r: GapCounts, which: (status: string) => boolean): string[] {
  return Object.entries(r.endpoints)
    .filter(([, statuses]) => Object.values(statuses).some((n) => n > 0))
    .flatMap(([operation, statuses]) => zeros(statuses).flatMap((status) => (which(status) ? [`${operation} ${status}`] : [])));
}

/**
 * The gaps a report can show, in the order it shows them: what a test reaches by itself first
 * (how calls and messages ended, who answered, the call machine, events, webhooks, operations,
 * 4xx answers, error codes), then what only an injected fault produces. The order follows what a
 * team asks first: the behaviour its users meet (voicemail, a failed SMS, a transfer) before the
 * statuses of every operation, and 5xx last because no plain request can earn one.
 */
const GAPS: ReadonlyArray<Omit<CoverageGap, 'never'> & { never: (r: GapCounts) => string[] }> = [
  {
    needs: 'behaviour',
    section: 'calls.dispositions',
    title: 'How calls ended',
    never: (r) => zeros(r.calls.dispositions),
    how:
      "Script the carrier for the number called: network.setBehavior(to, { outcome: 'busy' }) (or 'no_answer', 'failed'; " +
      "queueBehavior for the next calls only); canceled is the caller hanging up while it rings (ring: 'manual', then " +
      "calls.hangUp(id)). Or make the one event: trigger('call.completed', { disposition }).",
  },
  {
    needs: 'behaviour',
    section: 'calls.answeredBy',
    title: 'Who answered',
    never: (r) => zeros(r.calls.answeredBy),
    how:
      "network.setBehavior(to, { answeredBy: 'voicemail' }) (it wins over the AI receptionist); ai_receptionist: true on " +
      'POST /v1/calls for the AI receptionist; a person (human) otherwise.',
  },
  {
    needs: 'behaviour',
    section: 'messages.outcomes',
    title: 'How messages ended',
    never: (r) => zeros(r.messages.outcomes),
    how:
      "failed: network.setMessageBehavior(to, { outcome: 'failed' }), or send to +15005550009; received: an inbound " +
      'message, messages.inbound({ from, to, body }); delivered: any other message, 3 s after it is sent.',
  },
  {
    needs: 'behaviour',
    section: 'calls.states',
    title: 'Call states',
    never: (r) => zeros(r.calls.states),
    how: 'Place a call (POST /v1/calls) and advance the clock: it rings, is answered and completes.',
  },
  {
    needs: 'behaviour',
    section: 'calls.transitions',
    title: 'Call transitions',
    never: (r) => zeros(r.calls.transitions),
    how:
      'Each is a step of a call: TRANSFERRED is POST /v1/calls/{id}/transfer on an answered call; ANSWERED and HUNG_UP are ' +
      "calls.answer(id) and calls.hangUp(id) on a call scripted with ring or talk 'manual'; an `after` one is the clock " +
      'passing a ring or talk time (network.setBehavior scripts them).',
  },
  {
    needs: 'behaviour',
    section: 'events',
    title: 'Events',
    never: (r) => zeros(r.events),
    how:
      'Each comes from the state change that makes it: recording.ready 10 s and transcript.ready 30 s after an answered call ' +
      'completes (advance past them), message.received from messages.inbound; or make one with trigger(type).',
  },
  {
    needs: 'behaviour',
    section: 'webhooks',
    title: 'Webhook deliveries',
    never: (r) => zeros(r.webhooks),
    how:
      "A receiver that answers an error is retried on the virtual clock (retried); advance('25h') and it is dead-lettered " +
      '(dead_lettered); webhooks.replay(id) sends it again (replayed).',
  },
  {
    needs: 'behaviour',
    section: 'endpoints',
    title: OPERATIONS_NEVER_CALLED,
    never: (r) =>
      Object.entries(r.endpoints)
        .filter(([, counts]) => zeros(counts).length === Object.keys(counts).length)
        .map(([operation]) => operation),
    how: 'Each is a plain request; the OpenAPI document (sandbox.openapi(), GET /__sandbox/openapi.json) describes its body and answers.',
  },
  {
    needs: 'behaviour',
    section: 'endpoints',
    title: 'Answers never given',
    never: (r) => statusesNeverAnswered(r, (status) => !isFaultOnlyStatus(status)),
    how:
      'Send the request that earns it: a missing or malformed field (400), an unknown key (401), a key without the scope ' +
      '(403), an unknown id (404), a body over 1 MiB (413), to: +15005550001 (422), more than 100 requests in one virtual ' +
      'second (429).',
  },
  {
    needs: 'behaviour',
    section: 'errors',
    title: 'Error codes never answered',
    never: (r) => zeros(r.errors).filter((code) => !FAULT_ONLY_ERRORS.has(code)),
    how: 'docs/errors.md names the request that earns each code.',
  },
  {
    needs: 'fault',
    section: 'endpoints',
    title: 'Server errors (5xx) never answered',
    never: (r) => statusesNeverAnswered(r, isFaultOnlyStatus),
    how:
      'faults.inject({ method, path, status: 503 }) fails the next matching request; a chaos profile (createSandbox({ chaos }), ' +
      "a session's chaos field) fails requests at seeded rates across the whole suite (docs/chaos.md).",
  },
  {
    needs: 'fault',
    section: 'errors',
    title: 'Error codes only a fault produces',
    never: (r) => zeros(r.errors).filter((code) => FAULT_ONLY_ERRORS.has(code)),
    how:
      'faults.inject({ status: 500 }) answers internal_error, any other 5xx service_unavailable, and { network: true } drops ' +
      'the connection (network_error); a chaos profile does all three at seeded rates.',
  },
];

/**
 * What a report never exercised, grouped and ordered as the summary, the HTML page and the
 * report's `gaps` show it: the one place that decides what leads (docs/coverage.md). Gaps with
 * nothing missing are left out.
 */
export function coverageGaps(r: GapCounts): CoverageGap[] {
  return GAPS.flatMap(({ needs, section, title, never, how }) => {
    const items = never(r);
    return items.length === 0 ? [] : [{ needs, section, title, never: items, how }];
  });
}

/** `POST /v1/calls 422` items, by operation: `[['POST /v1/calls', ['400', '422']]]`. */
export function byOperation(items: readonly string[]): Array<[string, string[]]> {
  const out = new Map<string, string[]>();
  for (const item of items) {
    const cut = item.lastIndexOf(' ');
    const operation = item.slice(0, cut);
    let statuses = out.get(operation);
    if (!statuses) out.set(operation, (statuses = []));
    statuses.push(item.slice(cut + 1));
  }
  return [...out];
}
