import { describe, expect, it } from 'vitest';
import {
  accounts,
  applyChanges,
  conversations,
  counts,
  countsDelta,
  emptyModel,
  filterDeliveries,
  list,
  load,
  timelineOf,
} from '../../console/model.js';

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
    expect(parseRoute('#recordings/rec_1')).toEqual({ view: 'recordings', id: 'rec_1', about: null, state: 'all' });
    expect(parseRoute('#webhooks?about=call_1&state=dead')).toEqual({ view: 'webhooks', id: null, about: 'call_1', state: 'dead' });
    expect(parseRoute('#nowhere?state=weird')).toEqual({ view: 'calls', id: null, about: null, state: 'all' });
    expect(parseRoute('')).toMatchObject({ view: 'calls' });
  });
});
