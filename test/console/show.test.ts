// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetch as nodeFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { start } from '../../console/app.js';
import { createSandbox } from '../../src/index.js';
import { type ShowServer, startShow } from '../../src/server/show.js';

/**
 * The console's time control (console/show.js with app.js) under happy-dom, on a real show
 * server over a real snapshot: a call to a number that answers and one to a busy number, then
 * two minutes. The page is driven as a reader drives it: an address with ?at=, the `At` field,
 * the keys and the buttons; what it shows is checked against what the session was then.
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
  await sandbox.advance('2m');
  show = await startShow({ file: 'snapshots/failed.json', snapshot: JSON.parse(JSON.stringify(sandbox.snapshot())), port: 0 });
  sandbox.close();
  // The page's requests go to the show server, over HTTP.
  vi.stubGlobal('fetch', async (path: string, init?: RequestInit) => {
    requests.push(path);
    const res = await nodeFetch(`${show.url}${path}`, init as never);
    return new Response(await res.text(), { status: res.status, headers: { 'content-type': 'application/json' } });
  });
  const html = readFileSync(join(import.meta.dirname, '..', '..', 'console', 'index.html'), 'utf8');
  document.documentElement.innerHTML = html.replace(/<script[^>]*><\/script>|<link[^>]*>/g, '');
  document.documentElement.dataset.mode = 'show';
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${show.consoleUrl}?at=2026-01-01T00:00:02Z`);
  start(document);
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
    expect(marks.length).toBe(show.history.events.length);
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
    expect(events).toHaveLength(show.history.events.length);
    expect(events[0]!.classList.contains('current')).toBe(true);
    expect(events[0]!.getAttribute('data-id')).toBe(show.history.events.at(-1)!.id);
  });
});
