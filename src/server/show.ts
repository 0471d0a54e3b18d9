import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorEnvelope, refusalOf } from '../api/errors.js';
import { SandboxError } from '../core/errors.js';
import { queryObject } from '../core/schema.js';
import type { SandboxSnapshot } from '../scripting/snapshots.js';
import { consoleAsset } from './console.js';
import { checkControl, checkHost, hostPolicy, ownOrigin } from './guard.js';
import type { Sandbox, SandboxInternals } from '../sandbox.js';
import { pageParameters, slicePage } from './control/pages.js';
import { DEFAULT_WINDOW, MAX_WINDOW, recordHistory, type SessionHistory } from './history.js';
import { json, pieceByPiece, send } from './http.js';

/**
 * `svc-sandbox show FILE`: the console over a snapshot, read-only, with a time control
 * (docs/debugging.md). The snapshot is replayed once into a {@link SessionHistory}; the page
 * then reads the session at any instant from it:
 *
 * - `GET /__sandbox/show`: the file, the session's seed, start and end, and its events (each
 *   with its instant, type and the resource it is about): the marks of the time axis.
 * - `GET /__sandbox/show/state?at=ISO`: the session at that instant (default its end): every
 *   item of the console's lists and keys as they were then, the event log's length and its
 *   newest events. With `&from=ISO`, only what changed since that instant, as the live
 *   console's `change` frames carry it (the whole state when more than 2,000 items changed).
 * - `GET /__sandbox/sessions/{s}/requests`: the request journal, whole and paged as the live
 *   server's (the page shows the entries answered by the instant on screen).
 * - the console's page and files, with the page marked `data-mode="show"`; a ready recording's
 *   audio (`/__sandbox/sessions/{s}/console/recordings/{id}/audio`) and `/__sandbox/health`.
 *
 * Nothing changes the shown session: any other method is 405, `/v1` is not served (the
 * snapshot holds the session's inputs; `svc-sandbox serve --import FILE` goes on from them).
 * The Host, Origin and delivery-header rules of the server's control API apply
 * (docs/server.md, "Security model").
 */

export interface ShowOptions {
  /** The snapshot's file, as the user named it (shown on the page and in answers). */
  file: string;
  snapshot: SandboxSnapshot;
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
}

export interface ShowServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The console's address. */
  readonly consoleUrl: string;
  readonly history: SessionHistory;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const CONTROL = '/__sandbox';
const READ_ONLY = 'GET, HEAD';

/**
 * Replays the snapshot into its history and serves the console over it on 127.0.0.1. Throws a
 * SandboxError when the snapshot is refused (before a port is taken) or the port is taken.
 *
 * @example
 * const show = await startShow({ file: 'snap.json', snapshot: readSnapshotFile('snap.json'), port: 0 });
 * console.log(show.consoleUrl); // http://127.0.0.1:PORT/__sandbox/console
 */
export async function startShow(options: ShowOptions): Promise<ShowServer> {
  const { history, sandbox, internals } = recordHistory(options.snapshot);
  // The parsed snapshot is not kept: the sandbox and the index hold all that is shown.
  const { file, port: askedPort } = options;
  // The marks of every event are the larger part: written as they are read, a page at a time.
  function* metaJson(): Generator<string, void, void> {
    yield `{"file":${JSON.stringify(file)},"seed":${JSON.stringify(sandbox.seed)},"start":"${iso(history.start)}","end":"${iso(history.end)}","events":`;
    yield* history.marksJson();
    yield '}';
  }
  const policy = hostPolicy(undefined, (message) => new Error(message));
  let isOwnOrigin: (origin: string) => boolean = () => false;

  const answer = async (request: { method: string; url: URL; headers: Headers }): Promise<Response> => {
    const { method, url } = request;
    if (method !== 'GET' && method !== 'HEAD') {
      return json(
        405,
        errorEnvelope(
          'method_not_allowed',
          `svc-sandbox show serves ${file} read-only: nothing here changes the session. To go on from it, start a ` +
            `server with svc-sandbox serve --import ${file}.`,
        ),
        { allow: READ_ONLY },
      );
    }
    if (url.pathname !== CONTROL && !url.pathname.startsWith(`${CONTROL}/`)) return notServed(url.pathname, file);
    const path = url.pathname.slice(CONTROL.length);
    const refused = checkControl(request.headers, method, false, isOwnOrigin);
    if (refused) return json(refused.status, errorEnvelope(refused.code, refused.message, refused.param));
    const asset = consoleAsset(path, method);
    if (asset) return asset.headers.get('content-type')?.startsWith('text/html') ? markShow(asset) : asset;
    if (path === '/health') return json(200, { status: 'ok' });
    if (path === '/show') return new Response(pieceByPiece(metaJson()), { headers: JSON_TYPE });
    if (path === '/show/state') return stateAnswer(history, url.searchParams);
    if (/^\/sessions\/[^/]+\/requests$/.test(path)) return requestsAnswer(sandbox, url.searchParams);
    const audio = /^\/sessions\/[^/]+\/console\/recordings\/([^/]+)\/audio$/.exec(path);
    const recording = audio?.[1];
    if (recording !== undefined) {
      const id = decoded(recording);
      // A malformed percent-encoding names no recording: a 404, as the live server answers it.
      return audioAnswer(id === undefined ? undefined : internals.view().audio(id), recording);
    }
    return notServed(url.pathname, file);
  };

  const server = createServer((req, res) => {
    void serve(req, res).catch(() => res.destroy());
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const refusedHost = checkHost(req.headers.host, policy);
    let response: Response;
    if (refusedHost) response = json(refusedHost.status, errorEnvelope(refusedHost.code, refusedHost.message, refusedHost.param));
    else {
      const headers = new Headers();
      const raw = req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
      const path = req.url ?? '/';
      try {
        const url = new URL(path.startsWith('/') ? path : `/${path}`, `http://${HOST}`);
        response = await answer({ method: req.method ?? 'GET', url, headers });
      } catch (error) {
        response = json(500, errorEnvelope('internal_error', `svc-sandbox show failed unexpectedly: ${(error as Error).message}.`));
      }
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    await send(res, req.method === 'HEAD' ? new Response(null, response) : response, abort.signal);
  }
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new SandboxError(`Port ${askedPort} on ${HOST} is already in use: pass another port (--port 0 picks a free one).`, {
              code: 'conflict',
              param: 'port',
            })
          : error,
      ),
    );
    server.listen(askedPort ?? 0, HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  isOwnOrigin = ownOrigin(port, new Set([HOST]), policy);
  const url = `http://${HOST}:${port}`;
  return {
    url,
    consoleUrl: `${url}${CONTROL}/console`,
    history,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** `text` percent-decoded, or undefined when its encoding is malformed (`%ff`). */
function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const iso = (ms: number) => new Date(ms).toISOString();

/** The console's page, marked as showing a snapshot: the page hides what would change it, and shows its time control. */
async function markShow(page: Response): Promise<Response> {
  const html = (await page.text()).replace('<html lang="en">', '<html lang="en" data-mode="show">');
  return new Response(html, { status: page.status, headers: page.headers });
}

/**
 * `GET /__sandbox/show/state?at=ISO[&from=ISO][&limit=N]`: each list windowed to its newest
 * `limit` items (default {@link DEFAULT_WINDOW}, at most {@link MAX_WINDOW}), `counts` saying
 * how many there were, so an answer stays a few MB whatever the session.
 */
function stateAnswer(history: SessionHistory, query: URLSearchParams): Response {
  for (const name of query.keys()) {
    if (name !== 'at' && name !== 'from' && name !== 'limit')
      return badQuery(
        `Unknown parameter \`${name.slice(0, 40)}\`: /__sandbox/show/state takes \`at\` and \`from\` (ISO 8601 instants) and \`limit\` (1 to ${MAX_WINDOW}).`,
        name.slice(0, 40),
      );
  }
  const limits = query.getAll('limit');
  const limit = limits.length === 0 ? DEFAULT_WINDOW : /^\d{1,5}$/.test(limits[0] ?? '') ? Number(limits[0]) : 0;
  if (limits.length > 1) return badQuery(`\`limit\` is given ${limits.length} times; give it once.`, 'limit');
  if (limit < 1 || limit > MAX_WINDOW)
    return badQuery(
      `\`limit\` must be an integer from 1 to ${MAX_WINDOW} (the newest items of each list to send); got ${JSON.stringify(String(limits[0]).slice(0, 20))}.`,
      'limit',
    );
  const at = instantParam(history, query, 'at');
  if (typeof at !== 'number') return at;
  if (!query.has('from')) return new Response(history.stateAt(at, limit), { headers: JSON_TYPE });
  const from = instantParam(history, query, 'from');
  if (typeof from !== 'number') return from;
  return new Response(history.changesBetween(from, at) ?? history.stateAt(at, limit), { headers: JSON_TYPE });
}

/** An instant of the session (default its end), or the 400 that says what one is. */
function instantParam(history: SessionHistory, query: URLSearchParams, name: 'at' | 'from'): number | Response {
  const values = query.getAll(name);
  if (values.length === 0) return history.end;
  const text = values[0] ?? '';
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : Number.NaN;
  const range = `from ${iso(history.start)} (the session's start) to ${iso(history.end)} (when the snapshot was taken)`;
  if (values.length > 1) return badQuery(`\`${name}\` is given ${values.length} times; give it once.`, name);
  if (Number.isNaN(ms))
    return badQuery(
      `\`${name}\` must be an ISO 8601 instant with its zone, such as ${iso(history.start)}, ${range}; got ${JSON.stringify(text.slice(0, 60))}.`,
      name,
    );
  if (ms < history.start || ms > history.end) return badQuery(`\`${name}\` must be ${range}; got ${text}.`, name);
  return ms;
}

function badQuery(message: string, param: string): Response {
  return json(400, errorEnvelope('invalid_parameter', message, param));
}

/**
 * `GET /__sandbox/sessions/{s}/requests`: the request journal of the whole session, paged as the
 * live server pages it (its entries never change once written, so the page reads it once and
 * shows those answered by the instant on screen).
 */
function requestsAnswer(sandbox: Sandbox, query: URLSearchParams): Response {
  try {
    const page = pageParameters.parse(queryObject(query), '');
    return json(
      200,
      slicePage(sandbox.requests.list(), (r) => r.requestId, page, 'requests', 'show'),
    );
  } catch (error) {
    const refusal = refusalOf(error, { library: true });
    if (!refusal) throw error;
    return json(refusal.status, refusal.toBody());
  }
}

/** A ready recording's WAV, from the sandbox the snapshot was replayed on. */
function audioAnswer(audio: ReturnType<ReturnType<SandboxInternals['view']>['audio']>, id: string): Response {
  if (audio === undefined) return json(404, errorEnvelope('not_found', `No recording ${id.slice(0, 80)} in this snapshot.`, 'id'));
  if (audio === 'processing')
    return json(
      409,
      errorEnvelope('conflict', `Recording ${id.slice(0, 80)} was still processing when the snapshot was taken: it has no audio.`, 'id'),
    );
  return new Response(audio.stream, { headers: { 'content-type': 'audio/wav', 'content-length': String(audio.byteLength) } });
}

/** What show does not serve: the API, and the control API beyond the console's reads. */
function notServed(path: string, file: string): Response {
  const shown = JSON.stringify(path.slice(0, 100));
  const message =
    path === '/v1' || path.startsWith('/v1/')
      ? `svc-sandbox show serves the console over ${file}, not the API (${shown}): start a server from it with svc-sandbox serve --import ${file} to call it.`
      : `svc-sandbox show serves ${CONTROL}/console, ${CONTROL}/show, ${CONTROL}/show/state?at=ISO and ${CONTROL}/sessions/{s}/requests; not ${shown}.`;
  return json(404, errorEnvelope('not_found', message));
}
