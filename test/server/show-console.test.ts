import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from './built-cli.js';
import { launchChromium } from './chromium.js';

/**
 * Debugging a run after it ended, end to end (docs/debugging.md): a user's vitest suite fails
 * with `SVC_SANDBOX_SNAPSHOTS=snapshots`; the failure says `npx svc-sandbox show snapshots/….json`;
 * that command, run as printed, serves the console over the snapshot; in Debian's Chromium the
 * reader goes, with the keyboard alone, to an early instant (the call ringing), steps from event
 * to event, and back to the end (the call completed), at 1280 and 390 px; the request log shows
 * the requests answered by the instant shown, and the time bar stays in view as the page scrolls.
 * Screenshots go to .screenshots/show/ (ignored by git) for a person to look at.
 */

const SHOTS = join(ROOT, '.screenshots', 'show');
const work = mkdtempSync(join(tmpdir(), 'svc-show-console-'));

let suite: { code: number | null; output: string };
let printed = '';
let show: ChildProcess;
let consoleUrl = '';
let browser: Browser;
const problems: string[] = [];
const requested: string[] = [];

/** Runs a command to its end, within `limitMs` (then it is killed: a bound, never a wait). */
function finish(child: ChildProcess, limitMs: number): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    }),
  );
}

beforeAll(async () => {
  await ensureBuilt();
  // A user's failing test, with svc-sandbox/vitest (the built entry, by its path).
  writeFileSync(
    join(work, 'voicemail.test.ts'),
    `import { expect, test } from ${JSON.stringify(`${ROOT}dist/vitest.js`)};
const headers = { authorization: 'Bearer SVC_TEST_ci', 'content-type': 'application/json' };
test('a call to a customer reaches their voicemail', async ({ sandbox }) => {
  const res = await fetch(\`\${sandbox.baseUrl}/v1/calls\`, { method: 'POST', headers, body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }) });
  const call = await res.json();
  await sandbox.advanceUntil('call.completed');
  await fetch(\`\${sandbox.baseUrl}/v1/calls/\${call.id}\`, { headers });
  expect(sandbox.calls.get(call.id)?.answered_by).toBe('voicemail');
});
test('a passing test keeps no snapshot', ({ sandbox }) => {
  expect(sandbox.baseUrl).toBe('https://api.svc.test');
});
`,
  );
  // Its own environment, not this run's (vitest's variables would tell the child it is a worker).
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    SVC_SANDBOX_SNAPSHOTS: 'snapshots',
    NO_COLOR: '1',
    CI: 'true',
  };
  suite = await finish(
    spawn(process.execPath, [`${ROOT}node_modules/vitest/vitest.mjs`, 'run', '--root', work], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    120_000,
  );
  printed = /svc-sandbox show (\S+\.json)/.exec(suite.output)?.[1] ?? '';
  // The command as the failure printed it, from where the suite ran.
  show = spawn(process.execPath, [CLI, 'show', printed], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  consoleUrl = await new Promise<string>((resolve, reject) => {
    show.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const line = /^svc-sandbox showing .* on (http:\S+)\n/.exec(out);
      if (line) resolve(line[1]!);
    });
    show.once('exit', (code) => reject(new Error(`show exited ${code} before it was ready: ${out}`)));
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  show?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

async function open(width: number, height: number, query = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await page.goto(`${consoleUrl}${query}`);
  return page;
}
async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
/** The one call's status badge, as the page shows it now (it updates on its own time: polled). */
const status = (page: Page) => page.locator('.call-row .badge').first();
const at = (page: Page) => new URL(page.url()).searchParams.get('at');
/** The request log's rows as the page holds them (whatever view is on screen), newest first: method, path, status. */
const requestRows = (page: Page) =>
  page
    .locator('#requests > li.req')
    .evaluateAll((rows) =>
      rows.map(
        (r) => `${r.querySelector('.method')?.textContent} ${r.querySelector('.path')?.textContent} ${r.getAttribute('data-status')}`,
      ),
    );
/** The element is on screen and nothing covers its middle. */
const uncovered = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return r.top >= 0 && r.bottom <= window.innerHeight && (hit === el || el.contains(hit));
  });

describe('a failed test, then svc-sandbox show', () => {
  it('the failure says how to open its snapshot, and that command serves it', () => {
    expect(suite.code).toBe(1);
    expect(printed).toBe('snapshots/voicemail.test.ts_a_call_to_a_customer_reaches_their_voicemail.json');
    // Printed with the failure: after the assertion's message, before the failure's source excerpt.
    const failure = suite.output.slice(suite.output.indexOf('FAIL  voicemail.test.ts > a call to a customer reaches their voicemail'));
    expect(failure).toMatch(
      /AssertionError: expected 'human' to be 'voicemail'.*\n\nnpx svc-sandbox show snapshots\/voicemail.test.ts_a_call_to_a_customer_reaches_their_voicemail.json\n/s,
    );
    expect(suite.output.match(/svc-sandbox show /g)).toHaveLength(1); // the passing test kept none
    expect(existsSync(join(work, printed))).toBe(true);
    expect(consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__sandbox\/console$/);
  });

  it('at 1280 px, with the keyboard alone: to an early instant (ringing), event by event, to the end (completed)', async () => {
    const page = await open(1280, 900);
    // It opens at the end: where the test failed.
    await expect.poll(() => status(page).textContent(), { timeout: 10_000 }).toBe('completed');
    await expect.poll(() => page.locator('.axis-mark').count()).toBe(3);
    expect(await page.locator('#at-status').textContent()).toMatch(/\(the end, when the snapshot was taken\)\. Last event: 3 of 3/);
    expect(await page.getByRole('button', { name: 'Advance', exact: true }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Create test key' }).isVisible()).toBe(false);
    await shoot(page, 'end-1280');

    for (let i = 0; i < 40 && (await page.evaluate(() => document.activeElement?.id)) !== 'at'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('at');
    // The one element a test's getByLabel('At') finds, by default (substring, any case) matching too.
    expect(await page.getByLabel('At', { exact: true }).evaluate((input) => input.id)).toBe('at');
    expect(await page.getByLabel('At').count()).toBe(1);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2026-01-01T00:00:02Z');
    await page.keyboard.press('Enter');
    await expect.poll(() => status(page).textContent()).toBe('ringing');
    expect(at(page)).toBe('2026-01-01T00:00:02.000Z');
    expect(await page.locator('#virtual-time').textContent()).toBe('2026-01-01 00:00:02');
    await shoot(page, 'ringing-1280');

    await page.keyboard.press('ArrowDown'); // the next event: answered at 5 s
    await expect.poll(() => status(page).textContent()).toBe('answered');
    expect(at(page)).toBe('2026-01-01T00:00:05.000Z');
    await page.keyboard.press('Tab'); // off the field, to the Show button: [ and ] step from anywhere
    await page.keyboard.press(']');
    await expect.poll(() => status(page).textContent()).toBe('completed');
    expect(at(page)).toBe('2026-01-01T00:01:05.000Z');
    await page.keyboard.press('[');
    await expect.poll(() => at(page)).toBe('2026-01-01T00:00:05.000Z');
    await page.keyboard.press('Alt+ArrowLeft');
    await expect.poll(() => status(page).textContent()).toBe('ringing');
    expect(at(page)).toBe('2026-01-01T00:00:00.000Z');
    expect(page.url()).toMatch(/\/__sandbox\/console\?at=/); // Alt+← stepped in time, not back in the browser's history
    await shoot(page, 'start-1280');
    // To the end with the End button, reached by Tab.
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'at-end'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => status(page).textContent()).toBe('completed');
    expect(await page.locator('.event.current').count()).toBe(1);
    // The time bar stays in view as the page scrolls (a short window, so that one call's page scrolls).
    await page.setViewportSize({ width: 1280, height: 480 });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
    expect(await uncovered(page, '#at')).toBe(true);
    expect(await uncovered(page, '#next-event')).toBe(true);
    await page.close();
  });

  it('at 390 px, opened at ?at=: the call ringing, nothing wider than the screen', async () => {
    const page = await open(390, 844, '?at=2026-01-01T00:00:02Z');
    await expect.poll(() => status(page).textContent(), { timeout: 10_000 }).toBe('ringing');
    expect(await page.getByLabel('At', { exact: true }).inputValue()).toBe('2026-01-01T00:00:02.000Z');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const field = await page.locator('#at').boundingBox();
    expect(field!.x + field!.width).toBeLessThanOrEqual(390);
    await shoot(page, 'ringing-390');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
    expect(await uncovered(page, '#at')).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByRole('button', { name: 'Next event' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => at(page)).toBe('2026-01-01T00:00:05.000Z');
    await shoot(page, 'answered-390');
    await page.close();
  });

  it('the request log at the instant shown: the call placed at the start, the read after its end only from then on', async () => {
    const page = await open(1280, 900, '?at=2026-01-01T00:00:02Z#requests');
    await expect.poll(() => requestRows(page), { timeout: 10_000 }).toEqual(['POST /v1/calls 201']);
    expect(await page.locator('#requests-count').textContent()).toBe('1');
    await shoot(page, 'requests-early-1280');
    // ] steps (from anywhere but a text field) to the end, where the read happened.
    await page.locator('#requests-heading').click();
    for (let i = 0; i < 3; i++) await page.keyboard.press(']');
    await expect.poll(() => at(page)).toBe('2026-01-01T00:01:05.000Z');
    await expect.poll(() => requestRows(page)).toEqual(['GET /v1/calls/{id} 200', 'POST /v1/calls 201']);
    // A row opens with Enter: a success says it had no error, and gives its request id.
    await page.locator('#requests > li.req .req-toggle').first().focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#requests > li.req .req-more:not([hidden])').textContent())
      .toMatch(/^Answered without an error\.Request idreq_\w+Sent toGET \/v1\/calls\/call_\w+KeySVC_TEST_ci$/);
    await shoot(page, 'requests-1280');
    await page.close();
  });

  it('had no console error, and requested nothing from another origin', () => {
    expect(problems).toEqual([]);
    const origin = new URL(consoleUrl).origin;
    expect(requested.filter((url) => !url.startsWith(origin))).toEqual([]);
  });
});
