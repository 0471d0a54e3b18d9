import https from 'node:https';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { client, KEY, OTHER_KEY, startSandbox, TO } from '../helpers.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
beforeEach(() => {
  sandbox = startSandbox();
  api = client(sandbox);
});
afterEach(() => sandbox.close());

/** A call that talks `talk`, with a one-line script spoken from 1 s to 2 s; returns its ready recording's audio URL. */
async function recordedCall(talk: string): Promise<{ url: string; duration: number; recordingId: string }> {
  sandbox.network.setBehavior(TO, { talk });
  const { body } = await api.placeCall();
  sandbox.transcripts.setScript(body.id, [{ speaker: 'agent', text: 'Hello.', start: 1, end: 2 }]);
  await sandbox.advance('3h');
  const call = sandbox.calls.get(body.id)!;
  return { url: call.recording_url!, duration: call.duration!, recordingId: call.recording_id! };
}

/** Reads the fields of a canonical 44-byte WAV header. */
function parseWav(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  return {
    riff: ascii(0),
    riffSize: view.getUint32(4, true),
    wave: ascii(8),
    fmt: ascii(12),
    fmtSize: view.getUint32(16, true),
    format: view.getUint16(20, true),
    channels: view.getUint16(22, true),
    sampleRate: view.getUint32(24, true),
    byteRate: view.getUint32(28, true),
    blockAlign: view.getUint16(32, true),
    bitsPerSample: view.getUint16(34, true),
    data: ascii(36),
    dataSize: view.getUint32(40, true),
    sample: (second: number) => view.getInt16(44 + Math.round(second * 8000) * 2, true),
  };
}

describe('GET /v1/recordings/{id}/audio (the recording’s url)', () => {
  it('serves an 8 kHz 16-bit mono WAV whose length matches the recording’s duration', async () => {
    const { url, duration } = await recordedCall('7s');
    expect(duration).toBe(7);
    const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.byteLength);
    const wav = parseWav(bytes);
    expect(wav).toMatchObject({
      riff: 'RIFF',
      riffSize: bytes.byteLength - 8,
      wave: 'WAVE',
      fmt: 'fmt ',
      fmtSize: 16,
      format: 1,
      channels: 1,
      sampleRate: 8000,
      byteRate: 16000,
      blockAlign: 2,
      bitsPerSample: 16,
      data: 'data',
      dataSize: 7 * 8000 * 2,
    });
    expect(bytes.byteLength).toBe(44 + wav.dataSize);
    expect(wav.dataSize / wav.byteRate).toBe(duration);
    // A quiet tone while the line is spoken (1–2 s), silence elsewhere.
    const loudest = Math.max(...Array.from({ length: 80 }, (_, i) => Math.abs(wav.sample(1.5 + i / 8000))));
    expect(loudest).toBeGreaterThan(100);
    expect(loudest).toBeLessThan(2000);
    expect([0.5, 3, 6.9].map((s) => wav.sample(s))).toEqual([0, 0, 0]);
  });

  it('is the same file through node:https', async () => {
    const { url } = await recordedCall('3s');
    const viaFetch = new Uint8Array(await (await fetch(url, { headers: { authorization: `Bearer ${KEY}` } })).arrayBuffer());
    const viaHttps = await new Promise<Buffer>((resolve, reject) => {
      https
        .get(url, { headers: { authorization: `Bearer ${KEY}` } }, (res) => {
          expect(res.headers['content-type']).toBe('audio/wav');
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
        .on('error', reject);
    });
    expect(viaHttps.byteLength).toBe(44 + 3 * 16000);
    expect(new Uint8Array(viaHttps)).toEqual(viaFetch);
  });

  it('a long call streams its file without trouble (two hours: 115 MB)', async () => {
    const { url, duration } = await recordedCall('2h');
    const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    let total = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) total += chunk.byteLength;
    expect(total).toBe(44 + duration * 16000);
  });

  it('is 409 recording_not_ready while the recording is processing', async () => {
    const { body } = await api.placeCall();
    await sandbox.advance('65s');
    const call = sandbox.calls.get(body.id)!;
    const res = await api.get(`/v1/recordings/${call.recording_id}/audio`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('recording_not_ready');
    expect(res.body.error.message).toMatch(/still processing.*recording\.ready/);
    await sandbox.advance('10s');
    expect((await fetch(call.recording_url!, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it('needs the same key auth as the API: 401 without a key, 404 for another account', async () => {
    const { url } = await recordedCall('3s');
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('invalid_api_key');
    const foreign = await fetch(url, { headers: { authorization: `Bearer ${OTHER_KEY}` } });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('not_found');
  });
});
