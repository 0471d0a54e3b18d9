import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook, type Sandbox } from '../../src/index.js';
import { client, startSandbox } from '../helpers.js';
import { subscribe } from './receivers.js';

let sandbox: Sandbox;
let receiver: FetchInterceptor;
let received: Array<{ headers: Headers; raw: string; virtualAt: string }>;
let answer: number;

beforeEach(() => {
  sandbox = startSandbox();
  received = [];
  answer = 204;
  // The user's own interceptor (as msw would do) answers the receiver's URL in-process.
  receiver = new FetchInterceptor();
  receiver.apply();
  // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
  receiver.on('request', async ({ request, controller }) => {
    if (new URL(request.url).origin !== 'https://receiver.test') return;
    received.push({ headers: request.headers, raw: await request.text(), virtualAt: sandbox.now().toISOString() });
    controller.respondWith(new Response(null, { status: answer }));
  });
});
afterEach(() => {
  receiver.dispose();
  sandbox.close();
});

describe('in-process receivers', () => {
  it('a URL handled by an interceptor of the test gets the signed events, in order', async () => {
    const sub = await subscribe(sandbox, 'https://receiver.test/hooks', ['call.started', 'call.answered', 'call.completed']);
    await client(sandbox).placeCall();
    await sandbox.advance('70s');
    expect(received.map((r) => JSON.parse(r.raw).type)).toEqual(['call.started', 'call.answered', 'call.completed']);
    for (const r of received) {
      expect(verifyWebhook(r.raw, r.headers.get('x-service-signature')!, sub.secret)).toBe(true);
      expect(r.headers.get('content-type')).toBe('application/json');
    }
    expect(sandbox.webhooks.deliveries().map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('its failures are retried on the schedule like a remote receiver’s', async () => {
    answer = 500;
    await subscribe(sandbox, 'https://receiver.test/hooks', ['call.started']);
    await client(sandbox).placeCall();
    await sandbox.advance('1m');
    answer = 200;
    await sandbox.advance('30s');
    expect(received.map((r) => [r.headers.get('x-service-delivery-attempt'), r.virtualAt])).toEqual([
      ['1', '2026-01-01T00:00:00.000Z'],
      ['2', '2026-01-01T00:00:30.000Z'],
      ['3', '2026-01-01T00:01:30.000Z'],
    ]);
  });

  it('uses the global fetch as it is at send time, not a copy taken at import', async () => {
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return original(input, init);
    };
    try {
      await subscribe(sandbox, 'https://receiver.test/late', ['call.started']);
      await client(sandbox).placeCall();
      await sandbox.advance(0);
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toContain('https://receiver.test/late');
    expect(received).toHaveLength(1);
  });
});

describe('in-process receivers set up before the sandbox (an msw setup file runs first)', () => {
  it('still receive, and the sandbox still answers its own base URL', async () => {
    sandbox.close();
    receiver.dispose();
    receiver = new FetchInterceptor();
    receiver.apply();
    // biome-ignore lint/nursery/noMisusedPromises: @mswjs/interceptors awaits request listeners in turn (emitAsync), though typed void.
    receiver.on('request', async ({ request, controller }) => {
      if (new URL(request.url).origin !== 'https://receiver.test') return;
      received.push({ headers: request.headers, raw: await request.text(), virtualAt: sandbox.now().toISOString() });
      controller.respondWith(new Response(null, { status: 200 }));
    });
    sandbox = startSandbox();
    const sub = await subscribe(sandbox, 'https://receiver.test/first', ['call.started']);
    await client(sandbox).placeCall();
    await sandbox.advance(0);
    expect(received).toHaveLength(1);
    expect(verifyWebhook(received[0]!.raw, received[0]!.headers.get('x-service-signature')!, sub.secret)).toBe(true);
  });
});
