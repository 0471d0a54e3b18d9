import { copyId, copyShort, h, plural, seconds, stamp, time } from './dom.js';
import { EVENT_DETAILS } from './events.js';
import { MAX_ATTEMPTS, replayProgress } from './model.js';

/**
 * The views of the account's resources besides calls (timeline.js): messages by conversation,
 * numbers, recordings with their audio and transcript, webhook deliveries, dead letters and
 * subscriptions, the request log's rows, the event log's rows and the keys. Each function builds elements from items
 * of the model (model.js) and reads nothing else; the page (app.js) puts them in place.
 */

const family = (/** @type {string} */ type) => String(type).split('.')[0];
const empty = (/** @type {any[]} */ ...text) => h('p', { class: 'empty' }, ...text);

/** A link to the view of a resource by its id. */
export function resourceLink(/** @type {{ kind: string, id: string }} */ about) {
  const href =
    about.kind === 'call' ? `#calls/${about.id}` : about.kind === 'message' ? `#messages/${about.id}` : `#recordings/${about.id}`;
  return h('a', { href, class: 'mono' }, about.id);
}

/**
 * @param {ReturnType<typeof import('./model.js').conversations>} conversations
 */
export function renderMessages(conversations) {
  if (conversations.length === 0)
    return empty(
      'No messages yet. Send one with ',
      h('code', null, 'POST /v1/messages'),
      ' or deliver an inbound one with ',
      h('code', null, 'POST /__sandbox/sessions/{s}/messages/inbound'),
      '.',
    );
  return h(
    'ul',
    { class: 'conversations' },
    conversations.map((c) =>
      h(
        'li',
        { class: 'conversation', 'data-id': c.id },
        h(
          'div',
          { class: 'conv-head' },
          h('span', { class: 'mono' }, `${c.numbers[0]} ↔ ${c.numbers[1]}`),
          copyId(c.id),
          h('span', { class: 'dim' }, 'Key ', h('code', { class: 'mono' }, c.account)),
        ),
        h(
          'ol',
          { class: 'bubbles' },
          c.messages.map((m) =>
            h(
              'li',
              { class: `bubble ${m.direction}`, 'data-id': m.id, id: `message-${m.id}` },
              h('p', { class: 'bubble-body' }, m.body ?? (m.media?.length ? `(${plural(m.media.length, 'attachment')})` : '')),
              h(
                'p',
                { class: 'bubble-meta' },
                time(/** @type {string} a message always has one */ (m.created_at)),
                ' ',
                h('span', { class: `badge msg-${m.status}` }, m.status),
                ' ',
                m.channel === 'mms' ? 'MMS · ' : '',
                plural(m.segments, 'segment'),
                ' ',
                copyId(m.id),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** @param {any[]} numbers */
export function renderNumbers(numbers) {
  if (numbers.length === 0)
    return empty(
      'No numbers provisioned yet. Search with ',
      h('code', null, 'GET /v1/numbers'),
      ' and provision one with ',
      h('code', null, 'POST /v1/numbers'),
      '.',
    );
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'grid' },
      h('caption', { class: 'sr-only' }, 'Provisioned numbers'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Number', 'Id', 'Kind', 'Routing', 'SMS', 'Key', 'Since'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        numbers.map((n) =>
          h(
            'tr',
            { 'data-id': n.id },
            h('td', { class: 'mono' }, n.number),
            h('td', null, copyId(n.id)),
            h('td', null, `${n.kind} · ${n.country}`),
            h('td', null, n.routing ? `${n.routing.type}${n.routing.target ? ` → ${n.routing.target}` : ''}` : '—'),
            h('td', null, n.sms?.enabled ? 'on' : 'off'),
            h('td', { class: 'mono wrap' }, n.account),
            h('td', null, time(n.created_at)),
          ),
        ),
      ),
    ),
  );
}

/**
 * @param {any[]} recordings
 * @param {(id: string) => any} transcriptOf
 * @param {(id: string) => string} audioUrl
 * @param {(callId: string) => number} deliveriesOf  how many deliveries a call's events (its recording's and transcript's included) have
 */
export function renderRecordings(recordings, transcriptOf, audioUrl, deliveriesOf) {
  if (recordings.length === 0)
    return empty('No recordings yet. An answered call is recorded; its recording is ready 10 s after it ends, its transcript 20 s later.');
  return h(
    'ul',
    { class: 'recordings' },
    recordings.map((r) => {
      const transcript = transcriptOf(r.transcript_id) ?? r.transcript;
      const hooks = deliveriesOf(r.call_id);
      return h(
        'li',
        { class: 'rec-item', 'data-id': r.id, id: `recording-${r.id}` },
        h(
          'div',
          { class: 'rec-media' },
          h(
            'div',
            { class: 'rec-head', id: `rec-head-${r.id}` },
            copyId(r.id),
            h('span', { class: `badge rec-${r.status}` }, r.status),
            h('span', null, seconds(r.duration)),
          ),
          h(
            'p',
            { class: 'rec-meta' },
            'Call ',
            h('a', { href: `#calls/${r.call_id}`, class: 'mono' }, r.call_id),
            r.agent ? ` · agent ${r.agent}` : '',
            ' · ended ',
            time(r.created_at),
          ),
          r.status === 'ready'
            ? h('audio', {
                controls: true,
                preload: 'none',
                src: audioUrl(r.id),
                // Named without its id (an id may hold any letters a test looks for), described by it.
                'aria-label': 'Recording',
                'aria-describedby': `rec-head-${r.id}`,
              })
            : h('p', { class: 'dim' }, 'Processing: the audio is ready at recording.ready.'),
          h(
            'p',
            { class: 'rec-links' },
            hooks
              ? h('a', { href: `#webhooks?about=${r.call_id}` }, `Webhook deliveries of its call (${hooks})`)
              : h('span', { class: 'dim' }, 'No webhook deliveries'),
          ),
        ),
        h(
          'div',
          { class: 'rec-transcript' },
          h(
            'h3',
            null,
            'Transcript ',
            transcript ? copyId(transcript.id) : null,
            transcript ? h('span', { class: `badge trn-${transcript.status}` }, transcript.status) : null,
          ),
          transcript?.summary ? h('p', { class: 'summary' }, h('strong', null, 'Summary: '), transcript.summary) : null,
          transcript?.segments?.length
            ? h(
                'ol',
                { class: 'segments' },
                transcript.segments.map((/** @type {any} */ s) =>
                  h(
                    'li',
                    null,
                    h('span', { class: 'speaker' }, s.speaker),
                    h('span', { class: 'at' }, `${s.start.toFixed(1)} s`),
                    h('span', { class: 'said' }, s.text),
                  ),
                ),
              )
            : h('p', { class: 'dim' }, transcript ? 'Nothing said yet.' : 'No transcript.'),
        ),
      );
    }),
  );
}

/** The attempts of a delivery, as a table. @param {any} d */
export function attemptsTable(d) {
  if (d.attempts.length === 0) return h('p', { class: 'next' }, 'No attempt yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'attempts' },
      h('caption', { class: 'sr-only' }, `Attempts of ${d.id}, ${d.eventType}`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, '#'),
          h('th', { scope: 'col' }, 'Time'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col' }, 'Result'),
        ),
      ),
      h(
        'tbody',
        null,
        d.attempts.map((/** @type {any} */ a) =>
          h(
            'tr',
            { class: a.ok ? 'ok' : 'failed', 'data-attempt': a.attempt, 'data-replay': a.replay },
            h(
              'td',
              { class: 'num' },
              a.replay ? h('span', { class: 'replay-tag', title: `replay ${a.replay}` }, `R${a.replay}·`) : null,
              String(a.attempt),
            ),
            h('td', null, time(a.at)),
            h('td', { class: 'status' }, a.status === null ? '—' : String(a.status)),
            h('td', { class: 'result' }, a.ok ? `ok${a.replay ? ' (replay)' : ''}` : (a.error ?? 'failed')),
          ),
        ),
      ),
    ),
  );
}

/** What a delivery is about: the resource, its call, the receiver. @param {any} d */
function context(d) {
  return [
    h(
      'p',
      { class: 'about' },
      'About ',
      d.about ? resourceLink(d.about) : '—',
      d.call_id && d.call_id !== d.about?.id ? [' of call ', resourceLink({ kind: 'call', id: d.call_id })] : null,
    ),
    h('p', { class: 'delivery-url mono', title: `subscription ${d.subscriptionId}` }, `→ ${d.url}`),
  ];
}

/**
 * One delivery with its context and every attempt.
 * @param {any} d
 * @param {boolean} open  whether its attempts are shown
 */
export function renderDelivery(d, open) {
  const failed = d.attempts.filter((/** @type {any} */ a) => !a.ok).length;
  return h(
    'li',
    { class: `delivery is-${d.state}`, 'data-id': d.id, 'data-state': d.state, id: `delivery-${d.id}` },
    h(
      'div',
      { class: 'delivery-head' },
      h('span', { class: `badge state-${d.state}` }, d.state),
      h('span', { class: `etype fam-${family(d.eventType)}` }, d.eventType),
      copyId(d.id),
      h('span', { class: 'attempt-count' }, `${plural(d.attempts.length, 'attempt')}${failed ? `, ${failed} failed` : ''}`),
    ),
    context(d),
    h('details', { open: open || undefined }, h('summary', { 'data-key': `attempts:${d.id}` }, 'Attempts'), attemptsTable(d)),
    d.nextAttemptAt ? h('p', { class: 'next' }, 'Next attempt at ', time(d.nextAttemptAt)) : null,
  );
}

/**
 * The dead letters, each with what it was about and a Replay button, and the deliveries replayed
 * from the queue, each with where its replay stands now: delivered, back in its retry schedule
 * (which attempt failed, when the next is due), or dead again (then Replay once more). The cards
 * are `deadLetters(model).cards` (model.js), the same reading every count of them comes from.
 * @param {any[]} cards
 * @param {(d: any) => boolean} canReplay  its subscription still exists (else a replay is refused)
 * @param {(d: any, button: HTMLButtonElement) => void} onReplay
 */
export function renderDeadLetters(cards, canReplay, onReplay) {
  if (cards.length === 0)
    return empty(`No dead letters. A delivery lands here when its ${MAX_ATTEMPTS}th attempt fails, 24 h after the first.`);
  return h(
    'ul',
    { class: 'dead-letters' },
    cards.map((d) => {
      const last = d.attempts[d.attempts.length - 1];
      const descId = `dead-${d.id}`;
      const replayable = d.state === 'dead' && canReplay(d);
      return h(
        'li',
        { class: `dead-letter${d.replays ? ' was-replayed' : ''}`, 'data-id': d.id, 'data-state': d.state },
        h(
          'div',
          { class: 'dead-info', id: descId },
          h(
            'div',
            { class: 'delivery-head' },
            h('span', { class: `etype fam-${family(d.eventType)}` }, d.eventType),
            copyId(d.id),
            d.state === 'dead' ? null : h('span', { class: `badge state-${d.state}` }, d.state),
          ),
          context(d),
          h(
            'p',
            { class: 'dead-last' },
            `${plural(d.attempts.length, 'attempt')}${d.replays ? `, ${plural(d.replays, 'replay')}` : ''}; last `,
            last ? time(last.at) : '—',
            last ? `: ${last.error ?? `HTTP ${last.status}`}` : '',
          ),
          replayLine(d),
          d.state === 'dead' && !replayable
            ? h(
                'p',
                { class: 'dim' },
                `Its subscription ${d.subscriptionId} was deleted: it cannot be replayed. Subscribe the receiver again.`,
              )
            : null,
        ),
        replayable
          ? h(
              'button',
              {
                type: 'button',
                class: 'replay',
                'data-key': `replay:${d.id}`,
                'aria-describedby': descId,
                onclick: (/** @type {MouseEvent} */ e) => onReplay(d, /** @type {HTMLButtonElement} */ (e.currentTarget)),
              },
              'Replay',
            )
          : null,
      );
    }),
  );
}

/** Why an attempt failed, shortly: its HTTP status, or what happened when there was none. @param {any} a */
const failure = (a) => (a.status === null ? (a.error ?? 'no answer') : `HTTP ${a.status}`);

/**
 * Where a delivery's last replay stands, in words, as its record says now; null if it was never
 * replayed.
 * @param {any} d
 */
export function replayLine(d) {
  const p = replayProgress(d);
  if (!p) return null;
  const { replay, last } = p;
  const n = p.attempts.length;
  /** @type {[string, any[]]} */
  const [tone, words] =
    p.state === 'delivered'
      ? ['ok', [`delivered at attempt ${n} (HTTP ${last?.status}), `, time(last?.at)]]
      : p.state === 'dead'
        ? ['failed', [`all ${n} attempts failed, the last at `, time(last?.at), ` (${last ? failure(last) : '—'}): a dead letter again.`]]
        : p.state === 'canceled'
          ? ['failed', [`canceled after ${plural(n, 'attempt')}: its subscription was deleted.`]]
          : !last
            ? ['pending', [`attempt 1 of ${MAX_ATTEMPTS} on its way.`]]
            : p.next
              ? [
                  'pending',
                  [
                    `attempt ${n} failed (${failure(last)}) at `,
                    time(last.at),
                    `; retrying at `,
                    time(p.next),
                    `, attempt ${p.nextAttempt} of ${MAX_ATTEMPTS}.`,
                  ],
                ]
              : ['pending', [`attempt ${n} failed (${failure(last)}); attempt ${p.nextAttempt} of ${MAX_ATTEMPTS} on its way.`]];
  return h(
    'p',
    { class: `replay-result ${tone}`, 'data-replay-state': p.state },
    `Replay ${replay}: `,
    words,
    ' · ',
    h('a', { href: `#webhooks?about=${d.about?.id ?? ''}` }, 'see its delivery'),
  );
}

/**
 * What Replay all did, in words, from the first attempt of each dead letter it sent again (the
 * answer of `POST /__sandbox/sessions/{s}/dead-letters/replay`).
 * @param {any[]} attempts
 */
export function redelivered(attempts) {
  if (attempts.length === 0) return 'No dead letter to redeliver: each was replayed already, or its subscription is gone.';
  const ok = attempts.filter((a) => a.ok).length;
  const failed = attempts.length - ok;
  const parts = [ok ? `${ok} delivered` : '', failed ? `${failed} retrying (the first attempt failed)` : ''];
  return `Replayed ${plural(attempts.length, 'dead letter')} at ${stamp(attempts[0].at)}: ${parts.filter(Boolean).join(', ')}. Each card says where it stands.`;
}

/** @param {any[]} subscriptions */
export function renderSubscriptions(subscriptions) {
  if (subscriptions.length === 0)
    return empty('No webhook subscriptions. Subscribe a receiver with ', h('code', null, 'POST /v1/webhooks'), '.');
  return h(
    'ul',
    { class: 'subscriptions' },
    subscriptions.map((s) =>
      h(
        'li',
        { 'data-id': s.id },
        copyId(s.id),
        h('span', { class: 'mono wrap' }, s.url),
        h('span', { class: 'dim' }, s.events.join(', ')),
        h('span', { class: 'dim' }, 'Key ', h('code', { class: 'mono' }, s.account)),
      ),
    ),
  );
}

/**
 * One row of the request log: a button with the time, method, documented path, status and error
 * code that shows or hides the rest (the error message, the request id, the request's own path,
 * the whole key), and the key, shortened and copied whole in one click.
 * @param {any} entry  a journal entry, as `GET /__sandbox/sessions/{s}/requests` gives it
 * @param {boolean} open
 * @param {(requestId: string) => void} onToggle
 */
export function renderRequest(entry, open, onToggle) {
  const more = `req-more-${entry.requestId}`;
  const status = entry.status === 0 ? '—' : String(entry.status);
  const tone = entry.status === 0 ? 'none' : `${Math.floor(entry.status / 100)}xx`;
  return h(
    'li',
    { class: `req s${tone}`, 'data-id': entry.requestId, 'data-status': entry.status },
    h(
      'button',
      {
        type: 'button',
        class: 'req-toggle',
        'aria-expanded': String(open),
        'aria-controls': more,
        'data-key': `req:${entry.requestId}`,
        onclick: () => onToggle(entry.requestId),
      },
      time(entry.at),
      h('span', { class: 'method' }, entry.method),
      h('span', { class: 'path mono' }, entry.path),
      h('span', { class: `badge req-status s${tone}`, title: entry.status === 0 ? 'no answer: a network fault' : undefined }, status),
      h('span', { class: 'ecode mono' }, entry.errorCode ?? ''),
    ),
    entry.apiKey ? copyShort(entry.apiKey) : h('span', { class: 'dim no-key' }, 'no key'),
    h(
      'div',
      { class: 'req-more', id: more, hidden: !open },
      entry.errorMessage ? h('p', { class: 'req-message' }, entry.errorMessage) : h('p', { class: 'dim' }, 'Answered without an error.'),
      h(
        'dl',
        { class: 'req-facts' },
        h('dt', null, 'Request id'),
        h('dd', null, copyId(entry.requestId)),
        h('dt', null, 'Sent to'),
        h('dd', { class: 'mono wrap' }, `${entry.method} ${entry.target}`),
        h('dt', null, 'Key'),
        h('dd', null, entry.apiKey ? copyId(entry.apiKey) : 'none'),
      ),
    ),
  );
}

/** One row of the event log. @param {any} event @param {boolean} fresh */
export function eventItem(event, fresh) {
  const data = event.data ?? {};
  return h(
    'li',
    { class: `event${fresh ? ' fresh' : ''}`, 'data-type': event.type, 'data-id': event.id },
    time(event.created_at),
    h('span', { class: `etype fam-${family(event.type)}` }, event.type),
    copyId(data.id ?? event.id, 'subject'),
    h('span', { class: 'detail' }, eventDetail(event.type, data)),
  );
}

/**
 * What the event log shows beside a type: its template of console/events.js filled with the
 * event's data, each ` · ` part only when one of its fields has a value.
 * @param {string} type @param {any} data
 */
function eventDetail(type, data) {
  const template = EVENT_DETAILS[type] ?? 'call {call_id}';
  return template
    .split(' · ')
    .map((part) => {
      let filled = false;
      const text = part.replace(/\{(\w+)(\|s)?\}/g, (_, field, unit) => {
        const value = data[field];
        if (value === null || value === undefined || value === '') return '';
        filled = true;
        return unit ? seconds(value) : String(value);
      });
      return filled ? text : '';
    })
    .filter(Boolean)
    .join(' · ');
}

/**
 * The keys made in the session, each with the account it opens and its calls.
 * @param {any[]} keys
 * @param {(account: string) => number} callsOf
 * @param {(account: string) => void} showCalls
 */
export function renderKeys(keys, callsOf, showCalls) {
  if (keys.length === 0) return [h('li', { class: 'empty' }, 'No keys made in this session yet.')];
  return [...keys].reverse().map((k) => {
    const account = k.account ?? k.key;
    const n = callsOf(account);
    return h(
      'li',
      { class: 'key', 'data-key-id': k.key },
      copyId(k.key),
      h(
        'span',
        { class: 'dim' },
        account === k.key ? 'its own account' : ['account ', h('code', { class: 'mono' }, account)],
        ' · ',
        plural(n, 'call'),
        ' · made ',
        time(k.createdAt),
      ),
      n ? h('button', { type: 'button', 'data-key': `calls-of:${k.key}`, onclick: () => showCalls(account) }, `Show its calls`) : null,
    );
  });
}
