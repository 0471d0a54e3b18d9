import type { Service } from './lifecycle.js';

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 16;

/** The id prefixes of docs/contract.md. */
export type IdPrefix = 'call' | 'camp' | 'num' | 'msg' | 'conv' | 'rec' | 'trn' | 'wh' | 'evt' | 'req' | 'whsec' | 'dlv' | 'key' | 'ses';

/** cyrb128: a small, well-mixed string hash that gives the four 32-bit words sfc32 needs. */
function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/** sfc32: a fast 128-bit-state generator; returns uint32 values. */
function sfc32(seed: [number, number, number, number]): () => number {
  let [a, b, c, d] = seed;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next(); // discard the first outputs, which echo the seed
  return next;
}

/**
 * The sandbox's one seeded source of randomness. Each named stream is independent, so
 * that (for example) extra GET requests, which draw request ids, never shift the ids of
 * the calls created after them: the same seed and the same creating requests give the
 * same resource ids.
 */
export class SeededRandom implements Service {
  private readonly streams = new Map<string, () => number>();
  private readonly idMakers = new Map<string, () => string>();

  constructor(readonly seed: number) {}

  reset(): void {
    this.streams.clear();
    this.idMakers.clear();
  }

  /** A uint32 generator for one named purpose. */
  stream(name: string): () => number {
    let next = this.streams.get(name);
    if (!next) {
      next = sfc32(hash128(`${this.seed}:${name}`));
      this.streams.set(name, next);
    }
    return next;
  }

  /** A new id such as `call_4Fh2kP0qZr8sLm1X`: the prefix, an underscore and 16 characters of [0-9A-Za-z]. */
  id(prefix: IdPrefix): string {
    let make = this.idMakers.get(prefix);
    if (!make) {
      make = idMaker(prefix, this.stream(`id:${prefix}`));
      this.idMakers.set(prefix, make);
    }
    return make();
  }
}

/** Bytes of the byte stream below drawn per batch: nanoid's `step` for 16 characters of 62. */
const STEP = Math.ceil((1.6 * 256 * ID_LENGTH) / (256 - (256 % ID_ALPHABET.length)));
/** Bytes at or above it are skipped, so that each character is equally likely. */
const CUTOFF = 256 - (256 % ID_ALPHABET.length);
const ALPHABET_CODES = Array.from(ID_ALPHABET, (c) => c.charCodeAt(0));

/**
 * Ids of one prefix from one uint32 stream: the characters nanoid 5's `customRandom` makes from
 * the same bytes (batches of {@link STEP} bytes, each the low byte of one draw, read from the last;
 * bytes at or above {@link CUTOFF} skipped). So a seed gives the ids it always gave
 * (src/core/random.test.ts holds the two equal), without nanoid's per-id cost: a new byte array
 * per batch, and a string built one character at a time, which V8 keeps as a chain of
 * sixteen cons strings in every stored id. Here the batch and the character codes are reused,
 * and the id is one flat string.
 */
function idMaker(prefix: string, next: () => number): () => string {
  const bytes = new Uint8Array(STEP);
  const codes: number[] = Array.from(`${prefix}_`, (c) => c.charCodeAt(0));
  const head = codes.length;
  return () => {
    codes.length = head;
    for (;;) {
      for (let i = 0; i < STEP; i++) bytes[i] = next() & 0xff;
      for (let i = STEP - 1; i >= 0; i--) {
        const byte = bytes[i]!;
        if (byte >= CUTOFF) continue;
        codes.push(ALPHABET_CODES[byte % ALPHABET_CODES.length]!);
        if (codes.length - head === ID_LENGTH) return String.fromCharCode(...codes);
      }
    }
  };
}
