import { createHmac, timingSafeEqual } from 'node:crypto';

/** The raw body of a webhook request as a receiver may hold it. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * The `X-Service-Signature` value of a body: lowercase hex HMAC-SHA256 of the exact bytes,
 * keyed with the whole secret string (`whsec_…`, UTF-8). The spec leaves the encoding open;
 * the sandbox chose hex (docs/webhooks.md).
 *
 * @example
 * sign('{"id":"evt_1"}', 'whsec_abc'); // '5d1f…' (64 hex characters)
 */
export function sign(rawBody: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

function bytesOf(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  // isView rather than instanceof: a Buffer or a Uint8Array from another realm (a DOM test environment) passes too.
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  return undefined;
}

/**
 * Checks a webhook request: `signature` (the `X-Service-Signature` header) must be the
 * HMAC-SHA256 of `rawBody` under `secret` (the `whsec_…` value from POST /v1/webhooks).
 * Pass the body exactly as received: the bytes, or the text decoded as UTF-8, never a
 * re-serialised `JSON.stringify(req.body)`. Compared in constant time. Returns false,
 * never throws, for a wrong, truncated, empty or non-hex signature, an empty secret or
 * arguments of the wrong type.
 *
 * @example
 * import { verifyWebhook } from 'svc-sandbox';
 * const raw = await new Response(req).text(); // or the Buffer a raw body parser gives
 * if (!verifyWebhook(raw, req.headers['x-service-signature'], process.env.WEBHOOK_SECRET)) res.writeHead(400).end();
 */
export function verifyWebhook(rawBody: RawBody, signature: string, secret: string): boolean {
  try {
    if (typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
    if (typeof secret !== 'string' || secret.length === 0) return false;
    const bytes = bytesOf(rawBody);
    if (!bytes) return false;
    const expected = createHmac('sha256', secret).update(bytes).digest();
    const given = Buffer.from(signature, 'hex');
    // timingSafeEqual throws on a length mismatch; the pattern above already fixes 32 bytes.
    return given.length === expected.length && timingSafeEqual(given, expected);
  } catch {
    return false;
  }
}
