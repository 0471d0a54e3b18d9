import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A short keyed tag that makes an opaque token tamper-evident (a list's cursor): the first
 * `bytes` bytes of SHA-256 over the key, a NUL and the text. Only a prefix of the digest is ever
 * shown, so the hash's internal state never leaves and no one without the key can extend a tag
 * to another text. Not a signature anyone verifies outside the sandbox: the webhook signature,
 * HMAC-SHA256 as receivers compute it, is src/webhooks/signature.ts's alone.
 *
 * @example
 * keyedTag('seed-key', 'calls\nSVC_TEST_me\n3\ncall_1', 12).toString('base64url'); // 16 characters
 */
export function keyedTag(key: string, text: string, bytes: number): Buffer {
  return createHash('sha256').update(key).update('\0').update(text).digest().subarray(0, bytes);
}

/** Whether `given` is `expected`, compared in constant time (false for another length). */
export function sameTag(given: Uint8Array, expected: Uint8Array): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
