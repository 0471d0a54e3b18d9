/**
 * How carriers split a text into SMS segments (see docs/messaging.md): GSM-7 when every
 * character is in the GSM 03.38 alphabet (160 septets in one segment, 153 per segment of
 * a longer text; the extension characters take two septets and are never split), else
 * UCS-2 (70 UTF-16 units in one segment, 67 per segment, never splitting a surrogate pair).
 */

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '\f^{}\\[~]|€';
const BASIC = new Set(GSM_BASIC);
const EXTENDED = new Set(GSM_EXTENDED);

export type Encoding = 'GSM-7' | 'UCS-2';

/** The encoding a carrier would pick for `text`. */
export function encodingOf(text: string): Encoding {
  for (const char of text) if (!BASIC.has(char) && !EXTENDED.has(char)) return 'UCS-2';
  return 'GSM-7';
}

/** Sizes of `text`'s characters in the units of its encoding (septets or UTF-16 units). */
function unitSizes(text: string, encoding: Encoding): number[] {
  const sizes: number[] = [];
  for (const char of text) sizes.push(encoding === 'GSM-7' ? (EXTENDED.has(char) ? 2 : 1) : char.length);
  return sizes;
}

/**
 * The number of SMS segments `text` takes. An empty text still takes one.
 *
 * @example
 * countSegments('hello');          // 1
 * countSegments('a'.repeat(161));  // 2 (GSM-7: 153 + 8)
 * countSegments('héllo ✓');        // 1 (UCS-2, 7 units of 70)
 */
export function countSegments(text: string): number {
  const encoding = encodingOf(text);
  const [single, multi] = encoding === 'GSM-7' ? [160, 153] : [70, 67];
  const sizes = unitSizes(text, encoding);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > multi) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return segments;
}
