import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign, verifyWebhook } from './signature.js';

const SECRET = 'whsec_0123456789abcdefABCDEF0123456789';
const BODY = '{"id":"evt_1","type":"call.started","created_at":"2026-01-01T00:00:00.000Z","data":{"note":"héllo ☎"}}';
const GOOD = createHmac('sha256', SECRET).update(Buffer.from(BODY, 'utf8')).digest('hex');

describe('sign', () => {
  it('is lowercase hex HMAC-SHA256 of the UTF-8 bytes under the whole secret string', () => {
    expect(sign(BODY, SECRET)).toBe(GOOD);
    expect(sign(BODY, SECRET)).toMatch(/^[0-9a-f]{64}$/);
    expect(sign(Buffer.from(BODY), SECRET)).toBe(GOOD);
  });
});

describe('verifyWebhook', () => {
  it('accepts the right signature over a string, a Buffer, a Uint8Array or an ArrayBuffer', () => {
    const bytes = new TextEncoder().encode(BODY);
    expect(verifyWebhook(BODY, GOOD, SECRET)).toBe(true);
    expect(verifyWebhook(Buffer.from(BODY, 'utf8'), GOOD, SECRET)).toBe(true);
    expect(verifyWebhook(bytes, GOOD, SECRET)).toBe(true);
    expect(verifyWebhook(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), GOOD, SECRET)).toBe(true);
  });

  it('reads only the view of a Uint8Array, not the whole buffer behind it', () => {
    const padded = Buffer.from(`xx${BODY}yy`, 'utf8');
    expect(verifyWebhook(padded.subarray(2, padded.length - 2), GOOD, SECRET)).toBe(true);
  });

  it('accepts an uppercase hex signature (same bytes)', () => {
    expect(verifyWebhook(BODY, GOOD.toUpperCase(), SECRET)).toBe(true);
  });

  it('signs an empty body too', () => {
    expect(verifyWebhook('', sign('', SECRET), SECRET)).toBe(true);
    expect(verifyWebhook('', GOOD, SECRET)).toBe(false);
  });

  it('rejects a body changed in any way, including re-serialised JSON', () => {
    expect(verifyWebhook(`${BODY} `, GOOD, SECRET)).toBe(false);
    expect(verifyWebhook(BODY.replace('call.started', 'call.answered'), GOOD, SECRET)).toBe(false);
    expect(verifyWebhook(JSON.stringify(JSON.parse(BODY), null, 2), GOOD, SECRET)).toBe(false);
  });

  it('rejects the wrong secret', () => {
    expect(verifyWebhook(BODY, GOOD, `${SECRET}x`)).toBe(false);
    expect(verifyWebhook(BODY, GOOD, 'whsec_other')).toBe(false);
  });

  it.each([
    ['a one-character change', GOOD.slice(0, -1) + (GOOD.endsWith('0') ? '1' : '0')],
    ['a short signature', GOOD.slice(0, 63)],
    ['a long signature', `${GOOD}00`],
    ['a truncated 32-char prefix', GOOD.slice(0, 32)],
    ['an empty signature', ''],
    ['non-hex characters', `${GOOD.slice(0, 62)}zz`],
    ['a prefixed signature', `sha256=${GOOD}`],
    ['surrounding whitespace', ` ${GOOD}`],
    ['base64 of the right digest', Buffer.from(GOOD, 'hex').toString('base64')],
  ])('returns false for %s', (_name, signature) => {
    expect(verifyWebhook(BODY, signature, SECRET)).toBe(false);
  });

  it.each([
    ['a number signature', BODY, 42, SECRET],
    ['an undefined signature', BODY, undefined, SECRET],
    ['an array signature (a repeated header)', BODY, [GOOD, GOOD], SECRET],
    ['an empty secret', BODY, GOOD, ''],
    ['a number secret', BODY, GOOD, 7],
    ['a null secret', BODY, GOOD, null],
    ['a null body', null, GOOD, SECRET],
    ['an object body', { id: 'evt_1' }, GOOD, SECRET],
    ['a number body', 12, GOOD, SECRET],
  ])('returns false, without throwing, for %s', (_name, body, signature, secret) => {
    expect(() => verifyWebhook(body as never, signature as never, secret as never)).not.toThrow();
    expect(verifyWebhook(body as never, signature as never, secret as never)).toBe(false);
  });
});
