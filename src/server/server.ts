// Longer than most files: the standalone server's one HTTP listener, with what only it does around the two route
// tables (Host and Origin guards, a key to its session, the public URL, a parser's refusals with their headers).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { bearerToken } from '../api/auth.js';
import { Answer } from '../api/answer.js';
import { errorEnvelope, type ApiError } from '../api/errors.js';
import type { Duration } from '../core/duration.js';
import { field, SandboxError, said } from '../core/errors.js';
import { WALL_CLOCK, type ClockMode, type WallClock } from '../core/clock.js';
import { SeededRandom } from '../core/random.js';
import { resolveOptions } from '../options.js';
import type { Sandbox } from '../sandbox.js';
import { serveControl, serverFailure } from './control/api.js';
import { checkHost, foreignPage, hostPolicy, originPolicy, ownOrigin, type Refusal } from './guard.js';
import {
  answerRaw,
  json,
  rawAuthorization,
  KEEP_ALIVE_TIMEOUT,
  keepConnections,
  NodeIncoming,
  send,
  toRequest,
  urlOf,
  writeAnswer,
} from './http.js';
import { asKnown, checkSessionDefaults, Sessions, type Session } from './sessions.js';
import type { CoverageReport } from '../scripting/coverage-report.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { SessionStreams } from './stream.js';
import { HEAP, type HeapGauge } from './capacity.js';

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** TCP port; 0 picks a free one. Default 12111. */
  port?: number;
  /** Address to listen on. Default `127.0.0.1` (loopback: the control API has no authentication). */
  host?: string;
  /** Seed of the default session and of new sessions that give none. Default 0. */
  seed?: number;
  /** Virtual start of the default session and of new sessions that give none. Default `2026-01-01T00:00:00Z`. */
  startTime?: string | number | Date;
  /**
   * Host names (besides IP addresses of this machine, `localhost` and names under `.localhost`)
   * that requests may send in `Host`; `true` accepts any. Default none: a request for another
   * name is 403, which stops DNS rebinding (docs/server.md, "Security model").
   */
  allowedHosts?: readonly string[] | true;
  /**
   * Web origins (`http://localhost:3000`) whose pages may call `/v1` from a browser; `true`
   * allows any. Default none: a `/v1` request with another page's `Origin` is 403, so a web page
   * the developer happens to open cannot use the sandbox (docs/server.md, "Security model").
   * The control API never answers other origins.
   */
  allowedOrigins?: readonly string[] | true;
  /**
   * Real time a webhook attempt may take before it counts as failed, in every session that
   * gives none: createSandbox's `webhookTimeout` (default `'10s'`). A short one (`'2s'`) keeps a
   * receiver that hangs from holding `advance` for long (docs/webhooks.md, "A receiver that hangs").
   */
  webhookTimeout?: Duration;
  /**
   * How the virtual time of the default session, and of new sessions that give none, moves:
   * `'manual'` (default) or `'realtime'` (docs/clock-and-determinism.md, "Clock modes").
   */
  clock?: ClockMode;
  /** The default session starts from this snapshot (`serve --import FILE`, docs/snapshots.md). */
  snapshot?: SandboxSnapshot;
  /**
   * Live sessions the server holds at most, the default one included; past it `POST
   * /__sandbox/sessions` is 409 until finished tests delete theirs. Default 1000 (docs/server.md, "Sessions").
   * Fewer when the heap could not hold that many at their journals full (server/capacity.ts): 409 as well.
   */
  maxSessions?: number;
  /**
   * What absolute URLs in answers and webhook bodies start with (a recording's `url`,
   * `call.completed`'s `recording_url`): an http(s) URL, e.g. `http://sandbox.test:8080`. Default: the
   * server's own URL when a port was asked for, and `http://127.0.0.1:12111` (the default address)
   * when the system picked one (`port: 0`), so two runs give the same bytes whatever port they got
   * (docs/server.md, "Absolute URLs"). The server answers their paths at its own address whatever
   * origin they name.
   */
  publicUrl?: string;
  /**
   * Requests each session's journal keeps (`GET /__sandbox/sessions/{s}/requests`): createSandbox's
   * `maxJournalEntries`, default 10,000 (docs/server.md, "Limits"). A session made from a snapshot
   * keeps the snapshot's.
   */
  maxJournalEntries?: number;
}

/** A running server (docs/server.md). */
export interface SandboxServer {
  /** `http://HOST:PORT`: the API is under `/v1`, the control API under `/__sandbox`. */
  readonly url: string;
  /** The default session's sandbox. */
  readonly sandbox: Sandbox;
  /**
   * A test key of the default session, made when first read (what `svc-sandbox exec` hands its
   * command as `SVC_API_KEY`): secret, unless a seed was asked for (docs/server.md, "Security model").
   */
  readonly apiKey: string;
  /** Stops listening, ends every session and closes open connections. */
  close(): Promise<void>;
  /** The union of the coverage of every session, deleted ones included; after close() too (docs/coverage.md). */
  coverage(): CoverageReport;
}

const CONTROL = '/__sandbox';

/**
 * Starts the sandbox as a standalone HTTP server on loopback, so test suites in any
 * language use it: the API at `url + '/v1'`, the control API at `url + '/__sandbox'`, the
 * console at `url + '/__sandbox/console'`. Each session is a sandbox of its own (its own
 * virtual clock, seed and state); requests are routed to a session by their API key.
 *
 * @example
 * import { startServer } from 'svc-sandbox';
 * const server = await startServer({ port: 0 });
 * const res = await fetch(`${server.url}/v1/calls`, {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer SVC_TEST_me', 'content-type': 'application/json' },
 *   body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
 * });
 * await server.sandbox.advance('65s');
 * await server.close();
 */
export async function startServer(options: ServerOptions = {}): Promise<SandboxServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 12111;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new SandboxError(`port must be an integer from 0 to 65535, got ${String(port)}.`, {
      where: 'startServer',
      code: 'invalid_options',
      param: 'port',
    });
  // Bad seed, start time, clock, webhook timeout, session cap or host list: refused before a port is taken.
  checkSessionDefaults(options);
  const resolved = resolveOptions({
    seed: options.seed ?? 0,
    ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.webhookTimeout === undefined ? {} : { webhookTimeout: options.webhookTimeout }),
    ...(options.maxJournalEntries === undefined ? {} : { maxJournalEntries: options.maxJournalEntries }),
  });
  const publicUrl = options.publicUrl === undefined ? undefined : checkPublicUrl(options.publicUrl);
  const policy = hostPolicy(
    options.allowedHosts,
    (message) => new SandboxError(message, { where: 'startServer', code: 'invalid_options', param: 'allowedHosts' }),
  );
  const browserOrigins = originPolicy(
    options.allowedOrigins,
    (message) => new SandboxError(message, { where: 'startServer', code: 'invalid_options', param: 'allowedOrigins' }),
  );
  let sessions!: Sessions;
  /** Resolved once the sessions are made: a snapshot's replay (`--import`) runs in slices, and a request meanwhile waits for it. */
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  let isStarted = false;
  let defaultSandbox!: Sandbox;
  let isOwnOrigin!: (origin: string) => boolean;
  /** Request ids of the answers no session gives (a deleted session's key). */
  const random = new SeededRandom(options.seed ?? 0);
  const server = createServer((req, res) => {
    // Nothing a client sends may crash the server: a failure here is a 400, or a dropped socket.
    serve(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(400, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify(errorEnvelope('invalid_parameter', 'The request could not be read.')));
    });
  });
  keepConnections(server, (options as { [KEEP_ALIVE_TIMEOUT]?: number })[KEEP_ALIVE_TIMEOUT]);
  // What Node's parser refuses before a request exists still gets the JSON envelope.
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    const [status, reason, body] = parserRefusal(error.code);
    answerRaw(socket, status, reason, body, rateHeadersOf(rawAuthorization(error.rawPacket)));
  });

  /** The rate-limit headers of a refused request that names a valid key of a live session (docs/rate-limits.md: every response carries them). */
  function rateHeadersOf(authorization: string | null): Record<string, string> {
    if (authorization === null || !sessions) return {};
    const session = sessions.route(bearerToken(authorization));
    if (session === 'gone' || session === 'forged') return {};
    return session.internals.rateHeaders(authorization) ?? {};
  }
  server.on('connect', (_req, socket) =>
    answerRaw(
      socket,
      405,
      'Method Not Allowed',
      errorEnvelope(
        'method_not_allowed',
        'CONNECT is not a method the sandbox answers: it is no proxy. Send GET, HEAD, POST, PUT, DELETE or OPTIONS to a path such as /v1/calls.',
      ),
    ),
  );
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  isOwnOrigin = ownOrigin(address.port, localAddresses(address), policy);
  try {
    sessions = await Sessions.start(
      url,
      {
        seed: options.seed ?? 0,
        startTime: options.startTime,
        seeded: options.seed !== undefined,
        webhookTimeout: options.webhookTimeout,
        clock: options.clock,
        snapshot: options.snapshot,
        maxSessions: options.maxSessions,
        maxJournalEntries: options.maxJournalEntries,
        wall: (options as { [WALL_CLOCK]?: WallClock })[WALL_CLOCK],
        heap: (options as { [HEAP]?: HeapGauge })[HEAP],
        publicUrl: publicUrl ?? (port === 0 ? DEFAULT_PUBLIC_URL : url),
        journalDefault: resolved.maxJournalEntries,
      },
      (session) =>
        new SessionStreams(session, (id) => {
          const listed = sessions.get(id);
          return listed ? { id: listed.id, seed: listed.seed, now: listed.sandbox.now().toISOString() } : null;
        }),
    );
    defaultSandbox = sessions.default.sandbox;
  } catch (error) {
    server.close();
    throw error;
  } finally {
    isStarted = true;
    markStarted();
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isStarted) await started;
    const target = originForm(req.url ?? '/');
    const refused = checkHost(req.headers.host, policy) ?? (target.host === null ? null : checkHost(target.host, policy));
    if (refused) return writeJson(req, res, refused.status, errorEnvelope(refused.code, refused.message, refused.param));
    let road: () => Promise<Reached>;
    try {
      const at = urlOf(url, target.path);
      // The roads (docs/architecture.md, "One road"), mounted by path as hono mounts sub-apps.
      if (at.pathname === CONTROL || at.pathname.startsWith(`${CONTROL}/`)) {
        const request = toRequest(req, at);
        road = () => control(request, at.pathname.slice(CONTROL.length) || '/');
      } else {
        const request = new NodeIncoming(req, at);
        road = () => v1(request);
      }
    } catch {
      // A method the web platform refuses (TRACE, TRACK) or a target no URL can hold.
      const method = /^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH)$/.test(req.method ?? '');
      const body = method
        ? errorEnvelope(
            'invalid_parameter',
            `The request target ${JSON.stringify(String(req.url).slice(0, 100))} is not a URL path; send a path such as /v1/calls.`,
          )
        : errorEnvelope(
            'method_not_allowed',
            `${req.method} is not a method the sandbox answers; use GET, HEAD, POST, PUT, DELETE or OPTIONS.`,
          );
      return writeJson(req, res, method ? 400 : 405, body);
    }
    const { answer, signal, session } = await road();
    // The Date of the session that answered, if it still exists (a DELETE ends it): else the default's.
    const dated = session !== null && sessions.get(session.id) === session ? session : sessions.default;
    // An answer given before the request's body was read (a 413, a refusal) closes the connection
    // once sent, so the unread rest of the body is never taken for the next request and a
    // kept-alive client opens a new socket (docs/server.md, "Connections after an early answer").
    if (!req.complete) {
      res.shouldKeepAlive = false;
      req.resume();
    }
    const now = dated.sandbox.now();
    try {
      await (answer instanceof Answer ? writeAnswer(res, answer, signal, now) : send(res, answer, signal(), now));
    } catch {
      res.destroy();
    }
  }

  /** The control road: the guard, then control/api.ts `serveControl` (row, session, body, schemas). */
  async function control(request: Request, path: string): Promise<Reached> {
    const { response, session } = await serveControl(request, path, sessions, url, isOwnOrigin).catch((error: unknown) => ({
      response: serverFailure(error),
      session: null,
    }));
    return { answer: response, signal: () => request.signal, session };
  }

  /**
   * The `/v1` road: a page's Origin, the session the key routes to, then that sandbox's pipeline
   * (faults, chaos, row, key, rate limit, scope, body, schemas), whose answer is written as it is.
   */
  async function v1(request: NodeIncoming): Promise<Reached> {
    const signal = () => request.signal;
    try {
      const origin = request.headers.get('origin');
      if (origin !== null && !isOwnOrigin(origin) && !browserOrigins(origin))
        return { answer: refusalResponse(foreignPage(origin)), signal, session: null };
      const token = bearerToken(request.headers.get('authorization'));
      const session = sessions.route(token);
      if (session === 'gone' || session === 'forged')
        return { answer: refusedKey(session, random, sessions.default.sandbox.now().getTime()), signal, session: null };
      const answer = await session.internals.answer(asKnown(session, request));
      const unissued = session === sessions.default && token !== null && TEST_KEY.test(token) && !session.issued.has(token);
      return { answer: unissued ? toldUnissued(answer) : answer, signal, session };
    } catch (error) {
      return { answer: serverFailure(error), signal, session: null };
    }
  }

  return {
    url,
    // The default session's sandbox, the same object before and after close().
    sandbox: defaultSandbox,
    get apiKey() {
      // A default session started from a snapshot (--import) keeps the key its client had.
      return (sessions.default.primaryKey ??= sessions.makeKey(sessions.default));
    },
    coverage: () => sessions.coverage(),
    close: () =>
      new Promise<void>((resolve) => {
        sessions.closeAll();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** A test key as the API reads one (docs/auth-and-accounts.md): the only kind the hint below is for. */
const TEST_KEY = /^SVC_TEST_[A-Za-z0-9_-]+$/;

/** What a client with a key no session issued is told, in a header of every answer (ASCII, one line). */
export const UNISSUED_HINT =
  'This key was issued by no session, so it reaches the default session, as an account of its own. For a session of your own ' +
  '(its own clock and state) POST /__sandbox/sessions and use the apiKey it answers (docs/server.md, "Sessions").';

/**
 * The answer to a key no session issued (a made-up `SVC_TEST_mykey`): served by the default
 * session as any key is, with `X-Sandbox-Session: default` and the hint; a 404 also says it in its
 * message, since what the client looks for may live in a session its key does not reach. A 2xx
 * body is never changed.
 */
function toldUnissued(answer: Answer): Answer {
  if (answer.status === 0) return answer;
  answer.set('x-sandbox-session', 'default');
  answer.set('x-sandbox-hint', UNISSUED_HINT);
  if (answer.status !== 404 || typeof answer.body !== 'string') return answer;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return answer;
  }
  const error = (parsed as { error?: { message?: unknown } } | null)?.error;
  if (error === undefined || typeof error.message !== 'string') return answer;
  error.message =
    `${error.message} (This key was issued by no session: it reaches the default session, where it is an account of its own, so ` +
    'what another session or key made is not here. Use the apiKey POST /__sandbox/sessions answered, or make one with POST ' +
    '/__sandbox/sessions/{s}/keys.)';
  return new Answer(answer.status, answer.headers, JSON.stringify(parsed));
}

/** What absolute URLs in answers name when the system picked the port: the address `serve` listens on by default. */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:12111';

/** `publicUrl` as the sessions use it (no trailing slash), or a SandboxError naming it and the fix. */
function checkPublicUrl(value: unknown): string {
  const refuse = (why: string): never => {
    throw new SandboxError(said`${field('publicUrl')} ${why}`, { where: 'startServer', code: 'invalid_options', param: 'publicUrl' });
  };
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (url === null) return refuse(`must be an absolute http(s) URL such as 'http://127.0.0.1:12111', got ${JSON.stringify(value)}.`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse(`must be http or https, got ${url.protocol}`);
  if (url.search || url.hash || url.username || url.password) refuse('must have no query, fragment or credentials.');
  return url.href.replace(/\/$/, '');
}

/**
 * The 401 of a key no session answers: a deleted session's, or one that names a session which
 * never issued it (forged). It carries the headers every response carries (docs/errors.md,
 * docs/rate-limits.md): a request id, and the rate-limit headers of a standard key's first
 * request in the current second of the default session's clock.
 */
function refusedKey(why: 'gone' | 'forged', random: SeededRandom, nowMs: number): Response {
  const reset = String(Math.floor(nowMs / 1000) + 1);
  const message =
    why === 'gone'
      ? 'This key belongs to a session that was deleted (DELETE /__sandbox/sessions/{s}); start a new session for a new key.'
      : 'This key names a session that never issued it: use the apiKey that POST /__sandbox/sessions answered, or make one with POST ' +
        '/__sandbox/sessions/{s}/keys.';
  return json(401, errorEnvelope('invalid_api_key', message), {
    'x-request-id': random.id('req'),
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': reset,
  });
}

function refusalResponse(refused: Refusal | ApiError<string>): Response {
  return json(refused.status, errorEnvelope(refused.code, refused.message, refused.param));
}

/** What a road answered, and the session that answered it (its virtual now is the answer's `Date`). */
interface Reached {
  answer: Answer | Response;
  /** The request's signal: a streamed answer stops when it aborts. */
  signal: () => AbortSignal;
  session: Session | null;
}

/** A JSON answer written at once, before any Request is made (the connection closes if the body was not read). */
function writeJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.shouldKeepAlive = req.complete;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
  req.resume();
}

/**
 * The path and query of a request target, and the host of an absolute-form one
 * (`GET http://host/path HTTP/1.1`), which must pass the same Host check as the header.
 */
function originForm(target: string): { path: string; host: string | null } {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target) || !URL.canParse(target)) return { path: target, host: null };
  const absolute = new URL(target);
  return { path: `${absolute.pathname}${absolute.search}`, host: absolute.host };
}

/** The IP addresses this server answers on: the bound one, and every interface's when bound to all. */
function localAddresses(address: AddressInfo): Set<string> {
  const bracket = (ip: string, family: string | number) => (family === 'IPv6' || family === 6 ? `[${ip.toLowerCase()}]` : ip);
  const all = new Set([bracket(address.address, address.family)]);
  if (address.address === '0.0.0.0' || address.address === '::') {
    for (const list of Object.values(networkInterfaces()))
      for (const net of list ?? []) all.add(bracket(net.address.replace(/%.*$/, ''), net.family));
  }
  return all;
}

/** The status, reason phrase and JSON body for a request Node's HTTP parser refused. */
function parserRefusal(code: string | undefined): [number, string, unknown] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        'Request Header Fields Too Large',
        errorEnvelope(
          'invalid_parameter',
          'The request line and headers are larger than the server reads (16 KiB): shorten the query or the headers.',
        ),
      ];
    case 'HPE_INVALID_METHOD':
      return [
        405,
        'Method Not Allowed',
        errorEnvelope('method_not_allowed', 'That is not a method the sandbox answers; use GET, HEAD, POST, PUT, DELETE or OPTIONS.'),
      ];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        'Request Timeout',
        errorEnvelope('invalid_parameter', 'The request was not received in time: send its headers and body without pausing.'),
      ];
    default:
      return [
        400,
        'Bad Request',
        errorEnvelope(
          'invalid_parameter',
          `The request is not valid HTTP/1.1${code ? ` (${code})` : ''}: check its request line and headers.`,
        ),
      ];
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(
        error.code === 'EADDRINUSE'
          ? new SandboxError(
              `Port ${port} on ${host} is already in use: stop what listens there, or pass another port (--port 0 picks a free one).`,
              { code: 'conflict', param: 'port' },
            )
          : error,
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
