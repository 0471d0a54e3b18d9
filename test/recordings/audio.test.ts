import https from 'node:https';
import { describe, expect, it, type SandboxContext } from '../fixture.js';
import { KEY, OTHER_KEY, TO } from '../helpers.js';
import { readWav } from './wav.js';

/** A call that talks `talk`, with a one-line script spoken from 1 s to 2 s; returns its ready recording's audio URL. */
async function recordedCall(
  { sandbox, api }: SandboxContext,
  talk: string,
): Promise<{ url: string; duration: number; recordingId: string }> {
  sandbox.network.setBehavior(TO, { talk });
  const { body } = await api.placeCall();
  sandbox.transcripts.setScript(body.id, [{ speaker: 'agent', text: 'Hello.', start: 1, end: 2 }]);
  await sandbox.advance('3h');
  const call = sandbox.calls.get(body.id)!;
  return { url: call.recording_url!, duration: call.duration!, recordingId: call.recording_id! };
}

describe('GET /v1/recordings/{id}/audio (the recording’s url)', () => {
  it('serves an 8 kHz 16-bit mono WAV whose length matches the recording’s duration', async ({ sandbox, api }) => {
    const { url, duration, recordingId } = await recordedCall({ sandbox, api }, '7s');
    expect(duration).toBe(7);
    const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${recordingId}.wav"`);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.byteLength);
    const wav = readWav(bytes);
    expect(wav).toMatchObject({
      container: 'RIFF',
      chunkSize: bytes.byteLength - 8,
      format: 'WAVE',
      fmt: {
        chunkId: 'fmt ',
        chunkSize: 16,
        audioFormat: 1,
        numChannels: 1,
        sampleRate: 8000,
        byteRate: 16000,
        blockAlign: 2,
        bitsPerSample: 16,
      },
      data: { chunkId: 'data', chunkSize: 7 * 8000 * 2 },
    });
    // A canonical 44-byte header: RIFF (12) + fmt (8 + 16) + data (8), nothing else.
    expect(bytes.byteLength).toBe(44 + wav.data.chunkSize);
    expect(wav.samples).toHaveLength(duration * 8000);
    expect(wav.data.chunkSize / wav.fmt.byteRate).toBe(duration);
    // A quiet tone (about -32 dBFS) while the line is spoken (1–2 s), silence everywhere else.
    const spoken = wav.samples.subarray(1 * 8000, 2 * 8000);
    const peak = Math.max(...Array.from(spoken, Math.abs));
    expect(20 * Math.log10(peak / 32768)).toBeCloseTo(-32, 0);
    expect(spoken.filter((s) => s !== 0).length).toBeGreaterThan(0.9 * spoken.length);
    const rest = [...wav.samples.subarray(0, 1 * 8000), ...wav.samples.subarray(2 * 8000)];
    expect(rest.filter((s) => s !== 0)).toEqual([]);
  });

  it('is the same file through node:https', async ({ sandbox, api }) => {
    const { url } = await recordedCall({ sandbox, api }, '3s');
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

  it('a long call streams its file without trouble (two hours: 115 MB)', async ({ sandbox, api }) => {
    const { url, duration } = await recordedCall({ sandbox, api }, '2h');
    const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    let total = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) total += chunk.byteLength;
    expect(total).toBe(44 + duration * 16000);
  });

  it('is 409 recording_not_ready while the recording is processing', async ({ sandbox, api }) => {
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

  it('needs the same key auth as the API: 401 without a key, 404 for another account', async ({ sandbox, api }) => {
    const { url } = await recordedCall({ sandbox, api }, '3s');
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('invalid_api_key');
    const foreign = await fetch(url, { headers: { authorization: `Bearer ${OTHER_KEY}` } });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('not_found');
  });
});
