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
 * playwright-core against a server on 127.0.0.1, through the session a new user drove in issue
 * 19: calls in every disposition (answered, busy, no answer, failed, canceled), a transfer to
 * an agent, a number and a conversation, a receiver failing for a day (every delivery a dead
 * letter), a replay, a new key; then a session of 1,000 calls, and a deleted session.
 *
 * Everything on the page is done as a person would (type a duration, press Advance, Replay,
 * Create test key, pick a key, follow links); the test places calls through the API and plays
 * the webhook receiver. No fixed sleeps: every wait is a poll on the page. Screenshots at
 * 1280 and 390 px go to .screenshots/console/ (ignored by git) for a person to look at.
 */

const KEY = 'SVC_TEST_console';
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
      await poll(() => page.locator('.call-row').count()).toBe(7);
      expect(await callRow(calls.canceled!).locator('.call-outcome').textContent()).toBe('canceled · 0 s');
      expect(await callRow(calls.answered!).locator('.call-key code').textContent()).toBe(KEY);
      expect(await callRow(calls.other!).locator('.call-key code').textContent()).toBe('SVC_TEST_other');
      await poll(() => page.locator('#totals').textContent()).toMatch(
        /^9 events · 7 calls · 1 webhook attempt \(1 failed\) · 0 dead letters$/,
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
      await poll(() => row.locator('.hook.failed').count()).toBe(24);
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
      expect(await row.locator('.tl-label.tail-tick').allTextContents()).toEqual(['+10 s', '+1 m', '+10 m', '+1 h', '+6 h']);

      // Focus the timeline, Enter: the facts, in words.
      await row.locator('.track').focus();
      expect(await row.locator('.track').getAttribute('aria-label')).toContain('Completed at Jan 1 00:01:05: answered, duration 60 s.');
      await page.keyboard.press('Enter');
      await row.locator('.facts').waitFor();
      const facts = await row.locator('.facts li').allTextContents();
      expect(facts).toContain('Completed at Jan 1 00:01:05: answered, duration 60 s.');
      expect(facts.some((f) => /^Webhooks: 24 attempts, 0 delivered, 24 failed/.test(f))).toBe(true);
      expect(facts.some((f) => /^Recording rec_\w+ ready at Jan 1 00:01:15\.$/.test(f))).toBe(true);
      const transferred = await callRow(calls.transferred!).locator('.track').getAttribute('aria-label');
      expect(transferred).toContain('Transferred to agent alice.');
      await shoot('calls-1280');
      expect(await blankBelow()).toBeLessThan(40);
      expect(await cutIds()).toEqual([]);
    },
    STEP,
  );

  it(
    'shows dead letters with what they were about and where they went; Replay shows its result in place, and the delivery is one click away',
    async () => {
      await view('Webhooks');
      const dead = page.locator('.dead-letter');
      const count = Number(await page.locator('#dead-count').textContent());
      await poll(() => dead.count()).toBe(count);
      const first = dead.filter({ has: page.locator(`a[href="#calls/${calls.answered}"]`) }).first();
      expect(await first.locator('.about').textContent()).toBe(`About ${calls.answered}`);
      expect(await first.locator('.delivery-url').textContent()).toBe(`→ ${receiverUrl}`);
      expect(await first.locator('.dead-last').textContent()).toMatch(/^12 attempts; last Jan 1 \d\d:\d\d:\d\d: /);

      // The filter keeps the dead ones.
      await page.getByRole('button', { name: 'Dead', exact: true }).click();
      await poll(() => page.locator('#deliveries > li.delivery').count()).toBe(count);
      await poll(() => page.locator('#deliveries > li.delivery[data-state="dead"]').count()).toBe(count);

      receiverStatus = 200;
      const id = await first.getAttribute('data-id');
      await first.getByRole('button', { name: 'Replay' }).click();
      const replayed = page.locator(`.dead-letter[data-id="${id}"]`);
      await poll(() => replayed.locator('.replay-result').textContent()).toMatch(
        /^Replayed at Jan 2 01:00:05: delivered, HTTP 200 · see its delivery$/,
      );
      expect(await replayed.getByRole('button', { name: 'Replay' }).count()).toBe(0);
      await replayed.getByRole('link', { name: 'see its delivery' }).click();
      const delivery = page.locator(`#deliveries > li.delivery[data-id="${id}"]`);
      await poll(() => delivery.getAttribute('data-state')).toBe('delivered');
      expect(await delivery.locator('tbody tr').last().locator('.result').textContent()).toBe('ok (replay)');
      expect(await page.locator('#about-filter').textContent()).toContain(calls.answered!);
      await shoot('webhooks-1280');
      expect(await blankBelow()).toBeLessThan(40);
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
      await poll(() => page.locator('.call-row').count()).toBe(8);
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
      for (const name of ['Calls', 'Webhooks', 'Recordings', 'Events']) {
        await view(name);
        expect(await blankBelow(), name).toBeLessThan(40);
        expect(await cutIds(), name).toEqual([]);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(wide, name).toBeLessThanOrEqual(390);
        await shoot(`${name.toLowerCase()}-390`);
      }
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
