import { performance } from 'node:perf_hooks';
import { isLoopbackDelivery, postDirect } from './loopback-post.js';

/** What one HTTP attempt of a webhook came to. */
export interface PostResult {
  /** The receiver's HTTP status; null when no response arrived. */
  status: number | null;
  /** A 2xx within the timeout. */
  ok: boolean;
  /** Why it failed; null on success. */
  error: string | null;
  /** Real (wall-clock) milliseconds the attempt took. */
  durationMs: number;
}

export interface PostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Real milliseconds to wait for the response headers. */
  timeoutMs: number;
  /** The receiver hangs (its last attempt timed out): `timeoutMs` is the shorter time it gets, and a timeout says so. */
  hanging?: boolean;
  /**
   * The last attempt to a hanging receiver: it waits until `signal` aborts (the end of the
   * receiver's hang window, `windowMs` after its first timeout) instead of `timeoutMs`.
   */
  deadline?: { signal: AbortSignal; windowMs: number };
  /** Aborts the attempt when the sandbox is reset or closed. */
  stop: AbortSignal;
}

class Timeout extends Error {}
class Stopped extends Error {}

/**
 * Sends one webhook POST for real, and never rejects.
 *
 * - To this machine (`127.0.0.1`, `localhost`), it goes straight to the socket, past every
 *   interceptor of the process, so a user's msw never sees the sandbox's traffic
 *   (loopback-post.ts). To any other host it calls the global `fetch` as it is at this moment,
 *   not one captured at import, so a receiver handled in-process (an msw handler, an
 *   interceptor of the user's) gets it; the sandbox's own interception answers only its base
 *   URL and lets this through.
 * - The timeout is real time and comes from `AbortSignal.timeout()`, whose timer lives in
 *   Node's internals: a user's `vi.useFakeTimers()` replaces the global `setTimeout` but
 *   cannot freeze it (test/webhooks/fake-timers.test.ts proves it). The race below ends
 *   the attempt on time even when a fetch implementation ignores its signal.
 * - Redirects are not followed: a 3xx is a failure, as with most webhook senders.
 * - Duration uses `performance` from `node:perf_hooks`, which fake timers leave alone.
 */
export async function postWebhook(request: PostRequest): Promise<PostResult> {
  const started = performance.now();
  const controller = new AbortController();
  const timeout = request.deadline?.signal ?? AbortSignal.timeout(request.timeoutMs);
  const onTimeout = () => controller.abort(new Timeout());
  const onStop = () => controller.abort(new Stopped());
  timeout.addEventListener('abort', onTimeout, { once: true });
  if (request.stop.aborted) onStop();
  else request.stop.addEventListener('abort', onStop, { once: true });
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  try {
    const status = await abortable(
      isLoopbackDelivery(request.url)
        ? postDirect(request.url, request.headers, request.body, controller.signal)
        : postFetch(request, controller.signal),
      controller.signal,
    );
    const ok = status >= 200 && status < 300;
    return { status, ok, error: ok ? null : `the receiver answered HTTP ${status}`, durationMs: elapsed() };
  } catch (error) {
    return { status: null, ok: false, error: describe(controller.signal.reason ?? error, error, request), durationMs: elapsed() };
  } finally {
    timeout.removeEventListener('abort', onTimeout);
    request.stop.removeEventListener('abort', onStop);
  }
}

/** The status of one POST through the global `fetch`. */
async function postFetch(request: PostRequest, signal: AbortSignal): Promise<number> {
  const response = await globalThis.fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal,
  });
  // Only the status matters; drop the body so the connection is released.
  response.body?.cancel().catch(() => undefined);
  return response.status;
}

/** `work`, or a rejection as soon as `signal` aborts. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Whether an attempt came to nothing because the receiver did not answer in time. */
export function isTimeout(result: PostResult): boolean {
  return result.status === null && result.error !== null && TIMED_OUT.test(result.error);
}
const TIMED_OUT = /^no response within \d+ ms \(timed out/;

function describe(reason: unknown, error: unknown, { timeoutMs, hanging, deadline }: PostRequest): string {
  if (reason instanceof Timeout) {
    if (deadline) {
      return `no response within ${deadline.windowMs} ms (timed out; the last attempt to a receiver that hangs waits until ${deadline.windowMs} ms after its first timeout)`;
    }
    return hanging
      ? `no response within ${timeoutMs} ms (timed out; a receiver that let an attempt time out gets ${timeoutMs} ms until it answers again)`
      : `no response within ${timeoutMs} ms (timed out)`;
  }
  if (reason instanceof Stopped) return 'abandoned: the sandbox was reset or closed';
  // fetch wraps the socket's error in its `cause`; node:http's is the error itself.
  const cause =
    error instanceof Error && error.cause instanceof Error
      ? error.cause
      : error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string'
        ? error
        : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (cause && code) return `connection failed: ${code} (${cause.message})`;
  if (cause) return `request failed: ${cause.message}`;
  return `request failed: ${error instanceof Error ? error.message : String(error)}`;
}
