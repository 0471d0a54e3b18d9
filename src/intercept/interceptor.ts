import { ClientRequest } from 'node:http';
import { getRawRequest } from '@mswjs/interceptors';
import { SandboxError } from '../core/errors.js';
import { otherHostRefusal, refuseUnlessAnswered, type HostPattern } from './allow-hosts.js';
import { installDispatcher } from './dispatcher.js';
import { Share, type RequestEvent } from './instances.js';

/**
 * Routes intercepted requests to the listening sandboxes. It uses only the public listener
 * API of @mswjs/interceptors (`request`, `controller`, and `getRawRequest`, gone in 0.42, to
 * notice a `node:http` client going away: see `abortsWithClient`); how the interceptors are
 * applied, shared with a user's msw, and disposed is `./instances.ts`, the one module that
 * knows the library's singleton model.
 *
 * Interception patches process globals (fetch, http/https request and get,
 * XMLHttpRequest), which exist once per process; so, unlike every other piece of state,
 * the table of listening sandboxes is the process's (on `globalThis`, shared by the ES and
 * CommonJS builds: see {@link ListeningTable}). One set of interceptors serves all of them,
 * routed by base URL; it is applied by the first `listen()` and disposed by the last
 * `close()`, which restores every patched global (see docs/interception.md).
 */

export type RequestHandler = (request: Request) => Promise<Response>;

interface Target {
  origin: string;
  basePath: string;
  handle: RequestHandler;
  guard: Guard;
}

/**
 * A sandbox's guard against requests that must not leave a test (docs/interception.md,
 * "Requests that must not leave a test"): requests to `hosts`, or carrying a production key.
 */
export interface Guard {
  mode: 'bypass' | 'warn' | 'error';
  /** Production host names, lower case. */
  hosts: ReadonlySet<string>;
  /** With a list, every host but the sandbox's and these is refused (allow-hosts.ts); null: none is. */
  allowHosts: readonly HostPattern[] | null;
}

const NO_GUARD: Guard = { mode: 'bypass', hosts: new Set(), allowHosts: null };

/**
 * Which sandbox answers which base URL, for the whole process. It lives on `globalThis` under a
 * `Symbol.for` key (as @mswjs/interceptors keeps its running interceptors), not in this module:
 * the ES build (`dist/index.js`) and the CommonJS build (`dist/cjs/index.cjs`) loaded in one
 * process are two copies of this module, and with a table each they would both accept
 * `listen()` on one base URL, patch the globals twice, and not answer each other's requests.
 * With one table, the second `listen()` on a base URL is refused whichever build made the
 * first, and one set of interceptors, applied by whichever build listened first, routes every
 * request to the sandbox of either build. The key names the table's shape (`v1`): a future
 * version that changes the shape takes a new key, so two versions in one process never read
 * each other's table wrongly.
 */
interface ListeningTable {
  /** Listening sandboxes, longest prefix first (an overlapping `https://x` and `https://x/tenant2` route by the longer). */
  targets: Target[];
  /** The interceptors and the undici dispatcher while any sandbox listens. */
  active: { shares: Share[]; uninstallDispatcher: () => void } | null;
  /** Base URLs (origin + base path) that were listened on and closed: see {@link refuseClosed}. */
  closed: Set<string>;
}

const TABLE_KEY = Symbol.for('svc-sandbox.listening-table.v1');

function sharedTable(): ListeningTable {
  const existing: unknown = Reflect.get(globalThis, TABLE_KEY);
  if (typeof existing === 'object' && existing !== null) return existing as ListeningTable;
  const table: ListeningTable = { targets: [], active: null, closed: new Set() };
  // Not enumerable, like the interceptors' own globals: leak checks that list globals stay quiet.
  Object.defineProperty(globalThis, TABLE_KEY, { value: table, configurable: true });
  return table;
}

const table = sharedTable();
const { targets, closed } = table;

async function answer({ request, controller }: RequestEvent, share: Share): Promise<void> {
  if (request.method === 'CONNECT') return refuseConnect(request, controller);
  const found = findTarget(request.url);
  if (!found) {
    // Not ours: it reaches the network (or another interceptor), unless it must never leave a test.
    const stopped = unhandled(request.url, request.headers.get('authorization'));
    if (stopped) controller.errorWith(stopped);
    else {
      const refusal = otherHostRefusal(request.url, targets);
      if (refusal) refuseUnlessAnswered(controller, refusal);
    }
    return;
  }
  // When another party (a user's msw) listens too, read a copy of the body: it may clone the
  // request after us, and cannot clone a consumed one. Cloning costs a stream tee, so only then.
  const own = request.body !== null && share.shared() ? request.clone() : request;
  controller.respondWith(await found.handle(abortsWithClient(own)));
}

type Controller = RequestEvent['controller'];

/**
 * Whether a request to `url` with this Authorization header is one no test may send (to a
 * production host of a listening sandbox, or with a `SVC_LIVE_` key): the error that stops it
 * when a sandbox says `'error'`; a warning (and null) when the strictest says `'warn'`; null
 * otherwise. It runs only for requests no sandbox answers.
 */
function unhandled(url: string, authorization: string | null): SandboxError | null {
  const live = authorization !== null && /^bearer[ \t]+SVC_LIVE_/i.test(authorization);
  let mode: Guard['mode'] | null = null;
  let why = '';
  for (const { guard, origin, basePath } of targets) {
    if (guard.mode === 'bypass' || mode === 'error') continue;
    const production = guard.hosts.size > 0 && guard.hosts.has(hostOf(url));
    if (!production && !live) continue;
    mode = guard.mode === 'error' || mode === null ? guard.mode : mode;
    why =
      `${production ? `${hostOf(url)} is a production host (productionHosts)` : 'it carries a production key (SVC_LIVE_…)'}; a test ` +
      `must never reach the real service. Point the client at the sandbox (${origin}${basePath}) and use a SVC_TEST_ key, or set ` +
      `onUnhandledRequest: 'bypass' if this request is meant to leave.`;
  }
  if (mode === null) return null;
  const target = url.slice(0, 200);
  if (mode === 'warn') {
    console.warn(`[svc-sandbox] svc-sandbox let through a request to ${target}: ${why}`);
    return null;
  }
  return new SandboxError(`svc-sandbox stopped a request to ${target}: ${why} Nothing was sent.`, { code: 'unhandled_request' });
}

/** The host name of an absolute URL, lower case, without a trailing dot ('' when it has none). */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname.replace(/\.$/, '') : '';
}

/**
 * A `CONNECT` (a proxy tunnel) to a base URL cannot be answered in-process: a tunnel would
 * carry TLS to the real host. It is refused with a clear error instead of reaching the
 * network. The interceptor rewrites a CONNECT's URL, so the tunnel's
 * target is read from the raw request. CONNECTs to any other host are left alone.
 */
function refuseConnect(request: Request, controller: Controller): void {
  const raw = getRawRequest(request);
  const path = raw instanceof ClientRequest ? raw.path : undefined;
  const authority = String(path ?? request.url).replace(/^\/+/, '');
  const sentTo = request.headers.get('host') ?? undefined;
  const target = targets.find((t) => aimsAt(t.origin, authority) || aimsAt(t.origin, sentTo));
  if (!target) return;
  const host = new URL(target.origin).hostname;
  controller.errorWith(
    new SandboxError(
      `svc-sandbox refused "CONNECT ${authority}": ${target.origin} is answered in-process and cannot be tunnelled. Send requests to it ` +
        `directly, without a proxy (add ${host} to NO_PROXY).`,
      { code: 'conflict' },
    ),
  );
}

/** Whether `hostPort` (an authority such as `api.svc.test:443`) names `origin`'s host and port. */
function aimsAt(origin: string, hostPort: string | undefined): boolean {
  if (!hostPort || !URL.canParse(`http://${hostPort}`)) return false;
  const want = new URL(origin);
  const got = new URL(`http://${hostPort}`);
  const port = want.port || (want.protocol === 'https:' ? '443' : '80');
  return got.hostname === want.hostname && (!hostPort.includes(':') || (got.port || '80') === port);
}

/**
 * Refuses a request to a base URL whose sandbox has closed, when nobody listens to it any
 * more. It takes the sandbox's place on an interceptor as the sandbox stops listening: a
 * `node:http` request made in the same tick as `close()` reaches the interceptor only on
 * the next tick, after the sandbox's listener has gone, and would otherwise go to real DNS
 * (docs/interception.md). Requests another party answers, or that a sandbox listens to again,
 * are left alone.
 */
async function refuseClosed({ request, controller }: RequestEvent): Promise<void> {
  if (controller.readyState !== 0 || findTarget(request.url)) return;
  for (const prefix of closed) {
    if (!under(request.url, prefix)) continue;
    const error = new SandboxError(
      `svc-sandbox for ${prefix} was closed before ${request.method} ${request.url} was sent; nothing answers it (no request reached the network).`,
      { code: 'closed' },
    );
    controller.errorWith(Object.assign(error, { errno: 'ECONNREFUSED' }));
    return;
  }
}

/**
 * The globals the interceptors patch, saved as they were before the first `apply()`.
 * @mswjs/interceptors 0.41 redefines `Headers`, `Request` and `Response` as enumerable data
 * properties and, on dispose, assigns the old values back without their descriptors, so
 * leak checks (mocha's `--check-leaks`) flag them. While listening they keep the patch but
 * regain their original enumerability; on release they get their exact descriptors back.
 */
const PATCHED_GLOBALS = ['Headers', 'Request', 'Response', 'fetch', 'XMLHttpRequest'] as const;

function saveGlobals(): () => void {
  // The descriptor before the value: reading Node 20's lazy `Headers` accessor turns it into a value.
  const saved = PATCHED_GLOBALS.map((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
    return { name, descriptor, value: descriptor ? Reflect.get(globalThis, name) : undefined };
  });
  return () => {
    for (const { name, descriptor, value } of saved) {
      const now = Object.getOwnPropertyDescriptor(globalThis, name);
      if (!descriptor || !now?.configurable) continue;
      // Someone else patched it since, and still does: theirs to restore.
      if ('value' in now ? now.value !== value : now.get !== descriptor.get) continue;
      Object.defineProperty(globalThis, name, descriptor);
    }
  };
}

function hideLikeBefore(before: Map<string, PropertyDescriptor | undefined>): void {
  for (const name of PATCHED_GLOBALS) {
    const now = Object.getOwnPropertyDescriptor(globalThis, name);
    const was = before.get(name);
    if (now && was && now.configurable && now.enumerable !== was.enumerable)
      Object.defineProperty(globalThis, name, { enumerable: was.enumerable });
  }
}

/**
 * The sandbox serving `url`, by prefix: a Request's URL is already normalised as the
 * targets' origins are (lowercase scheme and host, no default port), so no parsing is needed
 * on this path, which every intercepted request of the process takes.
 */
function findTarget(url: string): Target | undefined {
  for (const target of targets) if (under(url, target.origin + target.basePath)) return target;
  return undefined;
}

/** Whether `url` is `prefix` or below it (`https://x/base` covers `https://x/base/v1` but not `https://x/basement`). */
function under(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?' || next === '#';
}

/**
 * Over `node:http(s)` the interceptor gives the request no abort signal: a client that
 * destroys its request would leave a streamed response (server-sent events) running. So
 * a GET from a `ClientRequest` gets a signal that aborts when that request closes (after
 * the response ends, or when the client goes away). Fetch requests carry their own.
 */
function abortsWithClient(request: Request): Request {
  const raw = getRawRequest(request);
  if (!(raw instanceof ClientRequest) || request.method !== 'GET') return request;
  const closed = new AbortController();
  raw.once('close', () => closed.abort(new Error('The client closed the request.')));
  return new Request(request, { signal: closed.signal });
}

/** Starts answering requests to `baseUrl` with `handle`; returns the function that stops it. */
export function intercept(origin: string, basePath: string, handle: RequestHandler, guard: Guard = NO_GUARD): () => void {
  if (targets.some((t) => t.origin === origin && t.basePath === basePath)) {
    throw new SandboxError(
      `Failed to listen: another sandbox already listens on ${origin}${basePath}. Close it first, or give this one another baseUrl.`,
      { code: 'conflict', param: 'baseUrl' },
    );
  }
  const target: Target = { origin, basePath, handle, guard };
  targets.push(target);
  targets.sort((a, b) => (b.origin + b.basePath).length - (a.origin + a.basePath).length);
  closed.delete(origin + basePath);
  if (!table.active) {
    const before = new Map(PATCHED_GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
    const shares = Share.all(answer, refuseClosed, saveGlobals());
    // The undici package, and a fetch captured before listen(): through undici's global dispatcher.
    // A production host that a sandbox stops ('error') is taken too, so it is refused, not sent;
    // and so is a host that `allowHosts` refuses.
    const uninstallDispatcher = installDispatcher(
      (url) =>
        findTarget(url) !== undefined ||
        targets.some((t) => t.guard.mode === 'error' && t.guard.hosts.size > 0 && t.guard.hosts.has(hostOf(url))) ||
        otherHostRefusal(url, targets)?.mode === 'error',
      (request) => {
        const target = findTarget(request.url);
        if (target) return target.handle(request);
        const stopped = unhandled(request.url, request.headers.get('authorization')) ?? otherHostRefusal(request.url, targets)?.error;
        return Promise.reject(stopped ?? new SandboxError(`svc-sandbox for ${request.url} was closed.`, { code: 'closed' }));
      },
    );
    table.active = { shares, uninstallDispatcher };
    hideLikeBefore(before);
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    targets.splice(targets.indexOf(target), 1);
    closed.add(origin + basePath);
    if (targets.length === 0 && table.active) {
      const { shares, uninstallDispatcher } = table.active;
      table.active = null;
      uninstallDispatcher();
      for (const share of shares) share.release();
    }
  };
}
