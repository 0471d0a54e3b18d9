import { MAX_BODY_BYTES, readAtMost } from '../core/body.js';
import { checkDepth, MAX_JSON_DEPTH } from '../core/json-depth.js';
import { ApiError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** `application/json`, or a `+json` type, with parameters or none. */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** A request body as the pipeline read it: its bytes, or `over` when it passed the size limit while being read. */
export type ReadBody = Uint8Array | 'over';

/**
 * A body the standalone server reads straight from its socket, with no web stream made for it
 * (server/http.ts): its bytes, no further than `limit` (null as soon as more has arrived).
 */
export interface BodySource {
  read(limit: number): Promise<Uint8Array | null>;
}

/**
 * What the `/v1` pipeline reads of a request. A web `Request` is one; the standalone server hands
 * a lighter one over its `node:http` request (server/http.ts `NodeIncoming`), so a request over
 * HTTP costs no `Request`, `Headers`, stream or `AbortSignal` unless a handler asks for its signal.
 */
export interface Incoming {
  readonly method: string;
  /** Absolute, as a web Request serialises it (dot segments resolved, percent-encoded). */
  readonly url: string;
  /** A web `Headers` reads them: each name's values joined with `, `, names in lower case. */
  readonly headers: { get(name: string): string | null; forEach(each: (value: string, name: string) => void): void };
  readonly body: ReadableStream<Uint8Array> | BodySource | null;
  /** Aborts when the client goes away: only streaming handlers and chaos's latency ask for it. */
  readonly signal: AbortSignal;
}

/**
 * Reads a request body as JSON, refusing other content types, oversize bodies (413) and bad
 * UTF-8 or JSON (400): the control API's reader, the same refusals as `/v1`'s (the pipeline
 * reads with {@link readBody} and {@link parseJson} itself, to tell a snapshot what it read).
 * An empty body is refused, unless `optional` (a control request whose fields all have
 * defaults): then it is `undefined`.
 */
export async function readJson(request: Incoming, { optional = false }: { optional?: boolean } = {}): Promise<unknown> {
  const bytes = await readBody(request, undefined);
  if (optional && bytes.byteLength === 0) return undefined;
  return parseJson(request.headers.get('content-type'), bytes);
}

/**
 * The body's bytes, refused with 413 when its declared (`length`, the Content-Length header) or its
 * actual size is over the limit; `tape` is told what was read.
 */
export async function readBody(
  request: Incoming,
  tape: ((body: ReadBody) => void) | undefined,
  length = request.headers.get('content-length'),
): Promise<Uint8Array> {
  const declared = Number(length ?? 0);
  const { body } = request;
  if (declared > MAX_BODY_BYTES) {
    if (body instanceof ReadableStream) void body.cancel().catch(() => undefined);
    tape?.(new Uint8Array(0));
    throw tooLarge(declared);
  }
  const bytes =
    body === null ? new Uint8Array(0) : body instanceof ReadableStream ? await readAtMost(body) : await body.read(MAX_BODY_BYTES);
  tape?.(bytes ?? 'over');
  if (bytes === null) throw tooLarge(MAX_BODY_BYTES, true);
  return bytes;
}

/** {@link readBody} for a body read before (a replay): the same refusals, at once. */
export function bodyOf(length: string | null, body: ReadBody): Uint8Array {
  const declared = Number(length ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);
  if (body === 'over') throw tooLarge(MAX_BODY_BYTES, true);
  return body;
}

/** A request body as JSON, refusing other content types, empty bodies, bad UTF-8 and nesting past {@link checkDepth}'s limit. */
export function parseJson(type: string | null, bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) {
    throw new ApiError(400, 'invalid_json', 'The request body is empty: send a JSON object with Content-Type: application/json.');
  }
  if (type !== null && type !== 'application/json' && !JSON_TYPE.test(type)) {
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'it is nested too deeply';
    throw new ApiError(
      400,
      'invalid_json',
      `The request body is not valid JSON (${detail}). Send a JSON object such as {"to": "+14155550123"}.`,
    );
  }
  // Before any schema or handler walks it: a body nested 10,000 deep is a 400 naming where, not a stack overflow.
  // Nesting past the limit takes a bracket pair per level, so a shorter text (most bodies) needs no walk.
  if (text.length > 2 * MAX_JSON_DEPTH) checkDepth(value);
  return value;
}

function tooLarge(bytes: number, atLeast = false): ApiError {
  return new ApiError(
    413,
    'payload_too_large',
    `The request body is ${atLeast ? 'more than ' : ''}${atLeast ? MAX_BODY_BYTES : bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MiB).`,
  );
}
