import { EventEmitter } from 'node:events';
import { SandboxError } from '../core/errors.js';

/**
 * Requests made with the `undici` package (`request`, `fetch`, `stream`), and with a
 * `fetch` captured before `listen()`, never reach @mswjs/interceptors 0.41: they go through
 * undici's global dispatcher. Node's own fetch and the `undici` package share that dispatcher
 * (`Symbol.for('undici.globalDispatcher.1')`), so while a sandbox listens a dispatcher of ours
 * sits in front of it, as undici's MockAgent would: requests to a listening base URL are
 * answered by the sandbox, every other request goes to the dispatcher it replaced. It needs no
 * undici of its own: the dispatcher contract is duck-typed, and both handler shapes (the older
 * `onConnect/onHeaders/onData/onComplete/onError`, and undici 7's controller API) are driven.
 */

type Handle = (request: Request) => Promise<Response>;
type Route = (url: string) => boolean;
/**
 * The handler a dispatcher is given, in either shape: undici 7's controller API
 * (`onRequestStart`...) or the older callbacks (`onConnect`...). Only the members a
 * {@link Driver} calls are named; a handler for another dispatcher is passed on whole.
 */
interface DispatchHandler {
  onRequestStart?(controller: object, context: object): unknown;
  onResponseStarted?(): unknown;
  onResponseStart?(controller: object, status: number, headers: Record<string, string | string[]>, statusText: string): unknown;
  onResponseData?(controller: object, chunk: Buffer): unknown;
  onResponseEnd?(controller: object, trailers: object): unknown;
  onResponseError?(controller: object, error: unknown): unknown;
  onConnect?(abort: (reason?: unknown) => void, context: object): unknown;
  /** `false` pauses the body until `resume` is called. */
  onHeaders?(status: number, headers: Buffer[], resume: () => void, statusText: string): unknown;
  /** `false` pauses the body until the `resume` given to `onHeaders` is called. */
  onData?(chunk: Buffer): unknown;
  onComplete?(trailers: Buffer[]): unknown;
  onError?(error: unknown): unknown;
}
interface Dispatcher {
  dispatch(options: DispatchOptions, handler: DispatchHandler): boolean;
  close?(): unknown;
  destroy?(error?: unknown): unknown;
  [method: string]: unknown;
}
interface DispatchOptions {
  origin?: string | URL;
  path?: string;
  method?: string;
  headers?: unknown;
  body?: unknown;
  upgrade?: string | null;
}

/**
 * undici's global dispatcher slots. Every copy of undici in a process (Node's bundled one and
 * the package) reads and writes its global dispatcher here: this is what the package's
 * `getGlobalDispatcher()`/`setGlobalDispatcher()` do, and how a dispatcher set with the package
 * reaches Node's fetch. The sandbox has no undici of its own to call those functions with
 * (Node does not expose them), so it uses the slots, read and written as those functions do;
 * `test/sandbox/interceptors-contract.test.ts` checks the package still agrees.
 */
export const DISPATCHER_SLOTS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];

function readSlot(slot: symbol): Dispatcher | undefined {
  const value: unknown = Reflect.get(globalThis, slot);
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'dispatch') === 'function'
    ? (value as Dispatcher)
    : undefined;
}

/** Request headers in any shape undici takes: an object, `[k, v, k, v]`, `[[k, v]]`, or an iterable. */
function toHeaders(raw: unknown): Headers {
  const headers = new Headers();
  const add = (key: unknown, value: unknown) => {
    if (value === undefined || value === null) return;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(String(key), String(one));
  };
  if (raw === null || raw === undefined) return headers;
  if (Array.isArray(raw)) {
    if (raw.length > 0 && Array.isArray(raw[0])) for (const [k, v] of raw as unknown[][]) add(k, v);
    else for (let i = 0; i < raw.length; i += 2) add(raw[i], raw[i + 1]);
  } else if (typeof (raw as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of raw as Iterable<[unknown, unknown]>) add(k, v);
  } else {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) add(k, v);
  }
  return headers;
}

function toChunk(chunk: unknown): Uint8Array {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  return Buffer.from(String(chunk));
}

/** A request body in any shape dispatch() gets: text, bytes, a Blob or stream, FormData, or an (async) iterable. */
function toBody(body: unknown): BodyInit | null {
  if (body === null || body === undefined) return null;
  if (
    typeof body === 'string' ||
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof Blob ||
    body instanceof ReadableStream
  )
    return body as BodyInit;
  if ((body as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === 'FormData') {
    if (body instanceof FormData) return body;
    const copy = new FormData(); // the undici package's own FormData class
    for (const [k, v] of (body as FormData).entries()) copy.append(k, v);
    return copy;
  }
  const source = body as Partial<AsyncIterable<unknown> & Iterable<unknown>>;
  const iterator = source[Symbol.asyncIterator]?.() ?? source[Symbol.iterator]?.();
  if (!iterator) return String(body);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(toChunk(value));
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/** Drives a dispatch handler of either shape with one response. */
class Driver {
  private readonly modern: boolean;
  private paused = false;
  private wake: (() => void) | null = null;
  private done = false;
  reason: unknown = null;
  readonly onAbort = new Set<(reason: unknown) => void>();
  readonly controller;

  constructor(private readonly handler: DispatchHandler) {
    this.modern = typeof handler.onRequestStart === 'function';
    const self = this;
    this.controller = {
      abort: (reason?: unknown) => this.abort(reason),
      resume: () => this.resume(),
      pause: () => {
        this.paused = true;
      },
      get paused() {
        return self.paused;
      },
      get aborted() {
        return self.reason !== null;
      },
      get reason() {
        return self.reason;
      },
      rawHeaders: null as Buffer[] | null,
      rawTrailers: null,
    };
  }

  get aborted(): boolean {
    return this.reason !== null;
  }

  start(): void {
    if (this.modern) this.handler.onRequestStart!(this.controller, {});
    else this.handler.onConnect?.((reason?: unknown) => this.abort(reason), {});
  }

  headers(status: number, headers: Headers, statusText: string): void {
    const raw: Buffer[] = [];
    headers.forEach((value, key) => {
      if (key !== 'set-cookie') raw.push(Buffer.from(key), Buffer.from(value));
    });
    for (const value of headers.getSetCookie()) raw.push(Buffer.from('set-cookie'), Buffer.from(value));
    this.handler.onResponseStarted?.();
    if (this.modern) {
      const object: Record<string, string | string[]> = {};
      for (let i = 0; i < raw.length; i += 2) {
        const key = raw[i]!.toString();
        const value = raw[i + 1]!.toString();
        const before = object[key];
        object[key] = before === undefined ? value : ([] as string[]).concat(before, value);
      }
      this.controller.rawHeaders = raw;
      this.handler.onResponseStart?.(this.controller, status, object, statusText);
    } else if (this.handler.onHeaders?.(status, raw, () => this.resume(), statusText) === false) {
      this.paused = true;
    }
  }

  async data(chunk: Uint8Array): Promise<void> {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.modern) this.handler.onResponseData?.(this.controller, buffer);
    else if (this.handler.onData?.(buffer) === false) this.paused = true;
    while (this.paused && !this.aborted) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  complete(): void {
    if (this.done || this.aborted) return;
    this.done = true;
    if (this.modern) this.handler.onResponseEnd?.(this.controller, {});
    else this.handler.onComplete?.([]);
  }

  error(error: unknown): void {
    if (this.done) return;
    this.done = true;
    queueMicrotask(() => {
      if (this.modern) this.handler.onResponseError?.(this.controller, error);
      else this.handler.onError?.(error);
    });
  }

  private resume(): void {
    this.paused = false;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private abort(reason?: unknown): void {
    if (this.reason !== null || this.done) return;
    this.reason = reason ?? new DOMException('The operation was aborted.', 'AbortError');
    for (const listener of this.onAbort) listener(this.reason);
    this.resume();
    this.error(this.reason);
  }
}

/** The dispatcher in front of the one it replaced. */
class SandboxDispatcher extends EventEmitter {
  constructor(
    readonly previous: Dispatcher,
    private readonly route: Route,
    private readonly handle: Handle,
  ) {
    super();
  }

  dispatch(options: DispatchOptions, handler: DispatchHandler): boolean {
    const origin = options.origin instanceof URL ? options.origin.origin : new URL(String(options.origin)).origin;
    const href = `${origin}${options.path ?? '/'}`;
    if (!this.route(href)) return this.previous.dispatch(options, handler);
    void this.serve(href, options, handler);
    return true;
  }

  private async serve(href: string, options: DispatchOptions, handler: DispatchHandler): Promise<void> {
    const driver = new Driver(handler);
    const aborter = new AbortController();
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    driver.onAbort.add((reason) => {
      aborter.abort(reason);
      void reader?.cancel(reason).catch(() => undefined);
    });
    try {
      driver.start();
      if (driver.aborted) return;
      const method = String(options.method ?? 'GET').toUpperCase();
      if (method === 'CONNECT' || options.upgrade) {
        throw new SandboxError(
          `svc-sandbox answers plain HTTP requests to ${new URL(href).origin}; it cannot ` +
            `${method === 'CONNECT' ? 'open a CONNECT tunnel' : `upgrade to ${options.upgrade}`}.`,
          { code: 'conflict' },
        );
      }
      const hasBody = method !== 'GET' && method !== 'HEAD';
      const request = new Request(href, {
        method,
        headers: toHeaders(options.headers),
        body: hasBody ? toBody(options.body) : null,
        signal: aborter.signal,
        duplex: 'half',
      } as RequestInit);
      const response = await this.handle(request);
      // An injected network fault: the request fails as a dropped connection would.
      if (response.type === 'error')
        throw new TypeError('fetch failed', { cause: new Error('The connection was dropped (an injected network fault).') });
      if (driver.aborted) {
        await response.body?.cancel(driver.reason).catch(() => undefined);
        return;
      }
      driver.headers(response.status, response.headers, response.statusText);
      if (response.body && method !== 'HEAD' && !driver.aborted) {
        reader = response.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done || driver.aborted) break;
          await driver.data(value);
        }
      }
      driver.complete();
    } catch (error) {
      if (!driver.aborted) driver.error(error);
    }
  }

  // The Dispatcher API (request, stream, ...) as the replaced dispatcher implements it, run on this one.
  request(...args: unknown[]): unknown {
    return (this.previous.request as (...a: unknown[]) => unknown).call(this, ...args);
  }
  stream(...args: unknown[]): unknown {
    return (this.previous.stream as (...a: unknown[]) => unknown).call(this, ...args);
  }
  pipeline(...args: unknown[]): unknown {
    return (this.previous.pipeline as (...a: unknown[]) => unknown).call(this, ...args);
  }
  connect(...args: unknown[]): unknown {
    return (this.previous.connect as (...a: unknown[]) => unknown).call(this, ...args);
  }
  upgrade(...args: unknown[]): unknown {
    return (this.previous.upgrade as (...a: unknown[]) => unknown).call(this, ...args);
  }
  compose(...args: unknown[]): unknown {
    return (this.previous.compose as (...a: unknown[]) => unknown).call(this, ...args);
  }

  close(callback?: (error: unknown) => void): Promise<unknown> | undefined {
    const closing = Promise.resolve(this.previous.close?.());
    if (typeof callback !== 'function') return closing;
    closing.then(() => callback(null), callback);
    return undefined;
  }

  destroy(error?: unknown, callback?: (error: unknown) => void): Promise<unknown> | undefined {
    if (typeof error === 'function') [callback, error] = [error as (error: unknown) => void, null];
    const destroying = Promise.resolve(this.previous.destroy?.(error));
    if (typeof callback !== 'function') return destroying;
    destroying.then(() => callback(null), callback);
    return undefined;
  }
}

/**
 * Puts a sandbox dispatcher in front of every undici global dispatcher there is now; returns
 * the function that puts the replaced ones back (where a slot still holds ours: if a user set
 * their own dispatcher meanwhile, theirs stays).
 */
export function installDispatcher(route: Route, handle: Handle): () => void {
  void globalThis.Response; // makes Node's bundled undici create its default dispatcher in slot .1
  const installed: Array<{ slot: symbol; previous: Dispatcher; ours: SandboxDispatcher }> = [];
  for (const slot of DISPATCHER_SLOTS) {
    const previous = readSlot(slot);
    if (!previous) continue;
    const ours = installed.find((i) => i.previous === previous)?.ours ?? new SandboxDispatcher(previous, route, handle);
    // undici defines the slots writable and non-configurable: assignment installs and restores.
    Reflect.set(globalThis, slot, ours);
    installed.push({ slot, previous, ours });
  }
  return () => {
    for (const { slot, previous, ours } of installed) if (Reflect.get(globalThis, slot) === ours) Reflect.set(globalThis, slot, previous);
  };
}
