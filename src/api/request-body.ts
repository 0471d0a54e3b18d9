import { MAX_BODY_BYTES, readAtMost } from '../core/body.js';
import { ApiError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body's bytes, refused with 413 when its declared or its actual size is over the limit. */
async function readLimited(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) {
    void request.body?.cancel().catch(() => undefined);
    throw tooLarge(declared);
  }
  if (!request.body) return new Uint8Array(0);
  const bytes = await readAtMost(request.body);
  if (bytes === null) throw tooLarge(MAX_BODY_BYTES, true);
  return bytes;
}

/**
 * Reads a request body as JSON, refusing other content types, oversize bodies (413) and bad
 * UTF-8 or JSON (400): for `/v1` and the control API alike. An empty body is refused, unless
 * `optional` (a control request whose fields all have defaults): then it is `undefined`.
 */
export async function readJson(request: Request, { optional = false }: { optional?: boolean } = {}): Promise<unknown> {
  const type = request.headers.get('content-type');
  const bytes = await readLimited(request);
  if (bytes.byteLength === 0) {
    if (optional) return undefined;
    throw new ApiError(400, 'invalid_json', 'The request body is empty: send a JSON object with Content-Type: application/json.');
  }
  if (type !== null && !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new ApiError(
      400,
      'unsupported_content_type',
      `Content-Type must be application/json, got ${type}. (fetch sends text/plain for a string body unless you set the header.)`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8: send JSON text encoded as UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'it is nested too deeply';
    throw new ApiError(400, 'invalid_json', `The request body is not valid JSON (${detail}). Send a JSON object such as {"to": "+14155550123"}.`);
  }
}

function tooLarge(bytes: number, atLeast = false): ApiError {
  return new ApiError(413, 'payload_too_large', `The request body is ${atLeast ? 'more than ' : ''}${atLeast ? MAX_BODY_BYTES : bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MiB).`);
}
