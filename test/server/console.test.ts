import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { launchChromium } from './chromium.js';

/**
 * The account console (docs/console.md) in a real browser: Debian's Chromium driven by
 * playwright-core against a server on 127.0.0.1, through the session a new user drove in their
 * first week: calls in every disposition (answered, busy, no answer, failed, canceled), a transfer to
 * an agent, an AI receptionist's call, a number and a conversation, a 422 and a burst past the
 * rate limit (the request log), a receiver failing for a day (every delivery a dead letter), a
 * replay that fails and is retried, Replay all, a new key; then a session with exactly one
 * dead letter (the accessible names a user's test finds), a session of 1,000 calls, and a
 * deleted session.
 *
 * Everything on the page is done as a person would (type a duration, press Advance, Replay,
 * Create test key, pick a key, follow links), the new controls with the keyboard alone; the test
 * places calls through the API and plays the webhook receiver. No fixed sleeps: every wait is a
 * poll on the page. Screenshots at 1280 and 390 px go to .screenshots/console/ (ignored by git)
 * for a person to look at.
 */

const KEY = 'SVC_TEST_console';
/** A key long enough for the request log to shorten it. */
const LONG_KEY = 'SVC_TEST_a_rather_long_key_for_the_request_log_42';
const STEP = 20_000;
const SHOTS = join(import.meta.dirname, '..', '..', '.screenshots', 'console');

let server: SandboxServer;
let browser: Browser;
let page: Page;
let receiver: Server;
let receiverStatus = 500;
let receiverUrl = '';
/** Every URL the page requested, and every console error or uncaught exception it had. */
const requested: string[] = [];
const problems: string[] = [];
let navigations = 0;
const calls: Record<string, string> = {};
let number = '';

async function api(method: string, path: string, body?: unknown, key: string | null = KEY) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const control = (method: string, path: string, body?: unknown) => api(method, `/__sandbox${path}`, body, null);
async function place(name: string, to: string, key = KEY) {
  const placed = await api('POST', '/v1/calls', { to, from: '+14155550100' }, key);
  expect(placed.status).toBe(201);
  calls[name] = placed.body.id;
  return placed.body.id as string;
}

/** The id of the last request the journal holds. */
const lastRequestId = async () => {
  let page = (await control('GET', '/sessions/default/requests?limit=200')).body;
  let last = page.data.at(-1)?.requestId as string;
  while (page.has_more) {
    page = (await control('GET', `/sessions/default/requests?limit=200&cursor=${page.next_cursor}`)).body;
    last = page.data.at(-1)?.requestId ?? last;
  }
  return last;
};

/** Polls until the value matches: the page updates live, on its own time. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000, interval: 25 });

const virtualTime = () => page.locator('#virtual-time').textContent();
const callRow = (id: string) => page.locator(`.call-row[data-id="${id}"]`);
const view = async (name: string) => {
  await page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link', { name: new RegExp(`^${name}`) })
    .click();
  await page.locator(`#view-${name.toLowerCase().replace('api keys', 'keys')}:not([hidden])`).waitFor();
};
const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not visible');
  return b;
};
/** The page is as tall as its content: no blank space after the last element. */
const blankBelow = () =>
  page.evaluate(() => {
    const layout = document.querySelector('.layout')!.getBoundingClientRect();
    return document.documentElement.scrollHeight - Math.max(layout.bottom + window.scrollY, window.innerHeight);
  });
/** Ids cut off: any id button whose text overflows its box, or that is not a whole id. */
const cutIds = () =>
  page
    .locator('button.id:visible')
    .evaluateAll((buttons) =>
      buttons
        .filter((b) => b.scrollWidth > b.clientWidth + 1 || !/^[a-z]+_[0-9A-Za-z_]+$|^SVC_TEST_\w+$/.test(b.textContent ?? ''))
        .map((b) => b.textContent),
    );
/** Presses Tab (or `key`) until the focused element matches `selector` (at most `max` presses). */
async function tabTo(selector: string, max = 80, key = 'Tab', on: Page = page) {
  for (let i = 0; i < max; i++) {
    if (await on.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await on.keyboard.press(key);
  }
  throw new Error(`Tab never reached ${selector}`);
}
/** The sticky bars and a control in them are on screen, uncovered, wherever the page is scrolled. */
async function inView(locator: Locator, on: Page = page) {
  const b = await box(locator);
  const viewport = on.viewportSize()!;
  const hit = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return at === el || el.contains(at);
  });
  return b.y >= 0 && b.y + b.height <= viewport.height && hit;
}
/**
 * Words of the transcripts broken across lines: each word's range must lie on one line
 * (a name wrapped "receptionis / t" gives two).
 */
const brokenWords = (on: Page = page) =>
  on.evaluate(() => {
    const broken: string[] = [];
    for (const el of document.querySelectorAll('.segments .speaker, .segments .said')) {
      const text = el.firstChild;
      if (!(text instanceof Text)) continue;
      for (const m of text.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  });
async function shoot(name: string) {
  mkdirSync(SHOTS, { recursive: true });
  // From the top: the navigation is sticky, and would be drawn where the page was scrolled to.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(receiverStatus, { 'content-type': 'text/plain' }).end(receiverStatus < 300 ? 'ok' : 'nope'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startServer({ port: 0 });

  // The session: a receiver for the calls' answers and ends, a number and a conversation, and
  // calls in every disposition (one hung up while it rings: canceled).
  expect((await api('POST', '/v1/webhooks', { url: receiverUrl, events: ['call.answered', 'call.completed'] })).status).toBe(201);
  const provisioned = await api('POST', '/v1/numbers', { kind: 'local', country: 'US' });
  expect(provisioned.status).toBe(201);
  number = provisioned.body.number;
  expect((await api('POST', '/v1/messages', { from: number, to: '+14155550199', body: 'Your code is 1234' })).status).toBe(201);
  expect(
    (await control('POST', '/sessions/default/messages/inbound', { from: '+14155550199', to: number, body: 'Thanks, got it!' })).status,
  ).toBe(201);
  await place('answered', '+14155550123');
  await place('transferred', '+14155550124');
  await place('busy', '+15005550002');
  await place('noAnswer', '+15005550003');
  await place('failed', '+15005550004');
  await place('canceled', '+14155550125');
  expect((await control('POST', `/sessions/default/calls/${calls.canceled}/hang-up`)).status).toBe(200);
  await place('other', '+14155550126', 'SVC_TEST_other');
  // An AI receptionist's call: its transcript's speakers are "receptionist" and "caller".
  const ai = await api('POST', '/v1/calls', { to: '+14155550128', from: '+14155550100', ai_receptionist: true }, 'SVC_TEST_other');
  expect(ai.status).toBe(201);
  calls.ai = ai.body.id;
  // The request log's 422, and a burst of 101 reads in one second of virtual time: the last is a 429.
  expect((await api('POST', '/v1/calls', { to: '+15005550001', from: '+14155550100' })).status).toBe(422);
  const burst = await Promise.all(Array.from({ length: 101 }, () => api('GET', '/v1/calls?limit=1', undefined, LONG_KEY)));
  expect(burst.map((r) => r.status).filter((status) => status === 429)).toHaveLength(1);

  browser = await launchChromium(['--autoplay-policy=no-user-gesture-required']);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  // Loads of a document, not the view changes within it (#calls, #webhooks...).
  page.on('domcontentloaded', () => (navigations += 1));
  await page.goto(`${server.url}/__sandbox/console`);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
});

describe('the console', () => {
  it(
    'opens on the default session: every call with the key it belongs to, the clock, the totals',
    async () => {
      expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('default');
      await poll(virtualTime).toBe('2026-01-01 00:00:00');
      await page.locator('#live[data-state="open"]').waitFor();
      await poll(() => page.locator('.call-row').count()).toBe(8);
      expect(await callRow(calls.canceled!).locator('.call-outcome').textContent()).toBe('canceled · 0 s');
      expect(await callRow(calls.answered!).locator('.call-key code').textContent()).toBe(KEY);
      expect(await callRow(calls.other!).locator('.call-key code').textContent()).toBe('SVC_TEST_other');
      await poll(() => page.locator('#totals').textContent()).toMatch(
        /^10 events · 8 calls · 1 webhook attempt \(1 failed\) · 0 dead letters$/,
      );
      expect(await cutIds()).toEqual([]);
      expect(navigations).toBe(1);
    },
    STEP,
  );

  it(
    'follows the API live: an advance typed at the keyboard, a transfer, a session made elsewhere appears in the picker',
    async () => {
      await page.getByLabel('Advance by').focus();
      await page.keyboard.type('soon');
      await page.keyboard.press('Enter');
      await poll(() => page.getByRole('alert').filter({ hasText: 'duration' }).count()).toBe(1);
      expect(await page.getByLabel('Advance by').getAttribute('aria-invalid')).toBe('true');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('5s');
      await page.keyboard.press('Enter');
      await poll(virtualTime).toBe('2026-01-01 00:00:05');
      await poll(() => callRow(calls.answered!).getAttribute('data-status')).toBe('answered');
      // Who answered, on the card.
      expect(await callRow(calls.answered!).locator('.call-answered').textContent()).toBe('Answered by a person');
      expect(await callRow(calls.ai!).locator('.call-answered').textContent()).toBe('Answered by the AI receptionist (ava)');

      expect((await api('POST', `/v1/calls/${calls.transferred}/transfer`, { agent: 'alice' })).status).toBe(200);
      await poll(() => callRow(calls.transferred!).locator('.call-transfer').textContent()).toBe('Agent alice');

      const made = (await control('POST', '/sessions', {})).body.id as string;
      await poll(() => page.getByLabel('Session', { exact: true }).locator('option').allTextContents()).toContain(made);
      expect(navigations).toBe(1);
    },
    STEP,
  );

  it(
    'advances 25 h: the status line counts the events, attempts and dead letters that happened, as the API does',
    async () => {
      const events = async () => (await control('GET', '/sessions/default/events?limit=200')).body.data.length as number;
      const before = await events();
      const attemptsBefore = (await control('GET', '/sessions/default/deliveries')).body.data.reduce(
        (n: number, d: { attempts: unknown[] }) => n + d.attempts.length,
        0,
      );
      await page.getByRole('button', { name: '+25h' }).click();
      await poll(virtualTime).toBe('2026-01-02 01:00:05');
      const deliveries = (await control('GET', '/sessions/default/deliveries')).body.data as Array<{ attempts: unknown[]; state: string }>;
      const attempts = deliveries.reduce((n, d) => n + d.attempts.length, 0) - attemptsBefore;
      const dead = deliveries.filter((d) => d.state === 'dead').length;
      expect(dead).toBeGreaterThanOrEqual(8);
      const made = (await events()) - before;
      await poll(() => page.locator('#advance-status').textContent()).toBe(
        `Advanced 25 h: ${made} events, ${attempts} webhook attempts (${attempts} failed), ${dead} new dead letters.`,
      );
      expect(await page.locator('#totals').textContent()).toContain(`${dead} dead letters`);
      expect(await page.locator('[data-count="webhooks"]').textContent()).toBe(`${dead} dead`);
    },
    STEP,
  );

  it(
    'draws a 60 s call to its own life after 25 h: bars to scale, every webhook attempt apart, details by keyboard',
    async () => {
      const row = callRow(calls.answered!);
      await poll(() => row.locator('.hook.failed').count()).toBe(26);
      const ringing = await box(row.locator('.bar.ringing'));
      const talking = await box(row.locator('.bar.talking'));
      const track = await box(row.locator('.track'));
      // The talk takes a good part of the track, not 3 px of a day; 60 s is 12 times the 5 s ring.
      expect(talking.width / track.width).toBeGreaterThan(0.25);
      expect(talking.width / ringing.width).toBeGreaterThan(11);
      expect(talking.width / ringing.width).toBeLessThan(13);
      // Recording and transcript marks sit apart from the bars' end and from each other.
      const recording = await box(row.locator('.mark.recording'));
      const transcript = await box(row.locator('.mark.transcript'));
      expect(recording.x).toBeGreaterThan(talking.x + talking.width);
      expect(transcript.x - recording.x).toBeGreaterThan(8);
      // The retries, hours apart, follow the cut on a log scale: at least 12 distinct places, with ticks.
      const xs = await row.locator('.hook').evaluateAll((marks) => marks.map((m) => Math.round(m.getBoundingClientRect().x)));
      expect(new Set(xs).size).toBeGreaterThanOrEqual(12);
      expect(await row.locator('.cut').count()).toBe(1);
      expect(await row.locator('.tl-label.tail-tick').allTextContents()).toEqual(['+10 s', '+1 m', '+10 m', '+1 h', '+6 h', '+1 d']);

      // Focus the timeline, Enter: the facts, in words.
      await row.locator('.track').focus();
      // Named shortly, described by its facts (no name but the At field's holds "at").
      expect(await row.locator('.track').getAttribute('aria-label')).toBe('Call timeline');
      expect(
        await page
          .getByRole('img', { name: 'Call timeline' })
          .first()
          .evaluate((el) => el.getAttribute('aria-describedby')),
      ).toMatch(/^facts-call_/);
      await expect
        .poll(() => row.getByRole('img', { description: /Completed at Jan 1 00:01:05: answered, duration 60 s\./ }).count())
        .toBe(1);
      await page.keyboard.press('Enter');
      await row.locator('.facts').waitFor();
      const facts = await row.locator('.facts li').allTextContents();
      expect(facts).toContain('Completed at Jan 1 00:01:05: answered, duration 60 s.');
      expect(facts.some((f) => /^Webhooks: 26 attempts, 0 delivered, 26 failed/.test(f))).toBe(true);
      expect(facts.some((f) => /^Recording rec_\w+ ready at Jan 1 00:01:15\.$/.test(f))).toBe(true);
      expect(await callRow(calls.transferred!).locator('.facts').textContent()).toContain('Transferred to agent alice.');
      await shoot('calls-1280');
      expect(await blankBelow()).toBeLessThan(40);
      expect(await cutIds()).toEqual([]);
    },
    STEP,
  );

  it(
    'shows dead letters with what they were about and where they went, counted from the cards themselves',
    async () => {
      await view('Webhooks');
      const dead = page.locator('.dead-letter');
      const count = (await control('GET', '/sessions/default/dead-letters?limit=200')).body.data.length as number;
      expect(count).toBeGreaterThanOrEqual(8);
      await poll(() => dead.count()).toBe(count);
      // Every count on the page is the number of cards.
      expect(await page.locator('#dead-count').textContent()).toBe(`${count} dead letters`);
      expect(await page.locator('[data-count="webhooks"]').textContent()).toBe(`${count} dead`);
      expect(await page.locator('#totals').textContent()).toContain(`· ${count} dead letters`);
      const first = dead.filter({ has: page.locator(`a[href="#calls/${calls.answered}"]`) }).first();
      expect(await first.locator('.about').textContent()).toBe(`About ${calls.answered}`);
      expect(await first.locator('.delivery-url').textContent()).toBe(`→ ${receiverUrl}`);
      expect(await first.locator('.dead-last').textContent()).toMatch(/^13 attempts; last Jan 2 \d\d:\d\d:\d\d: /);

      // The filter keeps the dead ones.
      await page.getByRole('button', { name: 'Dead', exact: true }).click();
      await poll(() => page.locator('#deliveries > li.delivery').count()).toBe(count);
      await poll(() => page.locator('#deliveries > li.delivery[data-state="dead"]').count()).toBe(count);
    },
    STEP,
  );

  it(
    'after a failed replay, the card says what is true and follows the delivery live: the attempt that failed, the next one due, then delivered',
    async () => {
      // Regression: the card said "failed again" while the delivery was back in its retry schedule.
      const dead = page.locator('.dead-letter');
      const count = await dead.count();
      const card = dead.filter({ has: page.locator(`a[href="#calls/${calls.answered}"]`) }).first();
      const id = (await card.getAttribute('data-id'))!;
      const replayed = page.locator(`.dead-letter[data-id="${id}"]`);
      const said = () => replayed.locator('.replay-result').textContent();
      receiverStatus = 503;
      // The card's own Replay button, with the keyboard alone.
      await card.getByRole('button', { name: 'Replay' }).focus();
      await page.keyboard.press('Enter');
      await poll(said).toBe(
        'Replay 1: attempt 1 failed (HTTP 503) at Jan 2 01:00:05; retrying at Jan 2 01:00:35, attempt 2 of 13. · see its delivery',
      );
      expect(await replayed.getByRole('button', { name: 'Replay' }).count()).toBe(0);
      // The card stays where it was, and every count still matches the cards.
      expect(await dead.count()).toBe(count);
      expect(await page.locator('#dead-count').textContent()).toBe(`${count - 1} dead letters · 1 replayed`);
      expect(await page.locator('[data-count="webhooks"]').textContent()).toBe(`${count - 1} dead`);
      expect(await page.locator('#totals').textContent()).toContain(`· ${count - 1} dead letters`);

      // The clock moves: the second attempt fails too, the third is due; then the receiver is back.
      await page.getByLabel('Advance by').fill('30s');
      await page.keyboard.press('Enter');
      await poll(said).toBe(
        'Replay 1: attempt 2 failed (HTTP 503) at Jan 2 01:00:35; retrying at Jan 2 01:01:35, attempt 3 of 13. · see its delivery',
      );
      receiverStatus = 200;
      await page.getByLabel('Advance by').fill('1m');
      await page.keyboard.press('Enter');
      await poll(said).toBe('Replay 1: delivered at attempt 3 (HTTP 200), Jan 2 01:01:35 · see its delivery');
      await shoot('replayed-1280');

      // The delivery is one click away, its attempts marked as the replay's.
      await replayed.getByRole('link', { name: 'see its delivery' }).click();
      const delivery = page.locator(`#deliveries > li.delivery[data-id="${id}"]`);
      await poll(() => delivery.getAttribute('data-state')).toBe('delivered');
      expect(await delivery.locator('tbody tr').last().locator('.result').textContent()).toBe('ok (replay)');
      expect(await page.locator('#about-filter').textContent()).toContain(calls.answered!);
    },
    STEP,
  );

  it(
    'Replay all, with the keyboard alone: says what it did, and every card shows its result in place',
    async () => {
      await view('Webhooks');
      const dead = page.locator('.dead-letter');
      const count = await dead.count();
      const waiting = count - 1;
      const all = page.locator('#replay-all');
      expect(waiting).toBeGreaterThanOrEqual(2);
      await poll(() => all.isVisible()).toBe(true);
      expect(await all.textContent()).toBe('Replay all');
      expect(await page.getByRole('button', { name: 'Replay all' }).count()).toBe(1);
      // Each card's own Replay, and Replay all.
      expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(waiting + 1);
      await tabTo('#replay-all');
      await page.keyboard.press('Enter');
      await poll(() => page.locator('#replay-all-status').textContent()).toBe(
        `Replayed ${waiting} dead letters at Jan 2 01:01:35: ${waiting} delivered. Each card says where it stands.`,
      );
      await poll(() => page.locator('.replay-result[data-replay-state="delivered"]').count()).toBe(count);
      expect(await dead.count()).toBe(count);
      expect(await page.locator('#dead-count').textContent()).toBe(`0 dead letters · ${count} replayed`);
      expect(await page.locator('[data-count="webhooks"]').textContent()).not.toMatch(/dead/);
      expect(await all.isHidden()).toBe(true);
      expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(0);
      await shoot('webhooks-1280');
      expect(await blankBelow()).toBeLessThan(40);
    },
    STEP,
  );

  it(
    'keeps the clock bar in view when a view is opened and the page scrolls, and what a view scrolls to clear of it',
    async () => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await view('Events');
      // The nav link scrolls the page to the event log: the bar stays on top, the log starts below it.
      for (const control of [
        page.locator('#virtual-time'),
        page.getByLabel('Advance by'),
        page.getByRole('button', { name: 'Advance', exact: true }),
      ])
        expect(await inView(control)).toBe(true);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
      const bars = await box(page.locator('#bars'));
      expect(bars.y).toBe(0);
      expect(await inView(page.getByRole('button', { name: 'Advance', exact: true }))).toBe(true);
      // The navigation keeps clear of the bar too.
      expect((await box(page.getByRole('navigation', { name: 'Views' }))).y).toBeGreaterThanOrEqual(bars.height);
      await view('Calls');
      await page.evaluate((id) => (location.hash = `calls/${id}`), calls.canceled!);
      await poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
      expect((await box(callRow(calls.canceled!))).y).toBeGreaterThanOrEqual(bars.height);
      expect(await inView(page.locator('#virtual-time'))).toBe(true);
    },
    STEP,
  );

  it(
    "lists every request the API answered, 422s and 429s included, filtered with the keyboard alone; a row opens to the error's message and request id",
    async () => {
      const journal = (await control('GET', '/sessions/default/requests?limit=200')).body as { data: any[]; has_more: boolean };
      expect(journal.has_more).toBe(false);
      await page.evaluate(() => window.scrollTo(0, 0));
      await tabTo('.views a[data-view="requests"]');
      await page.keyboard.press('Enter');
      await page.locator('#view-requests:not([hidden])').waitFor();
      const rows = page.locator('#requests > li.req');
      await poll(() => page.locator('#requests-count').textContent()).toBe(String(journal.data.length));
      // Newest first, as the other views: the burst's 429 on top, the first request (the subscription) last.
      const newest = journal.data.at(-1);
      expect(await rows.first().getAttribute('data-id')).toBe(newest.requestId);
      expect(await rows.last().locator('.path').textContent()).toBe('/v1/webhooks');
      expect(await page.locator('[data-status-count="429"]').textContent()).toBe('1');
      expect(await page.locator('[data-status-count="4xx"]').textContent()).toBe(
        String(journal.data.filter((r) => r.status >= 400 && r.status < 500).length),
      );

      // Opening the view took the keyboard to the list (the address's target): back to the 429 filter, Space.
      await tabTo('[data-status="429"]', 20, 'Shift+Tab');
      await page.keyboard.press('Space');
      await poll(() => rows.count()).toBe(1);
      expect(new URL(page.url()).hash).toBe('#requests?status=429');
      const limited = journal.data.find((r) => r.status === 429);
      const row = rows.first();
      expect(await row.locator('.req-toggle').textContent()).toBe(`Jan 1 00:00:00GET/v1/calls429rate_limited`);
      // The key, shortened, copied whole in one click.
      expect(await row.locator('.copy-short').textContent()).toBe('SVC_TEST_a_rather…g_42');
      await row.locator('.copy-short').focus();
      await page.keyboard.press('Enter');
      await poll(() => page.locator('#announcer').textContent()).toBe(`Copied ${LONG_KEY}.`);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(LONG_KEY);
      // Enter on the row: the message that says what to do, and the request id.
      await row.locator('.req-toggle').focus();
      await page.keyboard.press('Enter');
      await poll(() => row.locator('.req-toggle').getAttribute('aria-expanded')).toBe('true');
      expect(await row.locator('.req-message').textContent()).toBe(limited.errorMessage);
      expect(limited.errorMessage).toMatch(/advance/i);
      expect(await row.locator('.req-facts button.id').first().textContent()).toBe(limited.requestId);
      await shoot('requests-1280');

      // An exact status or an error code, typed: the 422.
      await page.getByLabel('Code', { exact: true }).focus();
      await page.keyboard.type('unreachable_destination');
      await page.keyboard.press('Enter');
      await poll(() => rows.count()).toBe(1);
      expect(await rows.first().locator('.req-status').textContent()).toBe('422');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('4 2 2');
      await page.keyboard.press('Enter');
      expect(await page.locator('#code-error').textContent()).toMatch(/is no status or error code: type a status \(422\)/);
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('422');
      await page.keyboard.press('Enter');
      await poll(() => page.locator('#code-error').textContent()).toBe('');
      expect(await rows.count()).toBe(1);
      // All of them, oldest first.
      await tabTo('[data-status="all"]', 20, 'Shift+Tab');
      await page.keyboard.press('Enter');
      await tabTo('[data-order="oldest"]', 20);
      await page.keyboard.press('Enter');
      await poll(() => rows.first().locator('.path').textContent()).toBe('/v1/webhooks');
      expect(new URL(page.url()).hash).toBe('#requests?order=oldest');

      // Live: a new request joins the log at once, at the end in this order, with nothing asked of the server.
      const before = requested.length;
      await tabTo('[data-order="newest"]', 20, 'Shift+Tab');
      await page.keyboard.press('Enter');
      const refused = await api('POST', '/v1/calls', { to: '+15005550001', from: '+14155550100' });
      expect(refused.status).toBe(422);
      const id = await lastRequestId();
      await poll(() => rows.first().getAttribute('data-id')).toBe(id);
      expect(await rows.first().locator('.req-status').textContent()).toBe('422');
      // (The browser may fetch the page's icon again; it reads no list.)
      expect(requested.slice(before).filter((url) => url.includes('/__sandbox/sessions'))).toEqual([]);
    },
    STEP,
  );

  it(
    'links a call to its recording: a playable WAV, the transcript and summary beside it, and its deliveries',
    async () => {
      await view('Calls');
      await callRow(calls.answered!).getByRole('link', { name: 'Recording' }).click();
      const recordingId = (await api('GET', `/v1/calls/${calls.answered}`)).body.recording_id as string;
      const item = page.locator(`.rec-item[data-id="${recordingId}"]`);
      await item.waitFor();
      const audio = item.locator('audio');
      const played = await audio.evaluate(async (el: HTMLAudioElement) => {
        el.muted = true;
        el.preload = 'auto';
        el.load();
        await new Promise((resolve, reject) => {
          el.addEventListener('loadedmetadata', resolve, { once: true });
          el.addEventListener('error', () => reject(new Error(`audio error ${el.error?.code}`)), { once: true });
          setTimeout(() => reject(new Error(`no metadata: ${el.networkState} ${el.readyState} ${el.currentSrc}`)), 4000);
        });
        await el.play();
        return { duration: el.duration, paused: el.paused };
      });
      expect(played.duration).toBeCloseTo(60, 0);
      expect(played.paused).toBe(false);
      expect(await item.locator('.segments li').count()).toBeGreaterThan(0);
      expect(await item.locator('.summary').textContent()).toMatch(/^Summary: .+/);
      await item.getByRole('link', { name: /^Webhook deliveries/ }).click();
      await poll(() => page.locator('#deliveries > li.delivery').count()).toBe(2);
      await view('Recordings');
      // The AI receptionist's transcript: the speaker column is as wide as "receptionist", no word broken.
      const aiRecording = (await api('GET', `/v1/calls/${calls.ai}`, undefined, 'SVC_TEST_other')).body.recording_id as string;
      const lines = page.locator(`.rec-item[data-id="${aiRecording}"] .segments li`);
      await poll(() => lines.count()).toBeGreaterThan(2);
      expect(await lines.locator('.speaker').allTextContents()).toContain('receptionist');
      expect(await brokenWords()).toEqual([]);
      const columns = await lines.evaluateAll((items) =>
        items.map((li) => {
          const [speaker, said] = [li.querySelector('.speaker')!, li.querySelector('.said')!].map((el) => el.getBoundingClientRect());
          return { speakerLeft: speaker!.left, speakerRight: speaker!.right, saidLeft: said!.left };
        }),
      );
      expect(new Set(columns.map((c) => c.speakerLeft)).size).toBe(1);
      expect(new Set(columns.map((c) => c.saidLeft)).size).toBe(1);
      expect(Math.max(...columns.map((c) => c.speakerRight))).toBeLessThan(columns[0]!.saidLeft);
      await shoot('recordings-1280');
    },
    STEP,
  );

  it(
    'shows messages as a conversation and the numbers',
    async () => {
      await view('Messages');
      const bubbles = page.locator('.conversation .bubble');
      await poll(() => bubbles.count()).toBe(2);
      expect(await bubbles.first().locator('.bubble-body').textContent()).toBe('Your code is 1234');
      expect(await bubbles.last().getAttribute('class')).toContain('inbound');
      await view('Numbers');
      expect(await page.locator('#numbers tbody tr td').first().textContent()).toBe(number);
      expect(await blankBelow()).toBeLessThan(40);
    },
    STEP,
  );

  it(
    'says a new key is a new, empty account, and shows the calls of any key',
    async () => {
      await view('API keys');
      await page.getByRole('button', { name: 'Create test key' }).click();
      await poll(() => page.locator('#new-key-value').textContent()).toMatch(/^SVC_TEST_\w+$/);
      const key = (await page.locator('#new-key-value').textContent())!;
      expect(await page.locator('.new-key-label').textContent()).toContain('a new empty account');
      const item = page.locator(`.key[data-key-id="${key}"]`);
      await poll(() => item.textContent()).toContain('its own account · 0 calls');
      await place('fromNewKey', '+14155550127', key);
      await poll(() => item.textContent()).toContain('its own account · 1 call');
      await item.getByRole('button', { name: 'Show its calls' }).click();
      await poll(() => page.locator('.call-row').count()).toBe(1);
      expect(await page.locator('.call-row').getAttribute('data-id')).toBe(calls.fromNewKey);
      await page.getByLabel('Key', { exact: true }).selectOption(KEY);
      await poll(() => page.locator('.call-row').count()).toBe(6);
      await page.getByLabel('Key', { exact: true }).selectOption('');
      await poll(() => page.locator('.call-row').count()).toBe(9);
    },
    STEP,
  );

  it(
    'copies an id in one click',
    async () => {
      await page.locator(`.call-row[data-id="${calls.busy}"] button.id`).click();
      await poll(() => page.locator('#announcer').textContent()).toBe(`Copied ${calls.busy}.`);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(calls.busy);
    },
    STEP,
  );

  it(
    'at 390 px: nothing cut off, no blank space',
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const name of ['Calls', 'Webhooks', 'Requests', 'Recordings', 'Events']) {
        await view(name);
        expect(await blankBelow(), name).toBeLessThan(40);
        expect(await cutIds(), name).toEqual([]);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(wide, name).toBeLessThanOrEqual(390);
        // The bar stays on screen, short enough to leave the view most of it.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        expect(await inView(page.getByRole('button', { name: 'Advance', exact: true })), name).toBe(true);
        expect((await box(page.locator('#bars'))).height, name).toBeLessThan(844 / 4);
        await shoot(`${name.toLowerCase()}-390`);
      }
      // On a phone, each speaker above their words: still no word broken.
      await view('Recordings');
      expect(await brokenWords()).toEqual([]);
      const stacked = await page
        .locator('.segments li')
        .evaluateAll((items) =>
          items.every(
            (li) => li.querySelector('.speaker')!.getBoundingClientRect().bottom <= li.querySelector('.said')!.getBoundingClientRect().top,
          ),
        );
      expect(stacked).toBe(true);
      await page.setViewportSize({ width: 1280, height: 900 });
      await view('Calls');
    },
    STEP,
  );

  it(
    'names every control, has landmarks, asked nothing of another origin and logged no error',
    async () => {
      const cdp = await page.context().newCDPSession(page);
      const { nodes } = await cdp.send('Accessibility.getFullAXTree');
      const controls = nodes.filter(
        (n) =>
          !n.ignored &&
          ['button', 'textbox', 'combobox', 'link', 'checkbox', 'listbox', 'searchbox', 'spinbutton'].includes(String(n.role?.value)),
      );
      const unnamed = controls.filter((n) => !String(n.name?.value ?? '').trim()).map((n) => `${n.role?.value} #${n.backendDOMNodeId}`);
      expect(unnamed).toEqual([]);
      await cdp.detach();
      expect(await page.getByRole('main').count()).toBe(1);
      expect(await page.getByRole('banner').count()).toBe(1);
      expect(await page.getByRole('navigation', { name: 'Views' }).count()).toBe(1);
      expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
      expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
      // The one refused advance ("soon") is the only failed request, which Chromium reports on its console.
      expect(problems).toEqual([
        `console: Failed to load resource: the server responded with a status of 400 (Bad Request) (${server.url}/__sandbox/sessions/default/advance)`,
      ]);
      expect(navigations).toBe(1);
    },
    STEP,
  );

  it('on a session with exactly one dead letter, the names a test looks for (default, non-exact matching) each find one control', async () => {
    const made = (await control('POST', '/sessions', {})).body as { id: string; apiKey: string };
    receiverStatus = 500;
    expect((await api('POST', '/v1/webhooks', { url: receiverUrl, events: ['call.started'] }, made.apiKey)).status).toBe(201);
    expect((await api('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' }, made.apiKey)).status).toBe(201);
    expect((await control('POST', `/sessions/${made.id}/advance`, { duration: '25h' })).status).toBe(200);
    const one = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await one.goto(`${server.url}/__sandbox/console?session=${made.id}#webhooks`);
    await expect.poll(() => one.locator('.dead-letter').count(), { timeout: 10_000 }).toBe(1);
    // Playwright matches a name by substring, ignoring case: Replay all shows only for two dead letters or more, and no
    // name or label but the At field's holds "at" (a timeline's facts, an id that happens to).
    expect(await one.getByRole('button', { name: 'Replay' }).count()).toBe(1);
    expect(await one.getByRole('button', { name: 'Advance' }).count()).toBe(1);
    expect(await one.getByLabel('Advance by').count()).toBe(1);
    expect(await one.getByLabel('At').count()).toBe(1);
    expect(await one.getByLabel('At').evaluate((el) => el.id)).toBe('at');
    for (const view of ['calls', 'requests', 'recordings', 'events']) {
      await one.evaluate((v) => (location.hash = v), view);
      expect(await one.getByLabel('At').count(), view).toBe(1);
      expect(await one.getByRole('button', { name: 'Advance' }).count(), view).toBe(1);
    }
    await one.evaluate(() => (location.hash = 'keys'));
    expect(await one.getByRole('button', { name: 'Create test key' }).count()).toBe(1);
    await one.evaluate(() => (location.hash = 'webhooks'));
    await one.screenshot({ path: join(SHOTS, 'one-dead-letter-1280.png'), fullPage: true });
    // As a user's test would: the one Replay, on the page.
    receiverStatus = 200;
    await one.getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => one.locator('.replay-result').textContent()).toMatch(/^Replay 1: delivered at attempt 1 \(HTTP 200\), /);
    await one.close();
  }, 30_000);

  it('with 1,000 calls in a session, a new call and its answer cost the page no request; a deleted session is shown as gone, its controls disabled', async () => {
    const made = (await control('POST', '/sessions', {})).body as { id: string };
    // An enterprise key has no rate cap.
    const keys = [(await control('POST', `/sessions/${made.id}/keys`, { plan: 'enterprise' })).body.key as string];
    for (let batch = 0; batch < 20; batch++)
      await Promise.all(Array.from({ length: 50 }, (_, i) => place(`big${batch}-${i}`, '+14155550123', keys[0])));
    // Every call ends, is recorded and transcribed: the page opens on a session at rest.
    expect((await control('POST', `/sessions/${made.id}/advance`, { duration: '10m' })).status).toBe(200);
    const big = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const urls: string[] = [];
    big.on('request', (request) => urls.push(request.url()));
    await big.goto(`${server.url}/__sandbox/console?session=${made.id}`);
    await expect.poll(() => big.locator('#calls-count').textContent(), { timeout: 15_000 }).toBe('1000');
    expect(await big.evaluate(() => (window as unknown as { __consoleLoads: number }).__consoleLoads)).toBe(1);
    const settled = urls.length;

    const id = await place('bigNew', '+14155550123', keys[0]);
    await poll(() => big.locator('#calls-count').textContent()).toBe('1001');
    await poll(() => big.locator(`.call-row[data-id="${id}"]`).getAttribute('data-status')).toBe('ringing');
    expect((await control('POST', `/sessions/${made.id}/advance`, { duration: '5s' })).status).toBe(200);
    await poll(() => big.locator(`.call-row[data-id="${id}"]`).getAttribute('data-status')).toBe('answered');
    expect(urls.slice(settled)).toEqual([]);

    expect((await control('DELETE', `/sessions/${made.id}`)).status).toBe(204);
    await poll(() => big.locator('#banner').textContent()).toMatch(new RegExp(`^Session ${made.id} does not exist`));
    expect(await big.locator('#virtual-time').textContent()).toBe('—');
    expect(await big.locator('#live').textContent()).toBe('No such session');
    expect(await big.getByRole('button', { name: 'Advance', exact: true }).isDisabled()).toBe(true);
    expect(await big.getByRole('button', { name: '+25h' }).isDisabled()).toBe(true);
    expect(await big.locator('.call-row').count()).toBe(0);
    await big.screenshot({ path: join(SHOTS, 'gone-1280.png') });
    await big.close();
  }, 60_000);
});
