import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxSnapshot } from '../../src/index.js';
import { type ShowServer, startShow } from '../../src/server/show.js';
import { FROM, KEY } from '../helpers.js';

/**
 * The show server (src/server/show.ts) over HTTP, as the console and a curious user reach it: the
 * session at an instant, what changed between two, the page marked for time travel, and nothing
 * that writes. (The CLI around it, bad files and signals: test/server/show-cli.test.ts.) Its
 * requests go by undici's fetch: the global one checks control answers against the full server's
 * OpenAPI document, which this read-only server does not serve.
 */

let show: ShowServer;
let snapshot: SandboxSnapshot;
let callId = '';
let recordingId = '';

beforeAll(async () => {
  const sandbox = createSandbox({ seed: 4 });
  const res = await sandbox.handle(
    new Request(`${sandbox.baseUrl}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', from: FROM }),
    }),
  );
  callId = ((await res.json()) as { id: string }).id;
  await sandbox.advance('2m');
  recordingId = sandbox.calls.get(callId)!.recording_id!;
  snapshot = JSON.parse(JSON.stringify(sandbox.snapshot()));
  sandbox.close();
  show = await startShow({ file: 'snaps/a test.json', snapshot, port: 0 });
});
afterAll(() => show.close());

const get = async (path: string, init: Parameters<typeof fetch>[1] = {}) => {
  const res = await fetch(`${show.url}${path}`, init);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : null,
  };
};

describe('svc-sandbox show’s server', () => {
  it('describes the snapshot: file, seed, start, end and a mark per event', async () => {
    const { status, body } = await get('/__sandbox/show');
    expect(status).toBe(200);
    expect(body).toMatchObject({ file: 'snaps/a test.json', seed: 4, start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T00:02:00.000Z' });
    expect(body.events.map((e: { type: string }) => e.type)).toEqual([
      'call.started',
      'call.answered',
      'call.completed',
      'recording.ready',
      'transcript.ready',
    ]);
    expect(body.events[0]).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      id: expect.stringMatching(/^evt_/),
      type: 'call.started',
      subject: callId,
      call: callId,
    });
    expect(body.events[3]).toMatchObject({ subject: recordingId, call: callId });
  });

  it('answers the session at an instant: the call ringing at 2 s, talking at 30 s, completed at the end', async () => {
    const at = async (iso?: string) => (await get(`/__sandbox/show/state${iso ? `?at=${encodeURIComponent(iso)}` : ''}`)).body;
    const early = await at('2026-01-01T00:00:02Z');
    expect(early.now).toBe('2026-01-01T00:00:02.000Z');
    expect(early.items.call.map((c: { status: string }) => c.status)).toEqual(['ringing']);
    expect(early.items.call[0]).toMatchObject({ id: callId, account: KEY, answered_at: null });
    expect(early.events).toEqual({ count: 1, newest: [expect.objectContaining({ type: 'call.started' })] });
    expect(early.items.recording).toEqual([]);
    const talking = await at('2026-01-01T00:00:30+00:00');
    expect(talking.items.call[0].status).toBe('answered');
    expect(talking.items.transcript[0]).toMatchObject({ status: 'live', segments: expect.any(Array) });
    const end = await at();
    expect(end.now).toBe('2026-01-01T00:02:00.000Z');
    expect(end.items.call[0]).toMatchObject({ status: 'completed', disposition: 'answered', duration: 60 });
    expect(end.items.recording[0]).toMatchObject({ id: recordingId, status: 'ready' });
    expect(end.events.count).toBe(5);
  });

  it('answers what changed between two instants, as the live console’s change frames carry it', async () => {
    const { body } = await get('/__sandbox/show/state?at=2026-01-01T00:00:05Z&from=2026-01-01T00:00:02Z');
    expect(body.items).toBeUndefined();
    expect(body.changes).toEqual([
      { kind: 'call', id: callId, removed: false, data: expect.objectContaining({ status: 'answered' }) },
      expect.objectContaining({ kind: 'transcript', removed: false }),
    ]);
    const back = (await get('/__sandbox/show/state?at=2026-01-01T00:00:02Z&from=2026-01-01T00:00:05Z')).body;
    expect(back.changes).toEqual([
      { kind: 'call', id: callId, removed: false, data: expect.objectContaining({ status: 'ringing' }) },
      expect.objectContaining({ kind: 'transcript', removed: true, data: null }),
    ]);
  });

  it('refuses an instant it cannot show, naming the parameter and the range', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        'at=tomorrow',
        'at',
        /`at` must be an ISO 8601 instant with its zone, such as 2026-01-01T00:00:00.000Z, from 2026-01-01T00:00:00.000Z \(the session's start\) to 2026-01-01T00:02:00.000Z \(when the snapshot was taken\); got "tomorrow"/,
      ],
      ['at=2026-01-01T00:00:02', 'at', /must be an ISO 8601 instant with its zone/],
      ['at=2026-01-01T00:03:00Z', 'at', /^`at` must be from 2026-01-01T00:00:00.000Z .* got 2026-01-01T00:03:00Z\.$/],
      ['at=2026-01-01T00:00:01Z&from=2025-01-01T00:00:00Z', 'from', /^`from` must be from/],
      ['at=2026-01-01T00:00:01Z&at=2026-01-01T00:00:02Z', 'at', /`at` is given 2 times; give it once/],
      ['when=now', 'when', /Unknown parameter `when`: \/__sandbox\/show\/state takes `at` and `from`/],
    ];
    for (const [query, param, message] of cases) {
      const { status, body } = await get(`/__sandbox/show/state?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toMatchObject({ code: 'invalid_parameter', param, message: expect.stringMatching(message) });
    }
  });

  it('serves the console marked for time travel, under its strict policy, and the recordings’ audio', async () => {
    const page = await get('/__sandbox/console?at=2026-01-01T00:00:02Z');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<html lang="en" data-mode="show">');
    expect(page.text).toContain('<label for="at">At</label>');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
    for (const file of ['show.js', 'history.js', 'app.js', 'style.css'])
      expect((await get(`/__sandbox/console/${file}`)).status, file).toBe(200);
    const audio = await fetch(`${show.url}/__sandbox/sessions/default/console/recordings/${recordingId}/audio`);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(
      Buffer.from(await audio.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
    expect((await get('/__sandbox/sessions/default/console/recordings/rec_nope/audio')).status).toBe(404);
    expect((await get('/__sandbox/health')).body).toEqual({ status: 'ok' });
    const head = await fetch(`${show.url}/__sandbox/show`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('changes nothing: every write is 405, the API is not served, and other pages and hosts are refused', async () => {
    const before = (await get('/__sandbox/show/state')).text;
    for (const [method, path] of [
      ['POST', '/__sandbox/sessions/default/advance'],
      ['POST', '/__sandbox/sessions/default/keys'],
      ['POST', '/__sandbox/sessions/default/dead-letters/dlv_x/replay'],
      ['DELETE', '/__sandbox/sessions/default'],
      ['PUT', '/__sandbox/show'],
      ['POST', '/v1/calls'],
    ]) {
      const { status, headers, body } = await get(path!, {
        method,
        headers: { 'content-type': 'application/json' },
        body: '{"duration":"1h"}',
      });
      expect(status, `${method} ${path}`).toBe(405);
      expect(headers.get('allow')).toBe('GET, HEAD');
      expect(body.error).toEqual({
        code: 'method_not_allowed',
        message:
          'svc-sandbox show serves snaps/a test.json read-only: nothing here changes the session. To go on from it, start a server with svc-sandbox serve --import snaps/a test.json.',
      });
    }
    expect((await get('/v1/calls', { headers: { authorization: `Bearer ${KEY}` } })).body.error.message).toMatch(
      /^svc-sandbox show serves the console over snaps\/a test.json, not the API \("\/v1\/calls"\): start a server from it with svc-sandbox serve --import/,
    );
    expect((await get('/__sandbox/sessions')).status).toBe(404);
    expect((await get('/__sandbox/show', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    const rebound = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${show.url}/__sandbox/show`, { headers: { host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      }, reject);
    });
    expect(rebound).toBe(403);
    expect((await get('/__sandbox/show/state')).text).toBe(before);
  });
});
