import { describe, expect, it } from 'vitest';
import {
  MAX_ATTEMPTS,
  MAX_REQUESTS_KEPT,
  REQUEST_FILTERS,
  accounts,
  applyChanges,
  conversations,
  counts,
  countsDelta,
  deadLetters,
  emptyModel,
  filterDeliveries,
  list,
  load,
  replayProgress,
  requestFilter,
  requestLog,
  requestsBy,
  timelineOf,
} from '../../console/model.js';
import { MAX_ATTEMPTS as SCHEDULE_ATTEMPTS } from '../../src/webhooks/retry-schedule.js';

const call = (id: string, at: string, extra: object = {}) => ({
  id,
  account: 'SVC_TEST_a',
  created_at: at,
  status: 'ringing',
  recording_id: null,
  transcript_id: null,
  ...extra,
});
const attempt = (n: number, ok: boolean, at: string) => ({
  attempt: n,
  ok,
  at,
  status: ok ? 200 : 500,
  error: ok ? null : 'HTTP 500',
  replay: 0,
});
const delivery = (id: string, callId: string, attempts: object[], state = 'pending') => ({
  id,
  call_id: callId,
  about: { kind: 'call', id: callId },
  eventType: 'call.answered',
  state,
  attempts,
});

describe("the console's model of a session", () => {
  it('applies a change frame in place: new items, changed items, removed items; an identical item is no change', () => {
    const model = emptyModel();
    load(model, 'call', [call('call_2', '2026-01-01T00:00:02Z'), call('call_1', '2026-01-01T00:00:01Z')]);
    const first = applyChanges(model, [
      { kind: 'call', id: 'call_1', removed: false, data: call('call_1', '2026-01-01T00:00:01Z', { status: 'answered' }) },
      { kind: 'call', id: 'call_3', removed: false, data: call('call_3', '2026-01-01T00:00:03Z') },
      { kind: 'call', id: 'call_2', removed: false, data: call('call_2', '2026-01-01T00:00:02Z') },
    ]);
    expect([...first.keys]).toEqual(['call:call_1', 'call:call_3']);
    expect([...first.kinds]).toEqual(['call']);
    expect(list(model, 'call').map((c) => [c.id, c.status])).toEqual([
      ['call_3', 'ringing'],
      ['call_2', 'ringing'],
      ['call_1', 'answered'],
    ]);
    const removed = applyChanges(model, [
      { kind: 'number', id: 'num_1', removed: true, data: null },
      { kind: 'call', id: 'call_3', removed: true, data: null },
    ]);
    expect([...removed.keys]).toEqual(['call:call_3']);
    expect(model.items.call.size).toBe(2);
  });

  it("joins a call's timeline: its recording, transcript and every attempt of its deliveries, oldest first", () => {
    const model = emptyModel();
    load(model, 'call', [call('call_1', '2026-01-01T00:00:00Z', { recording_id: 'rec_1', transcript_id: 'trn_1' })]);
    load(model, 'recording', [{ id: 'rec_1', ready_at: '2026-01-01T00:01:15Z' }]);
    load(model, 'delivery', [
      delivery('dlv_1', 'call_1', [attempt(1, false, '2026-01-01T00:00:05Z'), attempt(2, true, '2026-01-01T00:00:10Z')]),
      delivery('dlv_2', 'call_9', [attempt(1, true, '2026-01-01T00:00:06Z')]),
      delivery('dlv_3', 'call_1', [attempt(1, true, '2026-01-01T00:00:07Z')]),
    ]);
    const t = timelineOf(model, list(model, 'call')[0]!);
    expect(t.recording?.id).toBe('rec_1');
    expect(t.transcript).toBeNull();
    expect(t.webhooks.map((w) => [w.deliveryId, w.attempt])).toEqual([
      ['dlv_1', 1],
      ['dlv_3', 1],
      ['dlv_1', 2],
    ]);
  });

  it('counts what happened and says what an advance did', () => {
    const model = emptyModel();
    const before = counts(model);
    model.events = 7;
    load(model, 'delivery', [
      delivery('dlv_1', 'call_1', [attempt(1, false, 'a'), attempt(2, false, 'b')], 'dead'),
      delivery('dlv_2', 'call_1', [attempt(1, true, 'a')], 'delivered'),
    ]);
    const after = counts(model);
    expect(after).toMatchObject({ events: 7, attempts: 3, failed: 2, dead: 1, deliveries: 2 });
    expect(countsDelta(before, after)).toBe('7 events, 3 webhook attempts (2 failed), 1 new dead letter');
    expect(filterDeliveries(list(model, 'delivery'), { state: 'dead' }).map((d) => d.id)).toEqual(['dlv_1']);
    expect(filterDeliveries(list(model, 'delivery'), { state: 'failed' }).map((d) => d.id)).toEqual(['dlv_1']);
    expect(filterDeliveries(list(model, 'delivery'), { about: 'call_2' })).toEqual([]);
  });

  it('lists the accounts of the keys and the calls, and groups messages into conversations', () => {
    const model = emptyModel();
    load(model, 'key', [{ key: 'SVC_TEST_new', createdAt: 'x' }]);
    load(model, 'call', [call('call_1', 'a'), call('call_2', 'b')]);
    expect(accounts(model)).toEqual([
      { account: 'SVC_TEST_a', calls: 2 },
      { account: 'SVC_TEST_new', calls: 0 },
    ]);
    load(model, 'message', [
      {
        id: 'msg_2',
        conversation_id: 'conv_1',
        direction: 'inbound',
        from: '+2',
        to: '+1',
        created_at: '2026-01-01T00:00:02Z',
        account: 'A',
      },
      {
        id: 'msg_1',
        conversation_id: 'conv_1',
        direction: 'outbound',
        from: '+1',
        to: '+2',
        created_at: '2026-01-01T00:00:01Z',
        account: 'A',
      },
    ]);
    const [conversation] = conversations(model);
    expect(conversation!.numbers).toEqual(['+1', '+2']);
    expect(conversation!.messages.map((m) => m.id)).toEqual(['msg_1', 'msg_2']);
  });
});

describe("the console's routes", () => {
  it('reads the view, the item and the deliveries filter from the hash; an unknown view is the calls', async () => {
    const { parseRoute } = await import('../../console/model.js');
    const none = { id: null, about: null, state: 'all', status: 'all', order: 'newest' };
    expect(parseRoute('#recordings/rec_1')).toEqual({ ...none, view: 'recordings', id: 'rec_1' });
    expect(parseRoute('#webhooks?about=call_1&state=dead')).toEqual({ ...none, view: 'webhooks', about: 'call_1', state: 'dead' });
    expect(parseRoute('#nowhere?state=weird')).toEqual({ ...none, view: 'calls' });
    expect(parseRoute('')).toMatchObject({ view: 'calls' });
  });

  it("reads the request log's filter and order; a filter that is no status or code is all", async () => {
    const { parseRoute } = await import('../../console/model.js');
    expect(parseRoute('#requests?status=4xx&order=oldest')).toMatchObject({ view: 'requests', status: '4xx', order: 'oldest' });
    expect(parseRoute('#requests?status=RATE_LIMITED')).toMatchObject({ status: 'rate_limited', order: 'newest' });
    expect(parseRoute('#requests?status=<b>&order=sideways')).toMatchObject({ status: 'all', order: 'newest' });
  });
});

/** A journal entry as `GET /__sandbox/sessions/{s}/requests` gives it. */
const entry = (n: number, status: number, errorCode: string | null = null, at = '2026-01-01T00:00:01.000Z') => ({
  requestId: `req_${n}`,
  method: 'POST',
  path: '/v1/calls',
  target: '/v1/calls',
  status,
  errorCode,
  errorMessage: errorCode ? `${errorCode}: why` : null,
  apiKey: 'SVC_TEST_a',
  at,
});

describe("the console's request log (model.js)", () => {
  it('filters by a class of status, an exact status or an error code, and counts each quick filter from the rows it shows', () => {
    const model = emptyModel();
    load(model, 'request', [
      entry(1, 201),
      entry(2, 422, 'unreachable_destination'),
      entry(3, 429, 'rate_limited'),
      entry(4, 503, 'service_unavailable'),
      entry(5, 0, 'network_error'),
      entry(6, 429, 'rate_limited'),
    ]);
    const ids = (filter: string) => requestLog(model, filter).matching.map((e) => e.requestId);
    expect(ids('all')).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5', 'req_6']);
    expect(ids('2xx')).toEqual(['req_1']);
    expect(ids('4xx')).toEqual(['req_2', 'req_3', 'req_6']);
    expect(ids('5xx')).toEqual(['req_4']);
    expect(ids('429')).toEqual(['req_3', 'req_6']);
    expect(ids('0')).toEqual(['req_5']);
    expect(ids('unreachable_destination')).toEqual(['req_2']);
    const log = requestLog(model, 'network_error');
    expect(log.byFilter).toEqual({ all: 6, '2xx': 1, '4xx': 3, '5xx': 1, '429': 2, network_error: 1 });
    expect(log.total).toBe(6);
    // Each count is the length of the rows its filter shows.
    for (const f of REQUEST_FILTERS) expect(log.byFilter[f], f).toBe(ids(f).length);
    expect(counts(model).requests).toBe(6);
  });

  it('reads what a user types as a filter: a class, a status, an error code, or nothing; anything else is refused', () => {
    expect(['', ' all ', '4XX', '422', '0', 'Rate_Limited'].map(requestFilter)).toEqual(['all', 'all', '4xx', '422', '0', 'rate_limited']);
    expect(['4 2 2', '<b>', '1234', '-1', 'x'.repeat(65)].map(requestFilter)).toEqual([null, null, null, null, null]);
  });

  it('puts a request answered late where the journal lists it, in the order of arrival, and keeps the newest 10,000', () => {
    const model = emptyModel();
    load(model, 'request', [entry(1, 201), entry(2, 201)]);
    const order = () => list(model, 'request').map((e) => e.requestId);
    // Announced in the order they were answered: the 429 first, though it arrived after req_3.
    applyChanges(model, [{ kind: 'request', id: 'req_4', removed: false, data: entry(4, 429, 'rate_limited'), after: 'req_3' }]);
    expect(order()).toEqual(['req_1', 'req_2', 'req_4']);
    applyChanges(model, [{ kind: 'request', id: 'req_3', removed: false, data: entry(3, 201), after: 'req_2' }]);
    expect(order()).toEqual(['req_1', 'req_2', 'req_3', 'req_4']);
    applyChanges(model, [{ kind: 'request', id: 'req_5', removed: false, data: entry(5, 201), after: 'req_4' }]);
    expect(order()).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5']);
    // Nothing new: the same entry again changes nothing.
    expect(applyChanges(model, [{ kind: 'request', id: 'req_5', removed: false, data: entry(5, 201), after: 'req_4' }]).keys.size).toBe(0);

    load(
      model,
      'request',
      Array.from({ length: MAX_REQUESTS_KEPT }, (_, i) => entry(i, 200)),
    );
    applyChanges(model, [
      {
        kind: 'request',
        id: 'req_new',
        removed: false,
        data: { ...entry(0, 200), requestId: 'req_new' },
        after: `req_${MAX_REQUESTS_KEPT - 1}`,
      },
    ]);
    expect(model.items.request.size).toBe(MAX_REQUESTS_KEPT);
    expect(order()[0]).toBe('req_1');
    expect(order().at(-1)).toBe('req_new');
  });

  it("gives a snapshot's journal at an instant: the requests answered by then", () => {
    const journal = [entry(1, 201, null, '2026-01-01T00:00:00.000Z'), entry(2, 429, 'rate_limited', '2026-01-01T00:00:05.000Z')];
    expect(requestsBy(journal, Date.parse('2026-01-01T00:00:04.999Z')).map((e) => e.requestId)).toEqual(['req_1']);
    expect(requestsBy(journal, Date.parse('2026-01-01T00:00:05Z')).map((e) => e.requestId)).toEqual(['req_1', 'req_2']);
  });
});

describe("the console's dead letters (model.js)", () => {
  const dead = (id: string, extra: object = {}) => ({
    ...delivery(id, 'call_1', [], 'dead'),
    subscriptionId: 'wh_1',
    replays: 0,
    ...extra,
  });

  it('draws the cards and counts them from one reading: the dead, and those replayed from the queue wherever from', () => {
    // Regression: the header said 4 dead letters while 5 cards showed (a replayed card was drawn, not counted).
    const model = emptyModel();
    load(model, 'subscription', [{ id: 'wh_1' }]);
    load(model, 'delivery', [
      dead('dlv_1'),
      dead('dlv_2', { state: 'pending', replays: 1 }),
      dead('dlv_3', { subscriptionId: 'wh_gone' }),
      delivery('dlv_4', 'call_1', [], 'delivered'),
      dead('dlv_5', { replays: 2 }),
    ]);
    const letters = deadLetters(model);
    expect(letters.cards.map((d) => d.id)).toEqual(['dlv_1', 'dlv_2', 'dlv_3', 'dlv_5']);
    expect(letters.dead.map((d) => d.id)).toEqual(['dlv_1', 'dlv_3', 'dlv_5']);
    expect(letters.replayed.map((d) => d.id)).toEqual(['dlv_2']);
    expect(letters.replayable.map((d) => d.id)).toEqual(['dlv_1', 'dlv_5']);
    expect(counts(model).dead).toBe(letters.dead.length);
  });

  it("says where a delivery's last replay stands from the delivery alone", () => {
    const d = {
      ...dead('dlv_1', { state: 'pending', replays: 1, nextAttemptAt: '2026-01-02T01:00:30.000Z' }),
      attempts: [attempt(12, false, '2026-01-01T17:04:35Z'), { ...attempt(1, false, '2026-01-02T01:00:00Z'), replay: 1 }],
    };
    expect(replayProgress(d)).toMatchObject({ replay: 1, state: 'pending', next: '2026-01-02T01:00:30.000Z', nextAttempt: 2 });
    expect(replayProgress(d)!.attempts).toHaveLength(1);
    expect(replayProgress({ ...d, replays: 0 })).toBeNull();
    expect(replayProgress({ ...d, state: 'delivered' })!.next).toBeNull();
  });

  it("counts attempts as the sandbox's retry schedule does", () => {
    expect(MAX_ATTEMPTS).toBe(SCHEDULE_ATTEMPTS);
  });
});
