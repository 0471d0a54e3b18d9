import { http, HttpResponse } from 'msw';
import { vi } from 'vitest';
import { verifyWebhook, type Sandbox } from '../../src/index.js';
import { FROM, KEY, TO } from '../helpers.js';
import { startReceiver } from '../webhooks/receivers.js';

/**
 * The sandbox's webhook deliveries beside a user's msw with `onUnhandledRequest: 'error'`
 * (msw-deliveries-*.test.ts, one file per order, each in a process of its own): a delivery to a
 * loopback receiver passes msw without a word, and one to a host an msw handler answers still
 * reaches that handler.
 */

/** The in-process receiver: an msw handler, as a user's suite would write one. */
export const IN_PROCESS_URL = 'https://hooks.example.test/in';

export function inProcessReceiver(bodies: string[]) {
  return http.post(IN_PROCESS_URL, async ({ request }) => {
    bodies.push(await request.text());
    return new HttpResponse(null, { status: 204 });
  });
}

/** Every line msw prints to the console while `run` runs. */
export async function mswOutput(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => {
    const line = args.map(String).join(' ');
    if (line.includes('[MSW]')) lines.push(line);
  };
  const spies = [vi.spyOn(console, 'error').mockImplementation(keep), vi.spyOn(console, 'warn').mockImplementation(keep)];
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines;
}

/**
 * Subscribes a loopback receiver and the in-process one to call.started, places a call, and
 * advances: `send` is how the test reaches the API (global fetch, or sandbox.fetch).
 */
export async function deliverToBoth(sandbox: Sandbox, send: typeof fetch) {
  const receiver = await startReceiver();
  const post = (path: string, body: unknown) =>
    send(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const secrets: string[] = [];
  for (const url of [receiver.url, IN_PROCESS_URL]) {
    const res = await post('/v1/webhooks', { url, events: ['call.started'] });
    secrets.push(((await res.json()) as { secret: string }).secret);
  }
  const call = await post('/v1/calls', { to: TO, from: FROM });
  if (call.status !== 201) throw new Error(`POST /v1/calls answered ${call.status}`);
  await sandbox.advance('1s');
  const [secret] = secrets;
  const signed = receiver.received.every((r) => verifyWebhook(r.raw, String(r.headers['x-service-signature']), secret!));
  return { receiver, signed };
}
