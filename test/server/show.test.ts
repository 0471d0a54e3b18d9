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
      ['limit=0', 'limit', /^`limit` must be an integer from 1 to 5000 \(the newest items of each list to send\); got "0"\.$/],
      ['limit=5001', 'limit', /`limit` must be an integer from 1 to 5000/],
      ['limit=ten', 'limit', /`limit` must be an integer from 1 to 5000/],
    ];
    for (const [query, param, message] of cases) {
      const { status, body } = await get(`/__sandbox/show/state?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toMatchObject({ code: 'invalid_parameter', param, message: expect.stringMatching(message) });
    }
  });

  it('answers 404 to a malformed percent-encoding in a path, as the live server does, never a 500', async () => {
    for (const path of [
      '/__sandbox/sessions/default/console/recordings/%ff/audio',
      '/__sandbox/console/%ff',
      '/__sandbox/%E0%A4%A',
      '/%ff',
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(404);
      expect(body.error.code, path).toBe('not_found');
    }
  });

  it('sends the newest items of each long list, with how many there were: an answer stays small whatever the session', async () => {
    const sandbox = createSandbox({ seed: 5 });
    for (let i = 0; i < 12; i++) {
      await sandbox.handle(
        new Request(`${sandbox.baseUrl}/v1/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to: `+141555501${String(10 + i)}`, from: FROM }),
        }),
      );
      await sandbox.advance('1s');
    }
    await sandbox.advance('2m');
    const newest = sandbox.calls
      .list()
      .slice(0, 5)
      .map((c) => c.id);
    const many = await startShow({ file: 'many.json', snapshot: JSON.parse(JSON.stringify(sandbox.snapshot())), port: 0 });
    sandbox.close();
    try {
      const state = async (query: string) => JSON.parse(await (await fetch(`${many.url}/__sandbox/show/state?${query}`)).text());
      const windowed = await state('limit=5');
      expect(windowed.items.call.map((c: { id: string }) => c.id)).toEqual(newest);
      expect(windowed.counts).toMatchObject({ call: 12, recording: 12, transcript: 12, message: 0 });
      expect(windowed.items.transcript).toHaveLength(5);
      // Early on, the window and the counts are those of the session then.
      const early = await state('at=2026-01-01T00:00:02.500Z&limit=5');
      expect(early.counts.call).toBe(3);
      expect(early.items.call).toHaveLength(3);
      // By default 500 per list: all twelve.
      expect((await state('')).items.call).toHaveLength(12);
    } finally {
      await many.close();
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
