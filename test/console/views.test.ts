// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { conversations, emptyModel, load } from '../../console/model.js';
import {
  eventItem,
  redelivered,
  renderDeadLetters,
  renderDelivery,
  renderKeys,
  renderMessages,
  renderNumbers,
  renderRecordings,
  renderRequest,
  renderSubscriptions,
  resourceLink,
} from '../../console/views.js';
import {
  ACCOUNT,
  CALL_ID,
  RECEIVER,
  RECORDING_ID,
  S,
  SUBSCRIPTION_ID,
  T0,
  TRANSCRIPT_ID,
  XSS,
  callDeliveries,
  delivery,
  iso,
  recording,
  transcript,
} from './fixtures.js';

const one = (root: Element, selector: string) => {
  const found = root.querySelectorAll(selector);
  expect(found, selector).toHaveLength(1);
  return found[0]!;
};
const texts = (root: Element, selector: string) => [...root.querySelectorAll(selector)].map((e) => e.textContent);
/** Every id button shows its id whole and copies exactly that. */
const idsOf = (root: Element) =>
  [...root.querySelectorAll('button.id')].map((b) => {
    expect(b.getAttribute('data-copy')).toBe(b.textContent);
    expect(b.hasAttribute('aria-label')).toBe(false);
    return b.textContent;
  });

const dead = () => callDeliveries()[2]!;
/** A recording.ready delivery dead too: about the recording, of the call. */
const deadRecordingReady = () =>
  delivery('dlv_6Cc7Dd8Ee9Ff1Gg2', 'recording.ready', { kind: 'recording', id: RECORDING_ID }, T0 + 75 * S, Array(13).fill(null));

describe('the dead letters (console/views.js)', () => {
  const canReplay = () => true;

  it('name the resource each was about, the receiver URL and its attempts, with a Replay button described by them', () => {
    const onReplay = vi.fn();
    const list = renderDeadLetters([dead(), deadRecordingReady()], canReplay, onReplay);
    const [first, second] = [...list.querySelectorAll('li.dead-letter')];
    expect(first!.getAttribute('data-id')).toBe('dlv_3Mm4Nn5Pp6Qq7Rr8');
    expect(one(first!, '.etype').textContent).toBe('call.completed');
    expect(idsOf(first!)).toEqual(['dlv_3Mm4Nn5Pp6Qq7Rr8']);
    const about = one(first!, '.about a');
    expect([about.textContent, about.getAttribute('href')]).toEqual([CALL_ID, `#calls/${CALL_ID}`]);
    expect(one(first!, '.about').textContent).toBe(`About ${CALL_ID}`);
    expect(one(first!, '.delivery-url').textContent).toBe(`→ ${RECEIVER}`);
    expect(one(first!, '.delivery-url').getAttribute('title')).toBe(`subscription ${SUBSCRIPTION_ID}`);
    expect(one(first!, '.dead-last').textContent).toBe('13 attempts; last Jan 2 00:01:05: the receiver answered HTTP 500');
    expect(first!.querySelector('.replay-result')).toBeNull();
    // A recording's event: the recording, and the call it belongs to.
    expect(one(second!, '.about').textContent).toBe(`About ${RECORDING_ID} of call ${CALL_ID}`);
    expect([...second!.querySelectorAll('.about a')].map((a) => a.getAttribute('href'))).toEqual([
      `#recordings/${RECORDING_ID}`,
      `#calls/${CALL_ID}`,
    ]);
    expect(one(second!, '.dead-last').textContent).toBe(
      '13 attempts; last Jan 2 00:01:15: the receiver is down (simulated: connection refused)',
    );

    // One button named Replay per card, and nothing else on a card whose name holds "replay".
    expect([...first!.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['dlv_3Mm4Nn5Pp6Qq7Rr8', 'Replay']);
    const button = one(first!, 'button.replay') as HTMLButtonElement;
    expect(first!.querySelector(`#${button.getAttribute('aria-describedby')}`)).toBe(one(first!, '.dead-info'));
    button.click();
    expect(onReplay).toHaveBeenCalledOnce();
    expect(onReplay.mock.calls[0]![0].id).toBe('dlv_3Mm4Nn5Pp6Qq7Rr8');
    expect(onReplay.mock.calls[0]![1]).toBe(button);
  });

  it('offer no Replay for a dead letter whose subscription was deleted, and say why', () => {
    const item = one(
      renderDeadLetters(
        [dead()],
        () => false,
        () => {},
      ),
      'li.dead-letter',
    );
    expect(item.querySelector('button.replay')).toBeNull();
    expect(one(item, '.dead-info > p.dim').textContent).toBe(
      `Its subscription ${SUBSCRIPTION_ID} was deleted: it cannot be replayed. Subscribe the receiver again.`,
    );
  });

  /** The dead letter replayed at 25 h (T0 + 25 h), with these results for the replay's attempts. */
  const replayed = (results: Array<true | number | null>, state: string, nextAttemptAt: string | null) => {
    const start = T0 + 25 * 3600 * S;
    const run = delivery('dlv_3Mm4Nn5Pp6Qq7Rr8', 'call.completed', { kind: 'call', id: CALL_ID }, start, results);
    const d = dead();
    return {
      ...d,
      state,
      replays: 1,
      nextAttemptAt,
      attempts: [...d.attempts, ...run.attempts.map((a) => ({ ...a, replay: 1 }))],
    };
  };
  const line = (d: object) =>
    one(
      one(
        renderDeadLetters([d], canReplay, () => {}),
        'li.dead-letter',
      ),
      '.replay-result',
    );

  it('after a failed replay, say what is true: the attempt that failed, and when the next one is due, live as the delivery moves', () => {
    // Regression: the card said "failed again" while the delivery was back in its retry schedule.
    const retrying = replayed([503], 'pending', iso(T0 + 25 * 3600 * S + 30 * S));
    const card = one(
      renderDeadLetters([retrying], canReplay, () => {}),
      'li.dead-letter',
    );
    expect(one(card, '.replay-result').textContent).toBe(
      'Replay 1: attempt 1 failed (HTTP 503) at Jan 2 01:00:00; retrying at Jan 2 01:00:30, attempt 2 of 13. · see its delivery',
    );
    expect(one(card, '.replay-result').getAttribute('data-replay-state')).toBe('pending');
    expect(one(card, '.delivery-head .badge').textContent).toBe('pending');
    expect(card.querySelector('button.replay')).toBeNull();
    expect(one(card, '.replay-result a').getAttribute('href')).toBe(`#webhooks?about=${CALL_ID}`);

    // Its second attempt on its way (no next instant yet), then delivered at the third.
    expect(line(replayed([503], 'pending', null)).textContent).toBe(
      'Replay 1: attempt 1 failed (HTTP 503); attempt 2 of 13 on its way. · see its delivery',
    );
    expect(line(replayed([], 'pending', null)).textContent).toBe('Replay 1: attempt 1 of 13 on its way. · see its delivery');
    const delivered = line(replayed([503, null, true], 'delivered', null));
    expect(delivered.textContent).toBe('Replay 1: delivered at attempt 3 (HTTP 200), Jan 2 01:01:30 · see its delivery');
    expect(delivered.classList.contains('ok')).toBe(true);
    expect(line(replayed([null], 'canceled', null)).textContent).toBe(
      'Replay 1: canceled after 1 attempt: its subscription was deleted. · see its delivery',
    );
  });

  it('a replay that failed all its attempts is a dead letter again, with its Replay button back', () => {
    const again = replayed(Array(13).fill(null), 'dead', null);
    const card = one(
      renderDeadLetters([again], canReplay, () => {}),
      'li.dead-letter',
    );
    expect(one(card, '.replay-result').textContent).toBe(
      'Replay 1: all 13 attempts failed, the last at Jan 3 01:00:00 (the receiver is down (simulated: connection refused)): a dead letter again. · see its delivery',
    );
    expect(one(card, '.replay-result').classList.contains('failed')).toBe(true);
    expect(one(card, '.dead-last').textContent).toMatch(/^26 attempts, 1 replay; last Jan 3 01:00:00: /);
    expect(one(card, 'button.replay').textContent).toBe('Replay');
  });

  it('Replay all says what it did from the first attempt of each letter it sent again', () => {
    const first = (ok: boolean) => ({ ...dead().attempts[0]!, attempt: 1, replay: 1, at: iso(T0 + 25 * 3600 * S), ok });
    expect(redelivered([first(true), first(false), first(true)])).toBe(
      'Replayed 3 dead letters at Jan 2 01:00:00: 2 delivered, 1 retrying (the first attempt failed). Each card says where it stands.',
    );
    expect(redelivered([first(true)])).toBe('Replayed 1 dead letter at Jan 2 01:00:00: 1 delivered. Each card says where it stands.');
    expect(redelivered([])).toBe('No dead letter to redeliver: each was replayed already, or its subscription is gone.');
  });

  it('say where a dead letter comes from when there are none', () => {
    const empty = renderDeadLetters([], canReplay, () => {});
    expect(empty.tagName).toBe('P');
    expect(empty.textContent).toBe('No dead letters. A delivery lands here when its 13th attempt fails, 24 h after the first.');
  });
});

describe('a delivery (console/views.js)', () => {
  it('shows its state, event, id, context and every attempt in a table; a pending one its next attempt', () => {
    const pending = delivery('dlv_7Hh8Jj9Kk1Ll2Mm3', 'call.completed', { kind: 'call', id: CALL_ID }, T0 + 65 * S, [500, null, 429]);
    const item = renderDelivery(pending, true);
    expect(item.id).toBe('delivery-dlv_7Hh8Jj9Kk1Ll2Mm3');
    expect(item.getAttribute('data-state')).toBe('pending');
    expect(texts(item, '.delivery-head > :not(button)')).toEqual(['pending', 'call.completed', '3 attempts, 3 failed']);
    expect(idsOf(item)).toEqual(['dlv_7Hh8Jj9Kk1Ll2Mm3']);
    expect(one(item, '.about').textContent).toBe(`About ${CALL_ID}`);
    expect(one(item, '.delivery-url').textContent).toBe(`→ ${RECEIVER}`);
    expect((one(item, 'details') as HTMLDetailsElement).open).toBe(true);
    expect([...item.querySelectorAll('tbody tr')].map((tr) => [tr.className, ...texts(tr, 'td')])).toEqual([
      ['failed', '1', 'Jan 1 00:01:05', '500', 'the receiver answered HTTP 500'],
      ['failed', '2', 'Jan 1 00:01:35', '—', 'the receiver is down (simulated: connection refused)'],
      ['failed', '3', 'Jan 1 00:02:35', '429', 'the receiver answered HTTP 429'],
    ]);
    expect(one(item, 'caption').textContent).toBe('Attempts of dlv_7Hh8Jj9Kk1Ll2Mm3, call.completed');
    expect(one(item, '.next').textContent).toBe('Next attempt at Jan 1 00:04:35');
    expect(one(item, '.next time').getAttribute('datetime')).toBe(iso(T0 + 65 * S + 210 * S));
  });

  it('marks a replayed attempt, and keeps its attempts folded unless asked', () => {
    const d = delivery('dlv_8Nn9Pp1Qq2Rr3Ss4', 'call.answered', { kind: 'call', id: CALL_ID }, T0 + 5 * S, [true]);
    d.attempts.push({ ...d.attempts[0]!, replay: 1, at: iso(T0 + 3600 * S) });
    const item = renderDelivery(d, false);
    expect((one(item, 'details') as HTMLDetailsElement).open).toBe(false);
    expect(item.querySelector('.next')).toBeNull();
    expect(texts(item, 'tbody tr td.num')).toEqual(['1', 'R1·1']);
    expect(texts(item, 'tbody tr td.result')).toEqual(['ok', 'ok (replay)']);
    expect(one(item, '.attempt-count').textContent).toBe('2 attempts');
  });
});

describe('the messages (console/views.js)', () => {
  const message = (id: string, extra: Record<string, unknown>) => ({
    id,
    direction: 'inbound',
    channel: 'sms',
    from: '+14155550123',
    to: '+14152585288',
    body: 'Hello',
    media: [],
    template: null,
    conversation_id: 'conv_8Lm2Rt5Wq9Xk1Vb4',
    status: 'received',
    segments: 1,
    created_at: iso(T0),
    sent_at: null,
    delivered_at: null,
    failed_at: null,
    account: ACCOUNT,
    ...extra,
  });

  it('groups them by conversation and renders an untrusted body as text, never as markup', () => {
    const model = emptyModel();
    load(model, 'message', [
      message('msg_2Bb3Cc4Dd5Ee6Ff7', {
        direction: 'outbound',
        channel: 'mms',
        from: '+14152585288',
        to: '+14155550123',
        body: null,
        media: [{ url: 'https://example.com/a.png', content_type: 'image/png' }],
        status: 'delivered',
        created_at: iso(T0 + 7 * S),
      }),
      message('msg_1Aa2Bb3Cc4Dd5Ee6', { body: XSS, segments: 2 }),
    ]);
    const view = renderMessages(conversations(model));
    expect(view.querySelector('img')).toBeNull();
    expect(view.querySelector('[onerror]')).toBeNull();
    const conversation = one(view, 'li.conversation');
    expect(one(conversation, '.conv-head > span.mono').textContent).toBe('+14152585288 ↔ +14155550123');
    expect(idsOf(conversation)).toEqual(['conv_8Lm2Rt5Wq9Xk1Vb4', 'msg_1Aa2Bb3Cc4Dd5Ee6', 'msg_2Bb3Cc4Dd5Ee6Ff7']);
    const [inbound, outbound] = [...conversation.querySelectorAll('li.bubble')];
    expect(inbound!.className).toBe('bubble inbound');
    expect(one(inbound!, '.bubble-body').textContent).toBe(XSS);
    expect(one(inbound!, '.bubble-meta').textContent).toBe('Jan 1 00:00:00 received 2 segments msg_1Aa2Bb3Cc4Dd5Ee6');
    expect(one(outbound!, '.bubble-body').textContent).toBe('(1 attachment)');
    expect(one(outbound!, '.bubble-meta').textContent).toBe('Jan 1 00:00:07 delivered MMS · 1 segment msg_2Bb3Cc4Dd5Ee6Ff7');
  });

  it('say how to make one when there are none', () => {
    expect(renderMessages([]).textContent).toBe(
      'No messages yet. Send one with POST /v1/messages or deliver an inbound one with POST /__sandbox/sessions/{s}/messages/inbound.',
    );
  });
});

describe('the recordings (console/views.js)', () => {
  const audioUrl = (id: string) => `/__sandbox/sessions/default/console/recordings/${id}/audio`;

  it('give a ready one an audio player, its transcript and summary beside it, and links to its call and deliveries', () => {
    const transcripts = new Map([[TRANSCRIPT_ID, transcript({ summary: `Summary with ${XSS}` })]]);
    const view = renderRecordings(
      [recording({ agent: 'maria' })],
      (id) => transcripts.get(id),
      audioUrl,
      (callId) => (callId === CALL_ID ? 3 : 0),
    );
    const item = one(view, 'li.rec-item');
    expect(idsOf(item)).toEqual([RECORDING_ID, TRANSCRIPT_ID]);
    const audio = one(item, 'audio');
    expect(audio.getAttribute('src')).toBe(audioUrl(RECORDING_ID));
    expect(audio.hasAttribute('controls')).toBe(true);
    expect(audio.getAttribute('preload')).toBe('none');
    expect(audio.getAttribute('aria-label')).toBe('Recording');
    expect(item.querySelector(`#${audio.getAttribute('aria-describedby')}`)?.textContent).toBe(`${RECORDING_ID}ready60 s`);
    expect(texts(item, '.rec-head > :not(button)')).toEqual(['ready', '60 s']);
    expect(one(item, '.rec-meta').textContent).toBe(`Call ${CALL_ID} · agent maria · ended Jan 1 00:01:05`);
    expect(one(item, '.rec-meta a').getAttribute('href')).toBe(`#calls/${CALL_ID}`);
    expect(one(item, '.rec-links a').textContent).toBe('Webhook deliveries of its call (3)');
    expect(one(item, '.rec-links a').getAttribute('href')).toBe(`#webhooks?about=${CALL_ID}`);
    expect(item.querySelector('img')).toBeNull();
    expect(one(item, '.summary').textContent).toBe(`Summary: Summary with ${XSS}`);
    expect([...item.querySelectorAll('.segments li')].map((li) => texts(li, 'span'))).toEqual([
      ['agent', '0.8 s', 'Harbour Dental, good morning. How can I help?'],
      ['customer', '5.0 s', 'Hi, I would like to book a cleaning, Wednesday if you can.'],
    ]);
  });

  it('say a processing one has no audio yet, and fall back to the transcript the recording carries', () => {
    const processing = recording({
      status: 'processing',
      ready_at: null,
      transcript: transcript({ status: 'processing', summary: null, segments: [] }),
    });
    const item = one(
      renderRecordings(
        [processing],
        () => undefined,
        audioUrl,
        () => 0,
      ),
      'li.rec-item',
    );
    expect(item.querySelector('audio')).toBeNull();
    expect(one(item, '.rec-media > p.dim').textContent).toBe('Processing: the audio is ready at recording.ready.');
    expect(one(item, '.rec-links').textContent).toBe('No webhook deliveries');
    expect(one(item, '.rec-transcript h3').textContent).toBe(`Transcript ${TRANSCRIPT_ID}processing`);
    expect(one(item, '.rec-transcript > p.dim').textContent).toBe('Nothing said yet.');
  });
});

describe('the other views (console/views.js)', () => {
  it('numbers: a row each, with the whole id, routing, SMS and the key', () => {
    const number = {
      id: 'num_3Vd8sKq1Lx5Tn0Pw',
      number: '+14152585288',
      kind: 'local',
      country: 'US',
      area_code: '415',
      routing: { type: 'agent', target: 'maria' },
      sms: { enabled: true },
      status: 'provisioned',
      created_at: iso(T0),
      account: ACCOUNT,
    };
    const table = renderNumbers([number, { ...number, id: 'num_4We9tLr2My6Uo1Qx', routing: null, sms: { enabled: false } }]);
    expect(one(table, 'caption').textContent).toBe('Provisioned numbers');
    expect(texts(table, 'th')).toEqual(['Number', 'Id', 'Kind', 'Routing', 'SMS', 'Key', 'Since']);
    expect([...table.querySelectorAll('tbody tr')].map((tr) => texts(tr, 'td'))).toEqual([
      ['+14152585288', 'num_3Vd8sKq1Lx5Tn0Pw', 'local · US', 'agent → maria', 'on', ACCOUNT, 'Jan 1 00:00:00'],
      ['+14152585288', 'num_4We9tLr2My6Uo1Qx', 'local · US', '—', 'off', ACCOUNT, 'Jan 1 00:00:00'],
    ]);
    expect(idsOf(table)).toEqual(['num_3Vd8sKq1Lx5Tn0Pw', 'num_4We9tLr2My6Uo1Qx']);
  });

  it('subscriptions: the whole id, the receiver URL, its events and key', () => {
    const view = renderSubscriptions([
      { id: SUBSCRIPTION_ID, url: RECEIVER, events: ['call.started', 'call.completed'], created_at: iso(T0), account: ACCOUNT },
    ]);
    expect(idsOf(view)).toEqual([SUBSCRIPTION_ID]);
    expect(texts(view, 'li > span')).toEqual([RECEIVER, 'call.started, call.completed', `Key ${ACCOUNT}`]);
  });

  it("an event's row: its time, type, the whole id of its subject, and what happened", () => {
    const completed = {
      id: 'evt_1Hs7Tb4Ng9Wc2Kq5',
      type: 'call.completed',
      created_at: iso(T0 + 65 * S),
      data: { id: CALL_ID, disposition: 'answered', duration: 60 },
    };
    const row = eventItem(completed, true);
    expect(row.className).toBe('event fresh');
    expect(row.getAttribute('data-type')).toBe('call.completed');
    expect(one(row, 'time').getAttribute('datetime')).toBe(iso(T0 + 65 * S));
    expect(texts(row, ':scope > *')).toEqual(['Jan 1 00:01:05', 'call.completed', CALL_ID, 'answered · 60 s']);
    expect(idsOf(row)).toEqual([CALL_ID]);
    const detail = (type: string, data: object) =>
      one(eventItem({ id: 'evt_x', type, created_at: iso(T0), data }, false), '.detail').textContent;
    expect(detail('call.started', { id: CALL_ID, from: '+14155550100', to: '+14155550123' })).toBe('+14155550100 → +14155550123');
    expect(detail('call.answered', { id: CALL_ID, answered_by: 'voicemail' })).toBe('by voicemail');
    expect(detail('recording.ready', { id: RECORDING_ID, duration: 125, call_id: CALL_ID })).toBe(`2 m 5 s · call ${CALL_ID}`);
    expect(detail('transcript.ready', { id: TRANSCRIPT_ID, call_id: CALL_ID })).toBe(`call ${CALL_ID}`);
    expect(detail('message.received', { id: 'msg_1', from: XSS, to: '+1' })).toBe(`${XSS} → +1`);
    expect(
      eventItem(
        { id: 'evt_x', type: 'message.received', created_at: iso(T0), data: { id: 'msg_1', from: XSS, to: '+1' } },
        false,
      ).querySelector('img'),
    ).toBeNull();
  });

  it('keys: newest first, the account each opens and its calls, and a button that shows them', () => {
    const showCalls = vi.fn();
    const keys = [
      { key: ACCOUNT, account: ACCOUNT, createdAt: iso(T0) },
      { key: 'SVC_TEST_n4Yb8Rp3Mk6Tw2Qc', account: 'SVC_TEST_n4Yb8Rp3Mk6Tw2Qc', createdAt: iso(T0 + 60 * S) },
      { key: 'SVC_TEST_p5Zc9Sq4Nl7Ux3Rd', account: ACCOUNT, createdAt: iso(T0 + 120 * S) },
    ];
    const items = renderKeys(keys, (account) => (account === ACCOUNT ? 9 : 0), showCalls);
    expect(items.map((li) => li.getAttribute('data-key-id'))).toEqual(['SVC_TEST_p5Zc9Sq4Nl7Ux3Rd', 'SVC_TEST_n4Yb8Rp3Mk6Tw2Qc', ACCOUNT]);
    expect(items.map((li) => one(li, 'span.dim').textContent)).toEqual([
      `account ${ACCOUNT} · 9 calls · made Jan 1 00:02:00`,
      'its own account · 0 calls · made Jan 1 00:01:00',
      'its own account · 9 calls · made Jan 1 00:00:00',
    ]);
    expect(items[1]!.querySelector('button:not(.id)')).toBeNull();
    (one(items[0]!, 'button:not(.id)') as HTMLButtonElement).click();
    expect(showCalls).toHaveBeenCalledWith(ACCOUNT);
    expect(renderKeys([], () => 0, showCalls).map((li) => li.textContent)).toEqual(['No keys made in this session yet.']);
  });

  it('links a resource to its view', () => {
    expect(resourceLink({ kind: 'call', id: CALL_ID }).getAttribute('href')).toBe(`#calls/${CALL_ID}`);
    expect(resourceLink({ kind: 'message', id: 'msg_1' }).getAttribute('href')).toBe('#messages/msg_1');
    expect(resourceLink({ kind: 'transcript', id: TRANSCRIPT_ID }).getAttribute('href')).toBe(`#recordings/${TRANSCRIPT_ID}`);
  });
});

describe('a row of the request log (console/views.js)', () => {
  const LONG = 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA';
  const limited = {
    requestId: 'req_8Tq2Wm5Kx1Rb7Nc4',
    method: 'GET',
    path: '/v1/calls/{id}',
    target: '/v1/calls/call_7mQ2xK9pR4tLw8Zb',
    status: 429,
    errorCode: 'rate_limited',
    errorMessage: `Rate limit of 100 requests per second exceeded for this key. ${XSS}`,
    apiKey: LONG,
    at: iso(T0 + 30 * S),
  };

  it('shows time, method, documented path, status and error code in a button that opens the message and the request id', () => {
    const onToggle = vi.fn();
    const row = renderRequest(limited, false, onToggle);
    expect(row.getAttribute('data-id')).toBe(limited.requestId);
    expect(row.className).toBe('req s4xx');
    const toggle = one(row, 'button.req-toggle') as HTMLButtonElement;
    expect(texts(toggle, ':scope > *')).toEqual(['Jan 1 00:00:30', 'GET', '/v1/calls/{id}', '429', 'rate_limited']);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    const more = one(row, '.req-more') as HTMLElement;
    expect(toggle.getAttribute('aria-controls')).toBe(more.id);
    expect(more.hidden).toBe(true);
    toggle.click();
    expect(onToggle).toHaveBeenCalledWith(limited.requestId);

    const open = renderRequest(limited, true, onToggle);
    expect((one(open, '.req-more') as HTMLElement).hidden).toBe(false);
    expect(one(open, 'button.req-toggle').getAttribute('aria-expanded')).toBe('true');
    // The message as text, never markup; the request id and the whole key copyable.
    expect(one(open, '.req-message').textContent).toBe(limited.errorMessage);
    expect(open.querySelector('img')).toBeNull();
    expect(idsOf(open)).toEqual([limited.requestId, LONG]);
    expect(texts(open, '.req-facts dt')).toEqual(['Request id', 'Sent to', 'Key']);
    expect(texts(open, '.req-facts dd')[1]).toBe(`GET ${limited.target}`);
  });

  it('shows the key shortened, copied whole in one click', async () => {
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    const short = one(
      renderRequest(limited, false, () => {}),
      'button.copy-short',
    );
    expect(short.textContent).toBe('SVC_TEST_ses_4kT9…5JuA');
    expect(short.getAttribute('title')).toBe(`Copy ${LONG}`);
    expect(short.hasAttribute('aria-label')).toBe(false);
    (short as HTMLButtonElement).click();
    expect(writeText).toHaveBeenCalledWith(LONG);
    writeText.mockRestore();
  });

  it('marks a success, a 5xx and a network fault, and a request without a key', () => {
    const ok = renderRequest({ ...limited, status: 201, errorCode: null, errorMessage: null, apiKey: 'SVC_TEST_me' }, true, () => {});
    expect(ok.className).toBe('req s2xx');
    expect(one(ok, '.ecode').textContent).toBe('');
    expect(one(ok, '.req-more > p').textContent).toBe('Answered without an error.');
    expect(one(ok, 'button.copy-short').textContent).toBe('SVC_TEST_me');
    const fault = renderRequest(
      {
        ...limited,
        status: 0,
        errorCode: 'network_error',
        errorMessage: 'No answer: an injected network fault dropped the connection.',
        apiKey: null,
      },
      false,
      () => {},
    );
    expect(fault.className).toBe('req snone');
    expect(one(fault, '.req-status').textContent).toBe('—');
    expect(one(fault, '.no-key').textContent).toBe('no key');
    expect(renderRequest({ ...limited, status: 503 }, false, () => {}).className).toBe('req s5xx');
  });
});
