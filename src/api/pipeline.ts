import type { SeededRandom } from '../core/random.js';
import { Auth } from './auth.js';
import { ApiError } from './errors.js';
import type { Faults } from './faults.js';
import { RateLimiter } from './rate-limit.js';
import type { Router } from './router.js';

/** Largest request body accepted, in bytes (see docs/errors.md). */
export const MAX_BODY_BYTES = 1_048_576;

const utf8 = new TextDecoder('utf-8', { fatal: true });

interface PipelineDeps {
  router: Router;
  auth: Auth;
  limiter: RateLimiter;
  random: SeededRandom;
  now: () => number;
  /** Path prefix of the base URL ('' for a bare origin). */
  basePath: string;
  /** Injected faults, taken before anything else looks at the request. */
  faults: Faults;
  /** Receives exceptions that were not API errors (they become 500 responses). */
  onInternalError: (error: unknown, requestId: string) => void;
}

/**
 * The HTTP pipeline every endpoint shares, in this order: injected faults (see faults.ts),
 * route (404/405), authenticate (401), rate limit (429), authorise (403), read the JSON body
 * (400/413), handle. Every response is JSON (unless a handler replies with a `raw` body:
 * audio, server-sent events; or a fault is a network error) with `X-Request-Id` and the
 * three rate-limit headers; this is the one
 * place where API errors become responses, and where an unexpected exception becomes a
 * 500 instead of escaping into the caller's process.
 */
export class Pipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async handle(request: Request): Promise<Response> {
    const { random, auth, limiter, now } = this.deps;
    const requestId = random.id('req');
    const header = request.headers.get('authorization');
    const token = Auth.token(header);
    // Every request counts against its key's window, so every response can carry the headers.
    const rate = limiter.take(token ?? '(no key)', auth.limitFor(token), now());
    const base = { 'x-request-id': requestId, ...rate.headers };
    try {
      const { path, query } = splitUrl(request.url, this.deps.basePath);
      const fault = this.deps.faults.take(request.method, path);
      if (fault?.network) return Response.error();
      if (fault) throw fault.error;
      const { route, params } = this.deps.router.match(request.method, path);
      const principal = auth.authenticate(header);
      if (!rate.allowed) {
        throw new ApiError(429, 'rate_limited', `Rate limit of ${principal.limit} requests per second exceeded for this key; retry after the Retry-After header's seconds.`);
      }
      auth.authorize(principal, route.resource, route.method === 'GET' ? 'read' : 'write');
      const body = route.method === 'POST' || route.method === 'PUT' ? await readJson(request) : undefined;
      const reply = await route.handle({
        principal,
        params,
        query: new URLSearchParams(query),
        body,
        headers: request.headers,
        // undici makes a Request's AbortSignal on first access: only streaming handlers need it.
        get signal() {
          return request.signal;
        },
      });
      if (reply.raw !== undefined) return new Response(reply.raw, { status: reply.status, headers: { ...base, ...reply.headers } });
      return respond(reply.status, reply.body, { ...base, ...reply.headers });
    } catch (error) {
      if (error instanceof ApiError) return respond(error.status, error.toBody(), { ...base, ...error.headers });
      this.deps.onInternalError(error, requestId);
      return respond(
        500,
        { error: { code: 'internal_error', message: `The sandbox failed unexpectedly (request ${requestId}); this is a sandbox bug, retrying is safe.` } },
        base,
      );
    }
  }
}

/**
 * The path below the base path, and the query string, of a Request's URL. A Request's `url`
 * is already parsed and serialised (absolute, dot segments resolved, percent-encoded), so
 * slicing it gives what `new URL(url)` would, for a fraction of the cost on every request.
 */
export function splitUrl(url: string, basePath: string): { path: string; query: string } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart === -1) return { path: '/', query: '' };
  let end = url.indexOf('#', pathStart);
  if (end === -1) end = url.length;
  const question = url.indexOf('?', pathStart);
  const pathEnd = question === -1 || question > end ? end : question;
  return {
    path: url.slice(pathStart + basePath.length, pathEnd) || '/',
    query: pathEnd === end ? '' : url.slice(pathEnd + 1, end),
  };
}

/**
 * Headers go in as a `Headers` instance: while interception is applied, the patched
 * `Response` constructor re-reads a plain-object init into a second `Headers` to record raw
 * header names, which made every response markedly dearer.
 */
function respond(status: number, body: unknown, headers: Record<string, string>): Response {
  if (status === 204) return new Response(null, { status, headers: new Headers(headers) });
  return new Response(JSON.stringify(body), { status, headers: new Headers({ ...headers, 'content-type': 'application/json; charset=utf-8' }) });
}

/** Reads a request body as JSON, refusing other content types, oversize bodies and bad UTF-8. */
async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type');
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge(bytes.byteLength);
  if (bytes.byteLength === 0) {
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

function tooLarge(bytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The request body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MiB).`);
}
