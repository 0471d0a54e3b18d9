import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { launchChromium } from './chromium.js';

/**
 * Regression: a page on another origin, open in the developer's browser,
 * reset the default session, advanced it 25 h, made keys and sessions and injected a fault
 * with `no-cors` POSTs and a plain HTML form. Here a real Chromium opens such a page (served
 * from another port of 127.0.0.1: another origin) and every one of those requests reaches the
 * server and changes nothing.
 */
let server: SandboxServer;
let evil: Server;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ port: 0, seed: 1 });
  const target = `${server.url}/__sandbox`;
  const page = `<!doctype html><meta charset="utf-8"><title>evil</title>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="${target}/sessions" target="sink" enctype="application/x-www-form-urlencoded"><input name="seed" value="1"></form>
<script>
  const post = (path, init) => fetch('${target}' + path, { method: 'POST', mode: 'no-cors', ...init }).then(() => 'answered', (e) => 'failed: ' + e.message);
  window.results = Promise.all([
    post('/sessions/default/reset'),
    post('/sessions/default/advance', { body: '{"duration":"25h"}', headers: { 'content-type': 'text/plain' } }),
    post('/sessions/default/keys'),
    post('/sessions', { body: '{}' }),
    post('/sessions/default/faults', { body: '{"status":503}', headers: { 'content-type': 'text/plain' } }),
    new Promise((resolve) => { document.querySelector('iframe').onload = () => resolve('form answered'); document.getElementById('form').submit(); }),
  ]);
</script>`;
  evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await server?.close();
});

it('regression: no-cors POSTs and an HTML form from another origin reach the server and change nothing', async () => {
  const key = 'SVC_TEST_victim';
  const placed = await fetch(`${server.url}/v1/calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
  });
  expect(placed.status).toBe(201);
  const before = {
    now: server.sandbox.now().toISOString(),
    calls: server.sandbox.calls.list().length,
    keys: server.sandbox.keys.list().length,
    faults: server.sandbox.faults.list().length,
  };
  const sessionsBefore = await (await fetch(`${server.url}/__sandbox/sessions`)).json();

  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    const results = await page.evaluate(() => (window as unknown as { results: Promise<string[]> }).results);
    // Every request reached the server (a refused request still gets an answer).
    expect(results).toEqual(['answered', 'answered', 'answered', 'answered', 'answered', 'form answered']);
    const sink = page.frame({ name: 'sink' });
    const text = await sink!.evaluate(() => document.body.textContent);
    expect(JSON.parse(text).error).toMatchObject({ code: 'forbidden', param: 'Origin' });
  } finally {
    await page.close();
  }
  expect({
    now: server.sandbox.now().toISOString(),
    calls: server.sandbox.calls.list().length,
    keys: server.sandbox.keys.list().length,
    faults: server.sandbox.faults.list().length,
  }).toEqual(before);
  expect(await (await fetch(`${server.url}/__sandbox/sessions`)).json()).toEqual(sessionsBefore);
}, 60_000);
