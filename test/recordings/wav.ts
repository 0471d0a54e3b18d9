import wavefile from 'wavefile';

/**
 * A WAV file as `wavefile` reads it: an independent reader, so the audio tests do not share
 * the assumptions of the sandbox's own writer. wavefile's types leave its chunks as `object`;
 * these are the fields it fills for a PCM file.
 */
export interface WavFile {
  /** 'RIFF' (or 'RIFX', 'RF64'). */
  container: string;
  /** The RIFF chunk's size: the file's length minus 8. */
  chunkSize: number;
  /** 'WAVE'. */
  format: string;
  fmt: {
    chunkId: string;
    chunkSize: number;
    audioFormat: number;
    numChannels: number;
    sampleRate: number;
    byteRate: number;
    blockAlign: number;
    bitsPerSample: number;
  };
  data: { chunkId: string; chunkSize: number };
  /** The samples, 16-bit signed. */
  samples: Int16Array;
}

/** Parses a WAV file (throws as wavefile does when it is not one: no RIFF/WAVE, no `fmt ` or `data` chunk). */
export function readWav(bytes: Uint8Array): WavFile {
  const wav = new wavefile.WaveFile(bytes);
  const fmt = wav.fmt as WavFile['fmt'];
  const data = wav.data as WavFile['data'];
  return {
    container: wav.container,
    chunkSize: wav.chunkSize,
    format: wav.format,
    fmt: {
      chunkId: fmt.chunkId,
      chunkSize: fmt.chunkSize,
      audioFormat: fmt.audioFormat,
      numChannels: fmt.numChannels,
      sampleRate: fmt.sampleRate,
      byteRate: fmt.byteRate,
      blockAlign: fmt.blockAlign,
      bitsPerSample: fmt.bitsPerSample,
    },
    data: { chunkId: data.chunkId, chunkSize: data.chunkSize },
    // wavefile types the output as Float64Array whatever container it is given.
    samples: wav.getSamples(false, Int16Array) as unknown as Int16Array,
  };
}
