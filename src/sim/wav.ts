/** The recording format: 8 kHz, 16-bit signed little-endian PCM, mono (telephone quality). */
export const SAMPLE_RATE = 8_000;
const BYTES_PER_SAMPLE = 2;
const HEADER_BYTES = 44;
/** A quiet tone (about -32 dBFS) while someone speaks, one pitch per speaker; silence between lines. */
const AMPLITUDE = 800;
const PITCHES = [220, 330, 262, 392, 294] as const;

/** A stretch of speech in the recording: milliseconds from its start, and which voice. */
export interface Voiced {
  startMs: number;
  endMs: number;
  voice: number;
}

/**
 * The 44-byte RIFF/WAVE header of a PCM file with `dataBytes` of samples.
 *
 * @example
 * wavHeader(16_000); // one second of 8 kHz 16-bit mono
 */
export function wavHeader(dataBytes: number): Uint8Array {
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (at: number, text: string) => {
    for (const [i, c] of [...text].entries()) view.setUint8(at + i, c.charCodeAt(0));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // size of the fmt chunk
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, SAMPLE_RATE, true);
  view.setUint32(28, SAMPLE_RATE * BYTES_PER_SAMPLE, true); // byte rate
  view.setUint16(32, BYTES_PER_SAMPLE, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

/**
 * A WAV file of `durationS` seconds, made on the fly one second at a time as the reader
 * pulls (a two-hour call never sits in memory): a quiet tone during each voiced stretch,
 * silence elsewhere. Deterministic: the same segments give the same bytes.
 *
 * @example
 * const { stream, byteLength } = wavAudio(60, [{ startMs: 500, endMs: 3000, voice: 0 }]);
 * new Response(stream, { headers: { 'content-type': 'audio/wav', 'content-length': String(byteLength) } });
 */
export function wavAudio(durationS: number, voiced: readonly Voiced[]): { stream: ReadableStream<Uint8Array>; byteLength: number } {
  const totalSamples = durationS * SAMPLE_RATE;
  const dataBytes = totalSamples * BYTES_PER_SAMPLE;
  let position = -1; // -1: the header is next
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (position < 0) {
          controller.enqueue(wavHeader(dataBytes));
          position = 0;
          return;
        }
        if (position >= totalSamples) {
          controller.close();
          return;
        }
        const count = Math.min(SAMPLE_RATE, totalSamples - position);
        controller.enqueue(samples(position, count, voiced));
        position += count;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, byteLength: HEADER_BYTES + dataBytes };
}

function samples(from: number, count: number, voiced: readonly Voiced[]): Uint8Array {
  const bytes = new Uint8Array(count * BYTES_PER_SAMPLE);
  const view = new DataView(bytes.buffer);
  const fromMs = (from / SAMPLE_RATE) * 1000;
  const toMs = ((from + count) / SAMPLE_RATE) * 1000;
  for (const stretch of voiced) {
    if (stretch.endMs <= fromMs || stretch.startMs >= toMs) continue;
    const pitch = PITCHES[stretch.voice % PITCHES.length] ?? PITCHES[0];
    const first = Math.max(from, Math.ceil((stretch.startMs / 1000) * SAMPLE_RATE));
    const last = Math.min(from + count, Math.ceil((stretch.endMs / 1000) * SAMPLE_RATE));
    for (let n = first; n < last; n++) {
      view.setInt16((n - from) * BYTES_PER_SAMPLE, Math.round(AMPLITUDE * Math.sin((2 * Math.PI * pitch * n) / SAMPLE_RATE)), true);
    }
  }
  return bytes;
}
