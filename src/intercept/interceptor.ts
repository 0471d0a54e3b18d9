import { ClientRequest } from 'node:http';
import { getRawRequest, type HttpRequestEventMap } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { SandboxError } from '../core/errors.js';

/**
 * The only module that knows @mswjs/interceptors (0.41 is the last line that runs on
 * Node 20; 0.42 renames things, so an upgrade touches this file alone). It relies only on
 * `request` and `controller` of the listener, plus `getRawRequest` (gone in 0.42) to
 * notice a `node:http` client going away (see `abortsWithClient`).
 *
 * Interception patches process globals (fetch, http/https request and get,
 * XMLHttpRequest), which exist once per process; so, unlike every other piece of state,
 * the table of listening sandboxes is module-level. One set of interceptors serves all of
 * them, routed by base URL; it is applied by the first `listen()` and disposed by the last
 * `close()`, which restores every patched global.
 *
 * Interceptors are process-wide singletons: applied while a user's msw runs, ours join
 * msw's running instance (and the reverse). Disposing a joined interceptor would delete the
 * other party's instance and leave its globals patched for good, so `release` removes only
 * our listener from an instance we joined, and leaves an instance we own running while
 * someone else still listens to it (see docs/interception.md).
 */

export type RequestHandler = (request: Request) => Promise<Response>;

interface Target {
  origin: string;
  basePath: string;
  handle: RequestHandler;
}

type Interceptor = ClientRequestInterceptor | XMLHttpRequestInterceptor | FetchInterceptor;
type Listener = (...args: HttpRequestEventMap['request']) => Promise<void>;

/** The protected members of an 0.41 interceptor that ownership needs. */
interface Internals {
  getInstance(): unknown;
  clearInstance(): void;
  subscriptions: Array<() => void>;
  emitter: {
    listenerCount(event: 'request'): number;
    removeListener(event: 'request', listener: unknown): unknown;
  };
}

const targets: Target[] = [];
let active: { interceptors: Interceptor[] } | null = null;

const listener: Listener = async ({ request, controller }) => {
  const found = findTarget(request.url);
  // Not ours: leave it alone, so it reaches the network (or another interceptor).
  if (!found) return;
  // When another party (a user's msw) listens too, read a copy of the body: it may clone the
  // request after us, and cannot clone a consumed one. Cloning costs a stream tee, so only then.
  const own = request.body !== null && othersListen() ? request.clone() : request;
  controller.respondWith(await found.handle(abortsWithClient(own)));
};

/** Whether a listener other than ours is on any running instance we use. */
function othersListen(): boolean {
  if (!active) return false;
  for (const interceptor of active.interceptors) {
    const running = (interceptor as unknown as Internals).getInstance() as Internals | undefined;
    if (running && running.emitter.listenerCount('request') > 1) return true;
  }
  return false;
}

const makers: Array<() => Interceptor> = [
  () => new ClientRequestInterceptor(),
  () => new XMLHttpRequestInterceptor(),
  () => new FetchInterceptor(),
];

function applyAll(): Interceptor[] {
  return makers.map((make, slot) => applyOne(make, slot));
}

function applyOne(make: () => Interceptor, slot: number): Interceptor {
  const interceptor = make();
  // apply() first: when another instance already runs, apply() joins it, and only
  // listeners added after that are forwarded to the running one.
  interceptor.apply();
  interceptor.on('request', listener);
  const running = (interceptor as unknown as Internals).getInstance() as Interceptor | undefined;
  if (running && running !== interceptor) {
    // Joined another party's instance: if it is disposed while we still listen, take over
    // with a fresh instance of our own.
    const dispose = running.dispose.bind(running);
    running.dispose = () => {
      dispose();
      if (active && active.interceptors[slot] === interceptor) active.interceptors[slot] = applyOne(make, slot);
    };
  }
  return interceptor;
}

function release(interceptor: Interceptor): void {
  const internals = interceptor as unknown as Internals;
  if (internals.getInstance() !== interceptor) {
    // Joined someone else's instance (or never applied, as XHR without a DOM): drop our listener only.
    for (const undo of internals.subscriptions.splice(0)) undo();
    return;
  }
  interceptor.off('request', listener);
  if (internals.emitter.listenerCount('request') === 0) {
    interceptor.dispose();
    return;
  }
  // Someone joined our instance and still listens: keep its patches alive for them, and
  // restore the globals when its last listener leaves (its own dispose cannot: it clears
  // the instance's global symbol but runs only its own subscriptions).
  const { emitter } = internals;
  const removeListener = emitter.removeListener.bind(emitter);
  emitter.removeListener = (event, fn) => {
    const result = removeListener(event, fn);
    if (emitter.listenerCount('request') === 0) {
      if (internals.getInstance() === interceptor) internals.clearInstance();
      for (const undo of internals.subscriptions.splice(0)) undo();
    }
    return result;
  };
}

/**
 * The sandbox serving `url`, by prefix: a Request's URL is already normalised as the
 * targets' origins are (lowercase scheme and host, no default port), so no parsing is needed
 * on this path, which every intercepted request of the process takes.
 */
function findTarget(url: string): Target | undefined {
  for (const target of targets) {
    const prefix = target.origin + target.basePath;
    if (!url.startsWith(prefix)) continue;
    const next = url.charAt(prefix.length);
    if (next === '' || next === '/' || next === '?' || next === '#') return target;
  }
  return undefined;
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
export function intercept(origin: string, basePath: string, handle: RequestHandler): () => void {
  if (targets.some((t) => t.origin === origin && t.basePath === basePath)) {
    throw new SandboxError(
      `Failed to listen: another sandbox already listens on ${origin}${basePath}. Close it first, or give this one another baseUrl.`,
    );
  }
  const target: Target = { origin, basePath, handle };
  targets.push(target);
  active ??= { interceptors: applyAll() };
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    targets.splice(targets.indexOf(target), 1);
    if (targets.length === 0 && active) {
      for (const interceptor of active.interceptors) release(interceptor);
      active = null;
    }
  };
}
