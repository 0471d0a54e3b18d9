import { emptyModel, load, timelineOf as modelTimeline } from '../../console/model.js';
import { WEBHOOK_RETRY_SCHEDULE } from '../../src/webhooks/retry-schedule.js';

/**
 * Items as the console's lists and `change` frames carry them (the API's JSON plus `account`;
 * a delivery plus `about` and `call_id`), telling the story of a new user's first session: a call
 * placed at the sandbox's start, ringing 5 s, talking 60 s; its recording ready 10 s after the
 * end, its transcript 30 s after; a receiver that took call.started and call.answered and then
 * failed for a day, so call.completed went through the 13 attempts of the retry schedule
 * (the last 24 h after the first) and was dead-lettered; then a 25 h advance.
 */

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
export const S = 1000;
export const iso = (ms: number) => new Date(ms).toISOString();
/** Now, after the 25 h advance. */
export const NOW = T0 + 25 * 3600 * S;

export const ACCOUNT = 'SVC_TEST_k3Xa9Qm2Lw7Rt5Vb';
export const CALL_ID = 'call_7mQ2xK9pR4tLw8Zb';
export const RECORDING_ID = 'rec_5Hc2vN8qT1mXy7Ka';
export const TRANSCRIPT_ID = 'trn_9Rb4wL2sK7pQx3Mf';
export const SUBSCRIPTION_ID = 'wh_2Jf6tY9cB4nRk8Ws';
export const RECEIVER = 'https://receiver.example.com/hooks/voice';
export const XSS = '<img src=x onerror=alert(1)>';

/** A call as the API shows it, plus its account. */
export function call(extra: Record<string, unknown> = {}) {
  return {
    id: CALL_ID,
    status: 'completed',
    ai_handler: 'none',
    direction: 'outbound',
    from: '+14155550100',
    to: '+14155550123',
    ai_receptionist: false,
    answered_by: 'human',
    disposition: 'answered',
    duration: 60,
    agent: null,
    extension: null,
    campaign_id: null,
    recording_id: RECORDING_ID,
    recording_url: `https://api.svc.test/v1/recordings/${RECORDING_ID}/audio`,
    transcript_id: TRANSCRIPT_ID,
    created_at: iso(T0),
    answered_at: iso(T0 + 5 * S),
    ended_at: iso(T0 + 65 * S),
    account: ACCOUNT,
    ...extra,
  };
}

export const SEGMENTS = [
  { speaker: 'agent', text: 'Harbour Dental, good morning. How can I help?', start: 0.8, end: 4.1 },
  { speaker: 'customer', text: 'Hi, I would like to book a cleaning, Wednesday if you can.', start: 5, end: 9.6 },
];

export function transcript(extra: Record<string, unknown> = {}) {
  return {
    id: TRANSCRIPT_ID,
    call_id: CALL_ID,
    recording_id: RECORDING_ID,
    status: 'ready',
    segments: SEGMENTS,
    text: SEGMENTS.map((s) => `${s.speaker}: ${s.text}`).join('\n'),
    summary: 'The customer wanted to book a cleaning. It was booked for Wednesday at 2:00 pm.',
    created_at: iso(T0 + 5 * S),
    ready_at: iso(T0 + 95 * S),
    account: ACCOUNT,
    ...extra,
  };
}

export function recording(extra: Record<string, unknown> = {}) {
  return {
    id: RECORDING_ID,
    call_id: CALL_ID,
    agent: null,
    duration: 60,
    status: 'ready',
    url: `https://api.svc.test/v1/recordings/${RECORDING_ID}/audio`,
    transcript_id: TRANSCRIPT_ID,
    transcript: null,
    summary: null,
    created_at: iso(T0 + 65 * S),
    ready_at: iso(T0 + 75 * S),
    account: ACCOUNT,
    ...extra,
  };
}

type Attempt = {
  deliveryId: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  url: string;
  attempt: number;
  replay: number;
  at: string;
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
};

/** A delivery of an event about `about` (of call `callId`), with an attempt at each instant: `true` delivered, a status failed, `null` no answer. */
export function delivery(
  id: string,
  eventType: string,
  about: { kind: string; id: string },
  first: number,
  results: Array<true | number | null>,
  extra: Record<string, unknown> = {},
) {
  const attempts: Attempt[] = results.map((result, i) => ({
    deliveryId: id,
    eventId: `evt_${id.slice(4)}`,
    eventType,
    subscriptionId: SUBSCRIPTION_ID,
    url: RECEIVER,
    attempt: i + 1,
    replay: 0,
    at: iso(first + WEBHOOK_RETRY_SCHEDULE[i]!),
    status: result === true ? 200 : result,
    ok: result === true,
    durationMs: 3,
    error:
      result === true
        ? null
        : result === null
          ? 'the receiver is down (simulated: connection refused)'
          : `the receiver answered HTTP ${result}`,
  }));
  const last = attempts[attempts.length - 1];
  const state = last?.ok ? 'delivered' : attempts.length === WEBHOOK_RETRY_SCHEDULE.length ? 'dead' : 'pending';
  return {
    id,
    eventId: `evt_${id.slice(4)}`,
    eventType,
    subscriptionId: SUBSCRIPTION_ID,
    url: RECEIVER,
    state,
    attempts,
    nextAttemptAt: state === 'pending' ? iso(first + WEBHOOK_RETRY_SCHEDULE[attempts.length]!) : null,
    replays: 0,
    account: ACCOUNT,
    about,
    call_id: about.kind === 'call' ? about.id : CALL_ID,
    ...extra,
  };
}

/** The call's three deliveries: started and answered delivered at once, completed dead after 12 failed attempts. */
export function callDeliveries() {
  const about = { kind: 'call', id: CALL_ID };
  return [
    delivery('dlv_1Aa2Bb3Cc4Dd5Ee6', 'call.started', about, T0, [true]),
    delivery('dlv_2Ff3Gg4Hh5Jj6Kk7', 'call.answered', about, T0 + 5 * S, [true]),
    delivery('dlv_3Mm4Nn5Pp6Qq7Rr8', 'call.completed', about, T0 + 65 * S, Array(13).fill(500)),
  ];
}

/** The session's copy (model.js) holding these items, and what it gives a call's track. */
export function timelineOf(
  theCall: ReturnType<typeof call>,
  items: { deliveries?: object[]; recordings?: object[]; transcripts?: object[] } = {},
) {
  const model = emptyModel();
  load(model, 'call', [theCall]);
  load(model, 'delivery', items.deliveries ?? callDeliveries());
  load(model, 'recording', items.recordings ?? [recording()]);
  load(model, 'transcript', items.transcripts ?? [transcript()]);
  return modelTimeline(model, theCall);
}
