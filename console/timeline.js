import { copyId, h, plural, seconds, span, stamp } from './dom.js';
import { callScale, stack } from './scale.js';

/**
 * A call's row: its head (id, parties, status, outcome, key, agent or extension, links to its
 * recording, transcript and webhooks) and its timeline, drawn to the call's own life
 * (scale.js):
 *
 *   a ringing bar (created_at → answered_at, or → ended_at when nobody answered),
 *   a talking bar (answered_at → ended_at) and an end cap,
 *   a recording-ready dot and a transcript-ready diamond above the bar,
 *   webhook attempts in their own lane under it (a filled dot delivered, a cross failed;
 *   marks that would overlap are stacked), and after a cut at the call's end, the tail: what
 *   came later, on a log scale of the time since the end, with its ticks.
 *
 * Positions are CSS custom properties (`--x`, `--w`): the page's Content-Security-Policy
 * allows no inline style. The track is focusable; Enter opens the details, a list of the same
 * facts in words, which also describes the track to a screen reader.
 */

const ms = (/** @type {string | null | undefined} */ iso) => (iso ? Date.parse(iso) : NaN);
const pct = (/** @type {number} */ n) => `${Math.min(100, Math.max(0, n)).toFixed(3)}%`;

/**
 * @param {string} cls
 * @param {number} x
 * @param {string} [title]
 * @param {...any} children
 */
function at(cls, x, title, ...children) {
  return h('span', { class: cls, vars: { '--x': pct(x) }, title }, ...children);
}
/**
 * @param {string} cls
 * @param {number} x0
 * @param {number} x1
 * @param {string} [title]
 */
function bar(cls, x0, x1, title) {
  return h('span', { class: cls, vars: { '--x': pct(x0), '--w': pct(Math.max(0.4, x1 - x0)) }, title });
}

/**
 * The facts of a call's life, in words (the details list and the marks' titles).
 * @param {any} call
 * @param {{ recording: any, transcript: any, webhooks: any[] }} t
 * @param {number} now
 */
export function callFacts(call, t, now) {
  const created = ms(call.created_at);
  const answered = ms(call.answered_at);
  const ended = ms(call.ended_at);
  const live = !Number.isFinite(ended);
  const ringEnd = Number.isFinite(answered) ? answered : Number.isFinite(ended) ? ended : now;
  const facts = [
    `Ringing from ${stamp(call.created_at)}${live && !Number.isFinite(answered) ? ', still ringing' : ` for ${span(ringEnd - created)}`}.`,
  ];
  if (Number.isFinite(answered)) {
    const talkEnd = Number.isFinite(ended) ? ended : now;
    facts.push(
      `Answered at ${stamp(call.answered_at)}${call.answered_by ? ` by ${call.answered_by}` : ''}${live ? ', still talking' : `, talked ${span(talkEnd - answered)}`}.`,
    );
  }
  if (call.agent || call.extension) facts.push(`Transferred to ${call.agent ? `agent ${call.agent}` : `extension ${call.extension}`}.`);
  if (Number.isFinite(ended))
    facts.push(`Completed at ${stamp(call.ended_at)}: ${call.disposition ?? 'no disposition'}, duration ${seconds(call.duration ?? 0)}.`);
  for (const [name, item] of /** @type {Array<[string, any]>} */ ([
    ['Recording', t.recording],
    ['Transcript', t.transcript],
  ])) {
    if (!item) continue;
    facts.push(item.ready_at ? `${name} ${item.id} ready at ${stamp(item.ready_at)}.` : `${name} ${item.id}: ${item.status}.`);
  }
  if (t.webhooks.length) {
    const ok = t.webhooks.filter((w) => w.ok).length;
    const last = t.webhooks[t.webhooks.length - 1];
    facts.push(
      `Webhooks: ${plural(t.webhooks.length, 'attempt')}, ${ok} delivered, ${t.webhooks.length - ok} failed; the last, ${last.eventType} attempt ${last.attempt} at ${stamp(last.at)}, ${last.ok ? `delivered (HTTP ${last.status})` : `failed (${last.error ?? `HTTP ${last.status}`})`}.`,
    );
  } else facts.push('No webhook attempts.');
  return facts;
}

/**
 * The track of one call.
 * @param {any} call
 * @param {{ recording: any, transcript: any, webhooks: any[] }} t
 * @param {number} now
 */
export function renderTrack(call, t, now) {
  const created = ms(call.created_at);
  const answered = ms(call.answered_at);
  const ended = ms(call.ended_at);
  const live = !Number.isFinite(ended);
  const lifeEnd = live ? Math.max(now, created) : ended;
  const media = [t.recording?.ready_at, t.transcript?.ready_at].map(ms).filter(Number.isFinite);
  const hooks = t.webhooks.map((w) => ms(w.at));
  const scale = callScale(created, lifeEnd, [...media, ...hooks]);
  const x = scale.x;
  const ringEnd = Number.isFinite(answered) ? answered : lifeEnd;
  const pieces = [];
  if (scale.cut && scale.tail) {
    pieces.push(
      h('span', {
        class: 'cut',
        vars: { '--x': pct(scale.cut.x0), '--w': pct(scale.cut.x1 - scale.cut.x0) },
        title: 'the call ended here; what follows is on a log scale of the time since',
      }),
    );
    pieces.push(h('span', { class: 'tail', vars: { '--x': pct(scale.tail.x0), '--w': pct(scale.tail.x1 - scale.tail.x0) } }));
    for (const tick of scale.ticks) pieces.push(at('grid', tick.x));
  }
  pieces.push(
    bar(
      `bar ringing${live && !Number.isFinite(answered) ? ' open' : ''}`,
      x(created),
      x(ringEnd),
      `ringing ${stamp(call.created_at)} → ${span(ringEnd - created)}`,
    ),
  );
  if (Number.isFinite(answered))
    pieces.push(
      bar(`bar talking${live ? ' open' : ''}`, x(answered), x(lifeEnd), `talking ${stamp(call.answered_at)} → ${span(lifeEnd - answered)}`),
    );
  if (!live)
    pieces.push(
      at(
        `end-cap${call.disposition === 'answered' ? '' : ' unanswered'}`,
        x(ended),
        `ended at ${stamp(call.ended_at)}: ${call.disposition ?? ''}`,
      ),
    );
  if (t.recording?.ready_at)
    pieces.push(at('mark recording', x(ms(t.recording.ready_at)), `recording ${t.recording.id} ready at ${stamp(t.recording.ready_at)}`));
  if (t.transcript?.ready_at)
    pieces.push(
      at('mark transcript', x(ms(t.transcript.ready_at)), `transcript ${t.transcript.id} ready at ${stamp(t.transcript.ready_at)}`),
    );
  const xs = hooks.map(x);
  const lanes = stack(xs);
  t.webhooks.forEach((w, i) => {
    const result = w.ok ? `delivered, HTTP ${w.status}` : (w.error ?? `HTTP ${w.status}`);
    pieces.push(
      h('span', {
        class: `hook ${w.ok ? 'ok' : 'failed'} lane-${lanes[i]}`,
        vars: { '--x': pct(xs[i]) },
        title: `${w.eventType} attempt ${w.attempt}${w.replay ? ` (replay ${w.replay})` : ''} at ${stamp(w.at)}: ${result}`,
      }),
    );
  });
  // Labels under the track: the start, the life's length at its end, the tail's ticks.
  const labels = [
    at('tl-label start', 0, undefined, stamp(call.created_at)),
    at(`tl-label${scale.tail ? ' life-end' : ' end'}`, scale.life.x1, undefined, live ? 'now' : span(lifeEnd - created)),
    ...scale.ticks.map((tick) =>
      at(`tl-label tail-tick${/^\+1 [mhd]$/.test(tick.label) ? ' major' : ''}`, tick.x, `${tick.label} after the call ended`, tick.label),
    ),
  ];
  return { pieces, labels };
}

/** Who picked up, as a card says it (the API's value is the card's `title`). */
const ANSWERERS = /** @type {Record<string, string>} */ ({
  human: 'a person',
  voicemail: 'voicemail',
  ai_receptionist: 'the AI receptionist',
});

/**
 * Who answered a call, once someone has: an AI call says so, since voicemail or a scripted
 * person may pick up before its receptionist does.
 * @param {any} call
 */
function answeredBy(call) {
  if (!call.answered_by) return null;
  const ai = call.ai_receptionist
    ? call.answered_by === 'ai_receptionist'
      ? ` (${call.ai_handler})`
      : ` (AI call, ${call.ai_handler})`
    : '';
  return h(
    'div',
    { class: 'call-answered', 'data-answered-by': call.answered_by, title: `answered_by: ${call.answered_by}` },
    `Answered by ${ANSWERERS[call.answered_by] ?? call.answered_by}${ai}`,
  );
}

/**
 * One call's row.
 * @param {any} call
 * @param {{ recording: any, transcript: any, webhooks: any[] }} t
 * @param {number} now
 * @param {{ open?: boolean }} [options]
 */
export function renderCall(call, t, now, options = {}) {
  const { pieces, labels } = renderTrack(call, t, now);
  const facts = callFacts(call, t, now);
  const outcome =
    call.status === 'completed'
      ? [call.disposition, seconds(call.duration)].filter(Boolean).join(' · ')
      : call.status === 'ringing'
        ? 'ringing…'
        : 'talking…';
  const factsId = `facts-${call.id}`;
  const failed = t.webhooks.filter((w) => !w.ok).length;
  const details = h(
    'details',
    { class: 'call-details', open: options.open || undefined },
    h('summary', { 'data-key': `details:${call.id}` }, 'Details'),
    h(
      'ul',
      { id: factsId, class: 'facts' },
      facts.map((f) => h('li', null, f)),
    ),
  );
  const track = h(
    'div',
    {
      class: 'track',
      tabindex: '0',
      role: 'img',
      'data-key': `track:${call.id}`,
      // Named shortly, described by its facts: a name holding the call's id and its instants would be
      // found by a test's getByLabel('At') (case-insensitive, by substring) as much as the At field.
      'aria-label': 'Call timeline',
      'aria-describedby': factsId,
      onkeydown: (/** @type {KeyboardEvent} */ e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        /** @type {HTMLDetailsElement} */ (details).open = !(/** @type {HTMLDetailsElement} */ (details).open);
      },
    },
    pieces,
  );
  return h(
    'li',
    { class: 'call-row', 'data-id': call.id, 'data-status': call.status, 'data-account': call.account },
    h(
      'div',
      { class: 'call-head' },
      h(
        'div',
        { class: 'call-line' },
        copyId(call.id, 'call-id'),
        h('span', { class: `badge status-${call.status}` }, call.status),
        h('span', { class: `call-outcome disp-${call.disposition ?? 'none'}` }, outcome),
      ),
      h(
        'div',
        { class: 'call-meta' },
        h('span', { class: 'dir', title: call.direction }, call.direction === 'inbound' ? '↙ in' : '↗ out'),
        h('span', { class: 'mono' }, `${call.from} → ${call.to}`),
      ),
      answeredBy(call),
      call.agent || call.extension
        ? h('div', { class: 'call-transfer' }, call.agent ? `Agent ${call.agent}` : `Extension ${call.extension}`)
        : null,
      h(
        'div',
        { class: 'call-key' },
        'Key ',
        h('code', { class: 'mono', title: 'The account (API key) this call belongs to' }, call.account),
      ),
      h(
        'div',
        { class: 'call-links' },
        call.recording_id ? h('a', { href: `#recordings/${call.recording_id}` }, 'Recording') : null,
        call.transcript_id && t.transcript ? h('a', { href: `#recordings/${call.recording_id ?? ''}` }, 'Transcript') : null,
        t.webhooks.length
          ? h('a', { href: `#webhooks?about=${call.id}` }, `Webhooks (${t.webhooks.length}${failed ? `, ${failed} failed` : ''})`)
          : null,
      ),
    ),
    h('div', { class: 'timeline' }, track, h('div', { class: 'tl-labels', 'aria-hidden': 'true' }, labels), details),
  );
}
