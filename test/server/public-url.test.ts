import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerOptions } from '../../src/index.js';
import { closeReceivers, startReceiver, type Receiver } from '../webhooks/receivers.js';

// Regression: call.completed's recording_url carried the server's port (http://127.0.0.1:39819/v1/recordings/…/audio), so one seed and the same steps gave other bytes on every run of `serve --port 0`, and a golden file broke.

afterAll(closeReceivers);

const JSON_TYPE = { 'content-type': 'application/json' };

/** One story on a fresh server: every /v1 and control answer's text, the webhook bodies as they arrived, and the recording fetched. */
async function story(receiver: Receiver, options: ServerOptions = {}) {
  const server = await startServer({ port: 0, seed: 5, ...options });
  const from = receiver.received.length;
  try {
    const key = server.apiKey;
    const texts: string[] = [];
    const call = async (method: string, path: string, body?: unknown, auth = true) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(auth ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : JSON_TYPE) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      texts.push(`${method} ${path} ${res.status} ${text}`);
      return JSON.parse(text);
    };
    await call('POST', '/v1/webhooks', { url: receiver.url, events: ['call.completed', 'recording.ready'] });
    const placed = await call('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
    await call('POST', '/__sandbox/sessions/default/advance', { duration: '100s' }, false);
    const ended = await call('GET', `/v1/calls/${placed.id}`);
    const recording = await call('GET', `/v1/recordings/${ended.recording_id}`);
    await call('GET', '/__sandbox/sessions/default/events', undefined, false);
    // The media: its path, against the server's own address, whatever origin the URL names.
    const audio = await fetch(new URL(new URL(recording.url).pathname, server.url), { headers: { authorization: `Bearer ${key}` } });
    const webhooks = receiver.received.slice(from).map((r) => r.raw.toString('utf8'));
    return { texts, webhooks, recording, audio: { status: audio.status, type: audio.headers.get('content-type') }, url: server.url };
  } finally {
    await server.close();
  }
}

describe('absolute URLs in answers and webhook bodies', () => {
  it('two servers on ports the system picked give the same bytes: answers, events and webhook bodies; the media stays fetchable', async () => {
    const receiver = await startReceiver();
    const one = await story(receiver);
    const two = await story(receiver);
    expect(one.url).not.toBe(two.url);
    expect(one.webhooks.length).toBe(2);
    expect(two.texts).toEqual(one.texts);
    expect(two.webhooks).toEqual(one.webhooks);
    // They name the default address, not the port either server got.
    const completed = JSON.parse(one.webhooks.find((body) => body.includes('"call.completed"'))!);
    expect(completed.data.recording_url).toBe(`http://127.0.0.1:12111/v1/recordings/${completed.data.recording_id}/audio`);
    expect(one.recording.url).toBe(completed.data.recording_url);
    expect(one.audio).toEqual({ status: 200, type: 'audio/wav' });
  });

  it('publicUrl names another origin (a proxy, a container name), and the server still answers the paths', async () => {
    const receiver = await startReceiver();
    const proxied = await story(receiver, { publicUrl: 'https://sandbox.example.test/' });
    expect(proxied.recording.url).toMatch(/^https:\/\/sandbox\.example\.test\/v1\/recordings\/rec_\w+\/audio$/);
    expect(proxied.webhooks.join('')).toMatch(/"recording_url": "https:\/\/sandbox\.example\.test\/v1\/recordings\//);
    expect(proxied.audio.status).toBe(200);
  });

  it('a port asked for is the one the URLs name', async () => {
    const probe = await startServer({ port: 0 });
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const receiver = await startReceiver();
    const fixed = await story(receiver, { port });
    expect(fixed.recording.url.startsWith(`${fixed.url}/v1/recordings/`)).toBe(true);
  });

  it('refuses a publicUrl that is no http(s) URL, naming it', async () => {
    for (const publicUrl of ['not a url', 'ftp://x.test', 'http://u:p@x.test', 'http://x.test/?q=1']) {
      await expect(startServer({ port: 0, publicUrl })).rejects.toMatchObject({ code: 'invalid_options', param: 'publicUrl' });
    }
  });
});
