// @vitest-environment happy-dom
import { fetch as nodeFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { type ShowServer, startShow } from '../../src/server/show.js';
import { openShowPage } from './show-page.js';

/**
 * The console's time control (console/show.js with app.js) under happy-dom, on a real show
 * server over a real snapshot: a call to a number that answers and one to a busy number, then
 * a refused one (422), then two minutes. The page is driven as a reader drives it: an address with
 * ?at=, the `At` field, the keys and the buttons; what it shows (the calls, the event log, the
 * request log) is checked against what the session was then.
 */

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
let show: ShowServer;
let answered = '';
let busy = '';
const requests: string[] = [];

beforeAll(async () => {
  const sandbox = createSandbox({ seed: 7 });
  const place = async (to: string) => {
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: 'Bearer SVC_TEST_me', 'content-type': 'application/json' },
        body: JSON.stringify({ to, from: '+14155550100' }),
      }),
    );
    return ((await res.json()) as { id: string }).id;
  };
  answered = await place('+14155550123');
  await sandbox.advance('3s');
  busy = await place('+15005550002');
  await place('+15005550001'); // 422: no carrier serves it
  await sandbox.advance('2m');
  show = await startShow({ file: 'snapshots/failed.json', snapshot: JSON.parse(JSON.stringify(sandbox.snapshot())), port: 0 });
  sandbox.close();
  // The page's requests go to the show server, over HTTP.
  openShowPage(show, '2026-01-01T00:00:02Z', (path) => requests.push(path));
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await show.close();
});

const $ = (id: string) => document.getElementById(id)!;
const field = () => $('at') as HTMLInputElement;
const status = (id: string) => document.querySelector(`.call-row[data-id="${id}"] .badge`)?.textContent;
const shownAt = () => new URL(location.href).searchParams.get('at');
const key = (target: EventTarget, init: KeyboardEventInit) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init }));
/** Waits until the page shows `at` (its requests are real HTTP). */
const until = (at: number) => vi.waitFor(() => expect(shownAt()).toBe(iso(at)), { timeout: 5000, interval: 10 });

describe('the console over a snapshot (svc-sandbox show)', () => {
  it('opens at the address’s instant: the first call ringing, the second not placed yet', async () => {
    await until(T0 + 2000);
    expect(field().value).toBe('2026-01-01T00:00:02.000Z');
    expect(status(answered)).toBe('ringing');
    expect(document.querySelector(`.call-row[data-id="${busy}"]`)).toBeNull();
    expect($('virtual-time').textContent).toBe('2026-01-01 00:00:02');
    expect($('at-status').textContent).toMatch(
      /^Jan 1 00:00:02 \(2 s after the start, 2 m 1 s before the end\)\. Last event: 1 of \d+, call\.started of call_/,
    );
    expect($('show-file').textContent).toBe('snapshots/failed.json');
    expect($('live').textContent).toBe('Snapshot, read-only');
    // Read-only: what would change the session is disabled (and hidden by the page's style).
    for (const id of ['advance-by', 'create-key']) expect(($(id) as HTMLButtonElement).disabled, id).toBe(true);
    // A mark per event on the axis; those after the instant dim, the last before it current.
    const marks = document.querySelectorAll('.axis-mark');
    expect(marks.length).toBe(show.history.eventInstants.length);
    expect(document.querySelectorAll('.axis-mark:not(.after)')).toHaveLength(1);
    expect(document.querySelector('.axis-mark.current')).toBe(marks[0]);
    expect(document.querySelector(`.call-row.current`)?.getAttribute('data-id')).toBe(answered);
    expect(requests.filter((r) => r.includes('/stream'))).toEqual([]);
  });

  it('steps from event to event with ] and [, Alt+→ and Alt+←, ↓ and ↑ in the field', async () => {
    key(document.body, { key: ']' });
    await until(T0 + 3000); // the busy call placed
    expect(status(busy)).toBe('ringing');
    key(document.body, { key: ']' });
    await until(T0 + 4000); // busy after 1 s
    expect(status(busy)).toBe('completed');
    expect(status(answered)).toBe('ringing');
    key(document.body, { key: 'ArrowRight', altKey: true });
    await until(T0 + 5000);
    expect(status(answered)).toBe('answered');
    key(field(), { key: 'ArrowUp' });
    await until(T0 + 4000);
    key(document.body, { key: '[' });
    await until(T0 + 3000);
    key(document.body, { key: 'ArrowLeft', altKey: true });
    await until(T0);
    expect(($('at-start') as HTMLButtonElement).disabled).toBe(true);
    key(field(), { key: 'ArrowDown' });
    await until(T0 + 3000);
    // A step asks for what changed since the instant on screen, not the whole session again.
    expect(requests.at(-1)).toMatch(/^\/__sandbox\/show\/state\?at=2026-01-01T00%3A00%3A03\.000Z&from=2026-01-01T00%3A00%3A00\.000Z$/);
    // `[` typed into the field is text, not a step.
    field().focus();
    const typed = key(field(), { key: '[' });
    expect(typed).toBe(true);
  });

  it('goes to a typed instant, refuses one that is not, and goes to the end: both calls completed', async () => {
    field().value = '+66s';
    ($('at-form') as HTMLFormElement).requestSubmit();
    await until(T0 + 66_000);
    expect(field().value).toBe('2026-01-01T00:01:06.000Z');
    expect(status(answered)).toBe('completed');

    field().value = 'yesterday';
    ($('at-form') as HTMLFormElement).requestSubmit();
    expect($('at-error').textContent).toMatch(/“yesterday” is not an instant: type an ISO 8601 time such as 2026-01-01T00:00:00.000Z/);
    expect(field().getAttribute('aria-invalid')).toBe('true');
    expect(shownAt()).toBe(iso(T0 + 66_000));

    ($('at-end') as HTMLButtonElement).click();
    await until(show.history.end);
    expect($('at-error').textContent).toBe('');
    expect(status(answered)).toBe('completed');
    expect(status(busy)).toBe('completed');
    expect(($('next-event') as HTMLButtonElement).disabled).toBe(true);
    expect($('at-status').textContent).toMatch(/\(the end, when the snapshot was taken\)/);
    // The event log holds every event by then, newest first, the last highlighted.
    const events = [...document.querySelectorAll('#events .event')];
    expect(events).toHaveLength(show.history.eventInstants.length);
    expect(events[0]!.classList.contains('current')).toBe(true);
    expect(events[0]!.getAttribute('data-id')).toBe(JSON.parse([...show.history.marksJson()].join('')).at(-1).id);
  });
});

/**
 * The elements a test's `page.getByLabel(text)` finds, as Playwright finds them (by default: the
 * text anywhere in a label, any case): those named by `aria-labelledby` or `aria-label`, and
 * form controls by their `<label>`.
 */
function byLabel(text: string): Element[] {
  const labelsOf = (el: Element): string[] => {
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '');
    const aria = el.getAttribute('aria-label');
    if (aria?.trim()) return [aria];
    if (!el.matches('button, meter, output, progress, select, textarea, input:not([type="hidden"])') || !el.id) return [];
    return [...document.querySelectorAll(`label[for="${el.id}"]`)].map((l) => l.textContent ?? '');
  };
  return [...document.querySelectorAll('*')].filter((el) => labelsOf(el).some((l) => l.toLowerCase().includes(text.toLowerCase())));
}

describe("the request log over a snapshot, and the page's labels", () => {
  const rows = () =>
    [...document.querySelectorAll('#requests > li.req')].map(
      (li) => `${li.querySelector('.method')?.textContent} ${li.getAttribute('data-status')}`,
    );

  it('shows the requests answered by the instant shown, counted by the filters from the same rows', async () => {
    location.hash = 'requests';
    await vi.waitFor(() => expect($('view-requests').hidden).toBe(false), { timeout: 5000 });
    // At the end: all three, newest first.
    expect(rows()).toEqual(['POST 422', 'POST 201', 'POST 201']);
    expect(document.querySelector('[data-status-count="4xx"]')?.textContent).toBe('1');
    expect($('requests-count').textContent).toBe('3');
    field().value = '+2s';
    ($('at-form') as HTMLFormElement).requestSubmit();
    await until(T0 + 2000);
    expect(rows()).toEqual(['POST 201']);
    expect(document.querySelector('[data-status-count="4xx"]')?.textContent).toBe('0');
    expect($('requests-count').textContent).toBe('1');
    key(document.body, { key: ']' });
    await until(T0 + 3000);
    expect(rows()).toEqual(['POST 422', 'POST 201', 'POST 201']);
    // The 422's row opens to what the API said, and its request id.
    const refused = document.querySelector('#requests > li.req[data-status="422"]')!;
    (refused.querySelector('button.req-toggle') as HTMLButtonElement).click();
    await vi.waitFor(() =>
      expect((document.querySelector('#requests > li.req[data-status="422"] .req-more') as HTMLElement).hidden).toBe(false),
    );
    expect(document.querySelector('#requests > li.req[data-status="422"] .req-message')?.textContent).toMatch(/\+15005550001/);
    expect(requests.filter((r) => r.startsWith('/__sandbox/sessions/default/requests'))).toHaveLength(1);
  });

  it('leaves the label "At" to the At field alone, whatever the page shows (ids, timelines, audio)', async () => {
    for (const view of ['calls', 'recordings', 'webhooks', 'requests', 'events', 'keys']) {
      location.hash = view;
      await vi.waitFor(() => expect($(`view-${view}`).hidden).toBe(false));
      expect(
        byLabel('at').map((el) => el.id),
        view,
      ).toEqual(['at']);
      expect(byLabel('Advance by').map((el) => el.id)).toEqual(['advance-by']);
    }
  });
});

describe("the show server's request journal", () => {
  it('is paged as the live server pages it, and refuses what is not a page', async () => {
    const first = await nodeFetch(`${show.url}/__sandbox/sessions/default/requests?limit=2`);
    const page = (await first.json()) as { data: Array<{ status: number }>; has_more: boolean; next_cursor: string };
    expect(page.data.map((r) => r.status)).toEqual([201, 201]);
    expect(page.has_more).toBe(true);
    const next = (await (await nodeFetch(`${show.url}/__sandbox/sessions/default/requests?limit=2&cursor=${page.next_cursor}`)).json()) as {
      data: Array<{ status: number; errorCode: string }>;
      has_more: boolean;
    };
    expect(next.data).toMatchObject([{ status: 422, errorCode: 'unreachable_destination' }]);
    expect(next.has_more).toBe(false);
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['cursor=nope', 'cursor'],
      ['when=now', 'when'],
    ]) {
      const res = await nodeFetch(`${show.url}/__sandbox/sessions/default/requests?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param, query).toBe(param);
    }
  });
});
