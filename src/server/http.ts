import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * The standalone server's HTTP layer: `node:http`, with every request turned into a web
 * `Request` and answered by the same `handle(Request)` the in-process sandbox uses. No
 * framework: the sandbox already has its router, and `node:http` adds no dependency and no
 * second request path to keep in step (docs/server.md, "Why node:http").
 */

/**
 * How long an idle kept-alive connection stays open (docs/server.md, "Connections kept alive").
 * Node's default, 5 s, is shorter than clients keep a connection for reuse (undici's default
 * 4 s is a minimum: it reuses later when its timer has not run yet, as after seconds of
 * synchronous work in a test; Node's `http.globalAgent` keeps 5 s; Go's transport 90 s): a
 * client then writes on a socket the server is closing, and gets ECONNRESET. 65 s is what
 * servers behind load balancers are given (above AWS ALB's 60 s idle timeout), and Node
 * announces it (`Keep-Alive: timeout=65`), which undici and Node's agent follow.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The key of an internal option of `startServer`: another keep-alive timeout in ms, so a test
 * can watch the server close an idle connection without waiting 65 s.
 */
export const KEEP_ALIVE_TIMEOUT: unique symbol = Symbol('svc-sandbox keep-alive timeout');

/**
 * Keeps idle connections open `ms`, with the time allowed for a request's headers above it: a
 * request that arrives just before the socket would have closed still gets its whole header time.
 */
export function keepConnections(server: Server, ms = KEEP_ALIVE_TIMEOUT_MS): void {
  server.keepAliveTimeout = ms;
  server.headersTimeout = ms + 1000;
}

/**
 * The web Request of a `node:http` request; its signal aborts when the client goes away.
 * `target` is the path and query (the request line's, unless given).
 */
export function toRequest(req: IncomingMessage, origin: string, target = req.url ?? '/'): Request {
  const abort = new AbortController();
  req.once('close', () => {
    if (!req.complete || !req.readableEnded) abort.abort(new Error('The client closed the request.'));
  });
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  // A path is always below the server's origin: `//host/x` is the path `//host/x`, not another host.
  return new Request(new URL(target.startsWith('/') ? `${origin}${target}` : target, origin), {
    method,
    headers,
    signal: abort.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * Writes a web Response to a `node:http` response, streaming its body (server-sent events stay
 * live). `date` is the answering session's virtual now, sent as the `Date` header (an RFC 9110
 * IMF-fixdate) instead of the wall clock `node:http` would send, so `Date`, `X-RateLimit-Reset`
 * and `Retry-After` are on one clock.
 */
export async function send(res: ServerResponse, response: Response, aborted: AbortSignal, date?: Date): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  if (date !== undefined && !Number.isNaN(date.getTime())) headers.date = date.toUTCString();
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  aborted.addEventListener('abort', stop, { once: true });
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    aborted.removeEventListener('abort', stop);
  }
}

/**
 * A JSON answer. One that holds a long list (a scenario's timeline, the events of a long
 * advance: megabytes of JSON) is written as the client reads it, a piece at a time
 * ({@link jsonPieces}), so writing it never holds the event loop for long (docs/server.md, "Long
 * work"); its text is the same as `JSON.stringify` gives, byte for byte.
 */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers });
  const text = holdsLongList(body) ? pieceByPiece(jsonPieces(body)) : JSON.stringify(body);
  return new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** Items of a list written per piece: some tens of KB of JSON, under a millisecond to write. */
const ITEMS_PER_PIECE = 200;

/** Whether `body` is an object with a list longer than a piece among its fields (the only shape the control API answers long). */
function holdsLongList(body: unknown): body is Record<string, unknown> {
  return (
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    Object.values(body).some((value) => Array.isArray(value) && value.length > ITEMS_PER_PIECE)
  );
}

/**
 * The JSON text of `body` (a plain object, as the sandbox's answers are) in pieces: its long
 * lists {@link ITEMS_PER_PIECE} items at a time, everything else whole. Fields whose value JSON
 * leaves out (undefined) are left out, and such items of a list written `null`, as
 * `JSON.stringify` does.
 */
function* jsonPieces(body: Record<string, unknown>): Generator<string, void, void> {
  let text = '{';
  let comma = '';
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.length > ITEMS_PER_PIECE) {
      yield `${text}${comma}${JSON.stringify(key)}:[`;
      for (let at = 0; at < value.length; at += ITEMS_PER_PIECE) {
        const items = value.slice(at, at + ITEMS_PER_PIECE).map((item: unknown) => JSON.stringify(item) ?? 'null');
        yield `${at === 0 ? '' : ','}${items.join(',')}`;
      }
      text = ']';
    } else {
      const written = JSON.stringify(value);
      if (written === undefined) continue;
      text += `${comma}${JSON.stringify(key)}:${written}`;
    }
    comma = ',';
  }
  yield `${text}}`;
}

/** A body that makes each piece when the reader asks for it (the server writes the next once the socket has taken the last). */
function pieceByPiece(pieces: Generator<string, void, void>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
}

/**
 * A JSON error written straight to a socket, for the refusals Node's HTTP parser makes before
 * a request exists (a bad method, headers over the limit, CONNECT): the connection is closed
 * after it, since the parser cannot go on.
 */
export function answerRaw(socket: import('node:stream').Duplex, status: number, reason: string, body: unknown): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ` +
      `${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
