// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { callFacts, renderCall } from '../../console/timeline.js';
import { ACCOUNT, CALL_ID, NOW, RECORDING_ID, S, T0, TRANSCRIPT_ID, XSS, call, delivery, iso, timelineOf } from './fixtures.js';

/** A mark's position (`--x`) and a bar's width (`--w`), in % of the track. */
const x = (el: Element) => parseFloat((el as HTMLElement).style.getPropertyValue('--x'));
const w = (el: Element) => parseFloat((el as HTMLElement).style.getPropertyValue('--w'));
const one = (root: Element, selector: string) => {
  const found = root.querySelectorAll(selector);
  expect(found, selector).toHaveLength(1);
  return found[0]!;
};
const key = (target: Element, k: string) => {
  const event = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
};

describe("a call's timeline (console/timeline.js)", () => {
  const theCall = call();
  const row = renderCall(theCall, timelineOf(theCall), NOW);
  const track = one(row, '.track');

  it('keeps a 60 s call readable after 25 h of webhook retries: ringing and talking bars at 1:12, more than half the track', () => {
    const ringing = one(track, '.bar.ringing');
    const talking = one(track, '.bar.talking');
    expect(x(ringing)).toBe(0);
    expect(w(talking)).toBeGreaterThan(50);
    expect(w(talking) / w(ringing)).toBeCloseTo(12, 1);
    // The talk starts where the ring ends, and the end cap closes it, before the cut.
    expect(x(talking)).toBeCloseTo(x(ringing) + w(ringing), 2);
    const end = one(track, '.end-cap');
    expect(end.className).toBe('end-cap');
    expect(x(end)).toBeCloseTo(x(talking) + w(talking), 2);
    expect(x(one(track, '.cut'))).toBeCloseTo(x(end), 2);
    expect(end.getAttribute('title')).toBe('ended at Jan 1 00:01:05: answered');
  });

  it('draws every webhook attempt at its own place: the two delivered in the life, the 13 failed after the cut, in order, none on another', () => {
    const hooks = [...track.querySelectorAll('.hook')];
    expect(hooks).toHaveLength(15);
    expect(hooks.map((h) => h.classList.contains('ok'))).toEqual([true, true, ...Array(13).fill(false)]);
    expect(track.querySelectorAll('.hook.failed')).toHaveLength(13);
    const xs = hooks.map(x);
    // Each attempt its own position, each further right than the one before by more than a mark's width.
    // The last two (17 h 3 m 30 s and 24 h after the first) come closest on the log scale, still apart.
    for (let i = 1; i < xs.length; i++)
      expect(xs[i]! - xs[i - 1]!, `attempt ${i} → ${i + 1}`).toBeGreaterThan(i === xs.length - 1 ? 1 : 1.2);
    const cut = one(track, '.cut');
    expect(xs.slice(3).every((p) => p > x(cut) + w(cut))).toBe(true);
    expect(xs[14]).toBeCloseTo(100);
    // Each says what it was.
    expect(hooks[0]!.getAttribute('title')).toBe('call.started attempt 1 at Jan 1 00:00:00: delivered, HTTP 200');
    expect(hooks[14]!.getAttribute('title')).toBe('call.completed attempt 13 at Jan 2 00:01:05: the receiver answered HTTP 500');
    // The recording and transcript marks are after the cut too, the recording first.
    const rec = one(track, '.mark.recording');
    const trn = one(track, '.mark.transcript');
    expect(x(rec)).toBeGreaterThan(x(cut));
    expect(x(trn)).toBeGreaterThan(x(rec));
    expect(rec.getAttribute('title')).toBe(`recording ${RECORDING_ID} ready at Jan 1 00:01:15`);
  });

  it("labels the start, the call's length and the tail's ticks up to the last attempt", () => {
    const labels = [...row.querySelectorAll('.tl-labels > *')].map((l) => l.textContent);
    expect(labels).toEqual(['Jan 1 00:00:00', '1 m 5 s', '+10 s', '+1 m', '+10 m', '+1 h', '+6 h', '+1 d']);
    expect([...row.querySelectorAll('.tail-tick.major')].map((l) => l.textContent)).toEqual(['+1 m', '+1 h', '+1 d']);
    expect(one(row, '.tl-labels').getAttribute('aria-hidden')).toBe('true');
    expect(track.querySelectorAll('.grid')).toHaveLength(6);
  });

  it('a failed attempt at the same instant as a delivered one is stacked in another lane, not drawn over it', () => {
    // A busy call: it ends as it starts, so its call.started and call.completed attempts coincide.
    const busy = call({
      answered_by: null,
      disposition: 'busy',
      duration: 0,
      answered_at: null,
      ended_at: iso(T0),
      recording_id: null,
      transcript_id: null,
    });
    const about = { kind: 'call', id: CALL_ID };
    const t = timelineOf(busy, {
      deliveries: [
        delivery('dlv_4Ss5Tt6Uu7Vv8Ww9', 'call.started', about, T0, [true]),
        delivery('dlv_5Xx6Yy7Zz8Aa9Bb1', 'call.completed', about, T0, [503]),
      ],
    });
    const track = one(renderCall(busy, t, NOW), '.track');
    const ok = one(track, '.hook.ok');
    const failed = one(track, '.hook.failed');
    expect(x(ok)).toBe(x(failed));
    expect(ok.classList.contains('lane-0')).toBe(true);
    expect(failed.classList.contains('lane-1')).toBe(true);
    // Unanswered: no talking bar, the ring runs to the end, the end cap says so.
    expect(track.querySelector('.bar.talking')).toBeNull();
    expect(one(track, '.end-cap').classList.contains('unanswered')).toBe(true);
  });

  it('is focusable, says its facts to a screen reader, and opens and closes its details with Enter and Space', () => {
    const facts = [
      'Ringing from Jan 1 00:00:00 for 5 s.',
      'Answered at Jan 1 00:00:05 by human, talked 1 m.',
      'Completed at Jan 1 00:01:05: answered, duration 60 s.',
      `Recording ${RECORDING_ID} ready at Jan 1 00:01:15.`,
      `Transcript ${TRANSCRIPT_ID} ready at Jan 1 00:01:35.`,
      'Webhooks: 15 attempts, 2 delivered, 13 failed; the last, call.completed attempt 13 at Jan 2 00:01:05, failed (the receiver answered HTTP 500).',
    ];
    expect(track.getAttribute('tabindex')).toBe('0');
    expect(track.getAttribute('role')).toBe('img');
    // Named without the call's id or its instants (no accessible name holds "at" but the At field's),
    // described by the facts.
    expect(track.getAttribute('aria-label')).toBe('Call timeline');
    const details = one(row, 'details.call-details') as HTMLDetailsElement;
    expect([...details.querySelectorAll('.facts li')].map((li) => li.textContent)).toEqual(facts);
    expect(row.querySelector(`#${track.getAttribute('aria-describedby')}`)).toBe(one(details, 'ul.facts'));
    document.body.append(row);
    try {
      (track as HTMLElement).focus();
      expect(document.activeElement).toBe(track);
      expect(details.open).toBe(false);
      expect(key(track, 'Enter').defaultPrevented).toBe(true);
      expect(details.open).toBe(true);
      expect(key(track, ' ').defaultPrevented).toBe(true);
      expect(details.open).toBe(false);
      // Other keys (Tab to move on) are left alone.
      expect(key(track, 'Tab').defaultPrevented).toBe(false);
      expect(details.open).toBe(false);
    } finally {
      row.remove();
    }
    expect((one(renderCall(theCall, timelineOf(theCall), NOW, { open: true }), 'details') as HTMLDetailsElement).open).toBe(true);
  });

  it('heads the row with the whole id and its copy control, the outcome, the key, and links to the recording, transcript and webhooks', () => {
    const id = one(row, 'button.call-id');
    expect(id.textContent).toBe(CALL_ID);
    expect(id.getAttribute('data-copy')).toBe(CALL_ID);
    expect(id.textContent).toBe(CALL_ID);
    expect(id.hasAttribute('aria-label')).toBe(false);
    expect(row.getAttribute('data-id')).toBe(CALL_ID);
    expect(row.getAttribute('data-account')).toBe(ACCOUNT);
    expect(one(row, '.call-outcome').textContent).toBe('answered · 60 s');
    expect(one(row, '.call-meta').textContent).toBe('↗ out+14155550100 → +14155550123');
    expect(one(row, '.call-key code').textContent).toBe(ACCOUNT);
    expect(row.querySelector('.call-transfer')).toBeNull();
    expect([...row.querySelectorAll('.call-links a')].map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Recording', `#recordings/${RECORDING_ID}`],
      ['Transcript', `#recordings/${RECORDING_ID}`],
      ['Webhooks (15, 13 failed)', `#webhooks?about=${CALL_ID}`],
    ]);
  });

  it('says who answered: a person, voicemail, or the AI receptionist, and that an AI call reached voicemail', () => {
    expect(one(row, '.call-answered').textContent).toBe('Answered by a person');
    const card = (extra: Record<string, unknown>) => {
      const c = call(extra);
      return one(renderCall(c, timelineOf(c), NOW), '.call-answered');
    };
    const voicemail = card({ answered_by: 'voicemail', ai_receptionist: true, ai_handler: 'ava', agent: 'ava' });
    expect(voicemail.textContent).toBe('Answered by voicemail (AI call, ava)');
    expect([voicemail.getAttribute('data-answered-by'), voicemail.getAttribute('title')]).toEqual(['voicemail', 'answered_by: voicemail']);
    expect(card({ answered_by: 'ai_receptionist', ai_receptionist: true, ai_handler: 'ava' }).textContent).toBe(
      'Answered by the AI receptionist (ava)',
    );
    expect(card({ answered_by: 'voicemail' }).textContent).toBe('Answered by voicemail');
  });

  it('shows the agent or the extension a call was transferred to', () => {
    const toAgent = call({ agent: 'maria' });
    const agentRow = renderCall(toAgent, timelineOf(toAgent), NOW);
    expect(one(agentRow, '.call-transfer').textContent).toBe('Agent maria');
    expect(callFacts(toAgent, timelineOf(toAgent), NOW)).toContain('Transferred to agent maria.');
    const toExtension = call({ extension: '204' });
    expect(one(renderCall(toExtension, timelineOf(toExtension), NOW), '.call-transfer').textContent).toBe('Extension 204');
    expect(callFacts(toExtension, timelineOf(toExtension), NOW)).toContain('Transferred to extension 204.');
  });

  it('draws a live call to now: an open ringing bar while it rings, an open talking bar while it talks', () => {
    const ringing = call({
      status: 'ringing',
      answered_by: null,
      disposition: null,
      duration: null,
      answered_at: null,
      ended_at: null,
      recording_id: null,
      transcript_id: null,
    });
    const none = timelineOf(ringing, { deliveries: [], recordings: [], transcripts: [] });
    const ringRow = renderCall(ringing, none, T0 + 3 * S);
    const bar = one(ringRow, '.bar.ringing');
    expect(bar.classList.contains('open')).toBe(true);
    expect(w(bar)).toBeCloseTo(100);
    expect(ringRow.querySelector('.end-cap')).toBeNull();
    expect(ringRow.querySelector('.call-answered'), 'nobody has answered a ringing call').toBeNull();
    expect(one(ringRow, '.call-outcome').textContent).toBe('ringing…');
    expect(one(ringRow, '.tl-label.end').textContent).toBe('now');
    expect(callFacts(ringing, none, T0 + 3 * S)).toEqual(['Ringing from Jan 1 00:00:00, still ringing.', 'No webhook attempts.']);

    const talking = call({ status: 'answered', disposition: null, duration: null, ended_at: null, recording_id: null });
    const talkRow = renderCall(talking, none, T0 + 35 * S);
    expect(one(talkRow, '.bar.talking').classList.contains('open')).toBe(true);
    expect(one(talkRow, '.bar.ringing').classList.contains('open')).toBe(false);
    expect(one(talkRow, '.call-outcome').textContent).toBe('talking…');
    expect(callFacts(talking, none, T0 + 35 * S)[1]).toBe('Answered at Jan 1 00:00:05 by human, still talking.');
  });

  it('renders untrusted text (an agent name) as text, never as markup', () => {
    const hostile = call({ agent: XSS });
    const hostileRow = renderCall(hostile, timelineOf(hostile), NOW);
    expect(hostileRow.querySelector('img')).toBeNull();
    expect(one(hostileRow, '.call-transfer').textContent).toBe(`Agent ${XSS}`);
    expect(one(hostileRow, '.facts').textContent).toContain(`Transferred to agent ${XSS}.`);
  });
});
