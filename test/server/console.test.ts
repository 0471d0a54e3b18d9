import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';

/**
 * The account console (CONTRACT §9) in a real browser: Debian's Chromium driven by
 * playwright-core against a server on 127.0.0.1. Everything is done from the page as a person
 * would (fill "Advance by", press "Advance", "Replay", "Create test key"); the test only
 * places calls through the API and plays a webhook receiver. No fixed sleeps: every wait is a
 * poll on the page.
 *
 * The steps share one page and run in order: the session starts with a ringing call, then
 * a busy one is placed while the page is open, the clock is advanced from the keyboard and
 * with the mouse, the receiver fails every attempt of the answered call's webhook until it
 * is a dead letter, then answers 200 for the replay; a key made on the page places a call.
 */

const CHROMIUM = '/usr/bin/chromium';
const KEY = 'SVC_TEST_console';
const STEP = 15_000;

let server: SandboxServer;
let browser: Browser;
let page: Page;
let receiver: Server;
let receiverStatus = 500;
const received: { headers: IncomingHttpHeaders; body: { id: string } }[] = [];
/** Every URL the page requested, and every console error or uncaught exception it had. */
const requested: string[] = [];
const problems: string[] = [];
let navigations = 0;
let firstCall = '';
let busyCall = '';

async function api(method: string, path: string, body?: unknown, key: string | null = KEY) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Polls until the value matches: the page updates live, on its own time. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 8_000, interval: 20 });

const virtualTime = () => page.locator('#virtual-time').textContent();
const eventItems = () => page.getByRole('list', { name: 'Events, newest first' }).getByRole('listitem');
const eventTypes = () => eventItems().evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
const callRow = (id: string) => page.locator(`.call-row[data-id="${id}"]`);
const deliveryItem = (id: string) => page.getByRole('list', { name: 'Deliveries, newest first' }).locator(`li[data-id="${id}"]`);
const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not visible');
  return b;
};

beforeAll(async () => {
  // The browser is part of the test: no Chromium is a failure, not a skip.
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM} (apt-get install chromium): the console test needs it.`);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(receiverStatus, { 'content-type': 'text/plain' }).end(receiverStatus < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  server = await startServer({ port: 0 });
  const hook = await api('POST', '/v1/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['call.answered'] });
  expect(hook.status).toBe(201);
  const placed = await api('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
  expect(placed.status).toBe(201);
  firstCall = placed.body.id;

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  await page.goto(`${server.url}/__sandbox/console`);
}, 20_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
});

describe('the console', () => {
  it('opens on the default session with its virtual time, event log and calls, and follows the API live', async () => {
    expect(await page.getByLabel('Session').inputValue()).toBe('default');
    expect(await page.getByRole('combobox', { name: 'Session' }).locator('option').allTextContents()).toContain('default');
    expect(await page.getByText('Virtual time', { exact: true }).count()).toBe(1);
    await poll(virtualTime).toBe('2026-01-01 00:00:00');
    await poll(eventTypes).toEqual(['call.started']);
    await poll(() => callRow(firstCall).getAttribute('data-status')).toBe('ringing');
    await page.locator('#live[data-state="open"]').waitFor();

    // A call placed through the API while the page is open appears without a reload.
    const busy = await api('POST', '/v1/calls', { to: '+15005550002', from: '+14155550100' });
    expect(busy.status).toBe(201);
    busyCall = busy.body.id;
    await poll(() => eventItems().count()).toBe(2);
    expect(await eventItems().first().textContent()).toContain(busyCall);
    await poll(() => page.locator('.call-row').count()).toBe(2);
    expect(navigations).toBe(1);
  }, STEP);

  it('advances by keyboard alone: Tab to "Advance by", type a duration, Enter', async () => {
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let tabs = 0;
    while (tabs < 8 && (await page.evaluate(() => document.activeElement?.id)) !== 'advance-by') {
      await page.keyboard.press('Tab');
      tabs += 1;
    }
    // Skip link, session picker, then the field: a short, logical order.
    expect(tabs).toBe(3);
    const outline = await page.getByLabel('Advance by').evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');

    // A bad duration is refused by the server, shown in an alert, and clears on the next try.
    await page.keyboard.type('soon');
    await page.keyboard.press('Enter');
    await poll(() => page.getByRole('alert').filter({ hasText: 'duration' }).count()).toBe(1);
    expect(await page.getByLabel('Advance by').getAttribute('aria-invalid')).toBe('true');
    expect(await virtualTime()).toBe('2026-01-01 00:00:00');

    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('5s');
    await page.keyboard.press('Enter');
    await poll(virtualTime).toBe('2026-01-01 00:00:05');
    await poll(() => page.locator('#advance-error').textContent()).toBe('');
    // Newest first: the first call answered at 00:00:05, the busy one ended at 00:00:01.
    await poll(eventTypes).toEqual(['call.answered', 'call.completed', 'call.started', 'call.started']);
    await poll(() => callRow(busyCall).locator('.call-outcome').textContent()).toBe('busy · 0 s');
    await poll(() => callRow(firstCall).getAttribute('data-status')).toBe('answered');
  }, STEP);

  it('advances 25 h with the mouse: the clock, the event log and each call\'s timeline follow, to scale', async () => {
    await page.getByLabel('Advance by').fill('25h');
    await page.getByRole('button', { name: 'Advance' }).click();
    await poll(virtualTime).toBe('2026-01-02 01:00:05');
    await poll(() => eventTypes().then((types) => types[0])).toBe('transcript.ready');
    expect(await eventTypes()).toEqual(['transcript.ready', 'recording.ready', 'call.completed', 'call.answered', 'call.completed', 'call.started', 'call.started']);
    const times = await eventItems().locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime') ?? ''));
    expect(times).toEqual([...times].sort().reverse());
    expect(await eventItems().first().locator('time').textContent()).toBe('Jan 1 00:01:35');

    // The answered call: ringing 5 s, talking 60 s, completed, recording and transcript ready, failed webhook attempts.
    // Lists are read again as the stream reports changes, also while the advance runs: wait
    // for the row drawn after the last webhook attempt (the 12th, at +17 h 3 m 35 s).
    const row = callRow(firstCall);
    const facts = () => row.locator('ul.sr-only li').allTextContents();
    await poll(async () => (await facts()).some((f) => f.startsWith('Webhooks: 12 attempts, 0 delivered, 12 failed'))).toBe(true);
    expect(await row.getAttribute('data-status')).toBe('completed');
    expect(await row.locator('.call-outcome').textContent()).toBe('answered · 60 s');
    for (const piece of ['.bar.ringing', '.bar.talking', '.end-cap', '.mark.recording', '.mark.transcript']) expect(await row.locator(piece).count(), piece).toBe(1);
    expect(await row.locator('.hook.failed').count()).toBeGreaterThan(0);
    const text = await facts();
    expect(text).toContain('Completed at Jan 1 00:01:05: answered, duration 60 s.');
    expect(text.some((f) => /^Recording rec_\w+ ready at Jan 1 00:01:15\.$/.test(f))).toBe(true);
    expect(text.some((f) => /^Transcript trn_\w+ ready at Jan 1 00:01:35\.$/.test(f))).toBe(true);
    // Drawn to scale on one shared axis: talking (60 s) is 12 times ringing (5 s), and both
    // calls, placed at the same virtual instant, start at the same x.
    const ringing = await box(row.locator('.bar.ringing'));
    const talking = await box(row.locator('.bar.talking'));
    expect(talking.width / ringing.width).toBeGreaterThan(11);
    expect(talking.width / ringing.width).toBeLessThan(13);
    expect(Math.abs(talking.x - (ringing.x + ringing.width))).toBeLessThan(1.5);
    const busyRinging = await box(callRow(busyCall).locator('.bar.ringing'));
    expect(Math.abs(busyRinging.x - ringing.x)).toBeLessThan(1);
    expect(busyRinging.width / ringing.width).toBeCloseTo(1 / 5, 1);
    expect(await callRow(busyCall).locator('.bar.talking').count()).toBe(0);

    // The answered call's webhook is a dead letter after 12 failed attempts.
    await poll(() => page.getByRole('button', { name: 'Replay' }).count()).toBe(1);
    const dead = (await api('GET', '/__sandbox/sessions/default/dead-letters', undefined, null)).body.data;
    expect(dead).toHaveLength(1);
    const attempts = deliveryItem(dead[0].id).locator('tbody tr');
    await poll(() => attempts.count()).toBe(12);
    expect(await attempts.last().locator('.status').textContent()).toBe('500');
    expect(await attempts.last().locator('.result').textContent()).toBe(dead[0].attempts[11].error);

    // The clock moved by the control API (not by the page) shows up too: the stream carries it.
    expect((await api('POST', '/__sandbox/sessions/default/advance', { duration: '5s' }, null)).status).toBe(200);
    await poll(virtualTime).toBe('2026-01-02 01:00:10');
    expect(navigations).toBe(1);
  }, STEP);

  it('replays the dead letter from the page; the replayed attempt shows ok', async () => {
    const [dead] = (await api('GET', '/__sandbox/sessions/default/dead-letters', undefined, null)).body.data;
    const replay = page.getByRole('button', { name: 'Replay' });
    expect(await page.getByRole('button', { name: 'Replay', exact: true }).count()).toBe(1);
    expect((await replay.textContent())?.trim()).toBe('Replay');
    // The accessible name stays `Replay`; what it replays is in its description.
    const description = await replay.evaluate((button) =>
      (button.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    expect(description).toContain(dead.id);

    receiverStatus = 200;
    const before = received.length;
    await replay.click();
    await poll(() => page.getByRole('button', { name: 'Replay' }).count()).toBe(0);
    await poll(() => deliveryItem(dead.id).getAttribute('data-state')).toBe('delivered');
    const last = deliveryItem(dead.id).locator('tbody tr').last();
    expect(await last.getAttribute('data-replay')).toBe('1');
    expect(await last.locator('.status').textContent()).toBe('200');
    expect(await last.locator('.result').textContent()).toBe('ok (replay)');
    expect(received.length).toBe(before + 1);
    expect(received[before]!.headers['x-service-delivery-attempt']).toBe('1');
    expect(received[before]!.body.id).toBe(dead.eventId);

    // On the call's timeline: the linear axis reaches now, where the delivered replay is.
    await page.getByRole('button', { name: 'Linear' }).click();
    expect(await page.getByRole('button', { name: 'Linear' }).getAttribute('aria-pressed')).toBe('true');
    await poll(() => callRow(firstCall).locator('.hook.ok').count()).toBe(1);
    await page.getByRole('button', { name: 'Compact' }).click();
    await poll(() => callRow(firstCall).locator('.hook.ok').count()).toBe(0);
  }, STEP);

  it('creates a test key from the page, and the key works on the API', async () => {
    await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create test key' }).click();
    await poll(() => page.locator('#new-key-value').textContent()).toMatch(/^SVC_TEST_\w+$/);
    const key = (await page.locator('#new-key-value').textContent())!;
    await poll(() => page.getByRole('list', { name: 'API keys' }).getByText(key, { exact: true }).count()).toBe(1);

    const placed = await api('POST', '/v1/calls', { to: '+14155550199', from: '+14155550100' }, key);
    expect(placed.status).toBe(201);
    expect((await api('GET', `/v1/calls/${placed.body.id}`, undefined, key)).status).toBe(200);
    // The key belongs to this session: its call shows up here, live.
    await poll(() => callRow(placed.body.id).count()).toBe(1);
  }, STEP);

  it('names every control, has landmarks, asked nothing of another origin and logged no error', async () => {
    // Chromium's own accessibility tree: every button, field and picker has a name.
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const controls = nodes.filter((n) => !n.ignored && ['button', 'textbox', 'combobox', 'link', 'checkbox', 'listbox', 'searchbox', 'spinbutton'].includes(String(n.role?.value)));
    const unnamed = controls.filter((n) => !String(n.name?.value ?? '').trim()).map((n) => `${n.role?.value} #${n.backendDOMNodeId}`);
    expect(unnamed).toEqual([]);
    // ...and that tree holds every visible control of the DOM.
    const domControls = await page.locator('button:visible, input:visible, select:visible').count();
    expect(controls.filter((n) => ['button', 'textbox', 'combobox'].includes(String(n.role?.value))).length).toBe(domControls);
    expect(domControls).toBeGreaterThanOrEqual(10);
    await cdp.detach();

    expect(await page.getByRole('main').count()).toBe(1);
    expect(await page.getByRole('banner').count()).toBe(1);
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    for (const name of ['Calls', 'Event log', 'Webhook deliveries', 'Dead letters', 'API keys']) {
      expect(await page.getByRole('heading', { level: 2, name, exact: true }).count(), name).toBe(1);
    }

    expect(requested.length).toBeGreaterThan(5);
    expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    // The one refused advance ("soon") is the only failed request, which Chromium reports on
    // the console itself; the page logged nothing and threw nothing.
    expect(problems).toEqual([`console: Failed to load resource: the server responded with a status of 400 (Bad Request) (${server.url}/__sandbox/sessions/default/advance)`]);
    expect(navigations).toBe(1);
  }, STEP);
});
