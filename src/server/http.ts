import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Answer } from '../api/answer.js';
import type { BodySource, Incoming } from '../api/request-body.js';
import { Slices } from '../core/slices.js';

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

/** The URL a request target names below the server's origin; throws for a target no URL can hold. */
export function urlOf(origin: string, target: string): URL {
  // A path is always below the server's origin: `//host/x` is the path `//host/x`, not another host.
  return new URL(target.startsWith('/') ? `${origin}${target}` : target, origin);
}

/** An AbortSignal that aborts when the client closes a request it had not finished sending. */
function closedBy(req: IncomingMessage): AbortSignal {
  const abort = new AbortController();
  const closed = () => {
    if (!req.complete || !req.readableEnded) abort.abort(new Error('The client closed the request.'));
  };
  if (req.destroyed) closed();
  else req.once('close', closed);
  return abort.signal;
}

/** The web Request of a `node:http` request (the control road's); its signal aborts when the client goes away. */
export function toRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal: closedBy(req),
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Methods a web Request refuses to carry: the `/v1` road refuses them as the control road's Request does. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * A `/v1` request as the pipeline reads it (api/request-body.ts `Incoming`), straight from the
 * `node:http` request: no `Request`, `Headers`, web stream or `AbortSignal` is made for it (the
 * signal only when a streaming handler asks). Headers read as a web `Headers` reads them: each
 * name's values joined with `, `.
 */
export class NodeIncoming implements Incoming, BodySource {
  readonly method: string;
  readonly url: string;
  readonly body: BodySource | null;
  /** Its own `get` and `forEach` read the headers: no object is made per request for them. */
  readonly headers: Incoming['headers'] = this;
  private readonly distinct: NodeJS.Dict<string[]>;
  private aborted: AbortSignal | undefined;

  constructor(
    private readonly req: IncomingMessage,
    url: URL,
  ) {
    const method = req.method ?? 'GET';
    if (FORBIDDEN_METHODS.has(method.toUpperCase())) throw new TypeError(`${method} is not a method a request may have.`);
    this.method = method;
    this.url = url.href;
    this.body = method === 'GET' || method === 'HEAD' ? null : this;
    this.distinct = req.headersDistinct;
  }

  /** A header as a web `Headers` gives it: its values joined with `, `; `name` in lower case. */
  get(name: string): string | null {
    const values = this.distinct[name];
    return values === undefined ? null : values.length === 1 ? (values[0] ?? null) : values.join(', ');
  }

  /** Each header as a web `Headers` gives it (names in lower case). */
  forEach(each: (value: string, name: string) => void): void {
    for (const name in this.distinct) each(this.get(name)!, name);
  }

  get signal(): AbortSignal {
    this.aborted ??= closedBy(this.req);
    return this.aborted;
  }

  /** The body's bytes, read no further than `limit`: null as soon as more has arrived (the rest is left unread). */
  read(limit: number): Promise<Uint8Array | null> {
    const { req } = this;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const done = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        total += chunk.length;
        if (total <= limit) chunks.push(chunk);
        else {
          done();
          req.pause();
          resolve(null);
        }
      };
      const onEnd = () => {
        done();
        const [only] = chunks;
        resolve(chunks.length === 1 && only ? only : Buffer.concat(chunks, total));
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      // Closed before its end: the client went away mid-body.
      const onClose = () => onError(new Error('The client closed the request.'));
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onError);
      req.once('close', onClose);
    });
  }
}

/**
 * Writes a web Response to a `node:http` response, streaming its body (server-sent events stay
 * live). `date` is the answering session's virtual now, sent as the `Date` header (an RFC 9110
 * IMF-fixdate) instead of the wall clock `node:http` would send, so `Date`, `X-RateLimit-Reset`
 * and `Retry-After` are on one clock.
 */
export function send(res: ServerResponse, response: Response, aborted: AbortSignal, date?: Date): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  if (date !== undefined && !Number.isNaN(date.getTime())) headers.date = date.toUTCString();
  return stream(res, response.status, headers, response.body, aborted);
}

/** Writes a head and streams a body, stopping it when the client goes away. */
async function stream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: ReadableStream<Uint8Array> | null,
  aborted: AbortSignal,
): Promise<void> {
  res.writeHead(status, headers);
  if (!body) {
    res.end();
    return;
  }
  const reader = body.getReader();
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
 * Writes the `/v1` road's answer (api/answer.ts) to a `node:http` response as it is: its headers
 * in the order a `Headers` lists them (by name), `date` the session's virtual now, and a JSON or
 * byte body with its `Content-Length`, in one write. A stream (server-sent events) goes as
 * {@link send} sends one; a network fault drops the connection.
 */
export function writeAnswer(res: ServerResponse, answer: Answer, signal: () => AbortSignal, date?: Date): Promise<void> | undefined {
  if (answer.status === 0) {
    res.destroy();
    return undefined;
  }
  const list = answer.headers;
  const order: number[] = [];
  for (let i = 0; i < list.length; i += 2) if (list[i] !== 'set-cookie') order.push(i);
  order.sort((a, b) => ((list[a] ?? '') < (list[b] ?? '') ? -1 : 1));
  const headers: Record<string, string> = {};
  for (const i of order) headers[list[i] ?? ''] = list[i + 1] ?? '';
  if (date !== undefined && !Number.isNaN(date.getTime())) headers.date = date.toUTCString();
  const { body } = answer;
  if (body === null) {
    res.writeHead(answer.status, headers).end();
    return undefined;
  }
  if (body instanceof ReadableStream) return stream(res, answer.status, headers, body, signal());
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  res.writeHead(answer.status, headers).end(body);
  return undefined;
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

/**
 * A body that makes each piece when the reader asks for it (the server writes the next once the
 * socket has taken the last), and before each piece but the first lets the event loop take other
 * work (a macrotask turn, {@link Slices.pause}). A loopback socket takes megabytes at once, so its
 * `drain` comes in the same turn: without the pause the whole answer (8 MB for a 6,500-step
 * scenario) was made and written in one turn, other sessions and `/health` waiting for it.
 */
export function pieceByPiece(pieces: Generator<string, void, void>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  // A slice of no length: every piece after the first starts a new turn (a piece is under a millisecond of work).
  const slices = new Slices(0);
  let first = true;
  const put = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const next = pieces.next();
    if (next.done) controller.close();
    else controller.enqueue(encoder.encode(next.value));
  };
  return new ReadableStream({
    pull(controller) {
      if (first) {
        first = false;
        put(controller);
        return undefined;
      }
      return slices.pause().then(() => put(controller));
    },
  });
}

/**
 * A JSON error written straight to a socket, for the refusals Node's HTTP parser makes before
 * a request exists (a bad method, headers over the limit, CONNECT): the connection is closed
 * after it, since the parser cannot go on.
 */
export function answerRaw(
  socket: import('node:stream').Duplex,
  status: number,
  reason: string,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(body);
  const more = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n${more}content-type: application/json; charset=utf-8\r\ncontent-length: ` +
      `${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/**
 * The Authorization header of what a client sent before the parser refused it (its raw bytes,
 * as far as they arrived): the answer then carries that key's rate-limit headers.
 */
export function rawAuthorization(raw: Buffer | undefined): string | null {
  if (!raw) return null;
  const head = raw.toString('latin1');
  const end = head.indexOf('\r\n\r\n');
  for (const line of (end === -1 ? head : head.slice(0, end)).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).toLowerCase() === 'authorization') return line.slice(colon + 1).trim();
  }
  return null;
}
