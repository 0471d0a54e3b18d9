import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { isThisMachine } from '../core/hosts.js';

/**
 * Webhook deliveries to this machine (a test's receiver on `127.0.0.1`, `localhost`, `[::1]`)
 * go straight to the socket, past every interceptor of the process: a user's msw, nock, or the
 * sandbox's own. A server on this machine is listening there, and no mock of the user's should
 * have to know about the sandbox's traffic: with msw's `onUnhandledRequest: 'error'`, a delivery
 * that went through msw was reported (and refused) as an unhandled request on every attempt.
 * Deliveries to any other host keep the global `fetch` (transport.ts), so an in-process receiver
 * (an msw handler for `https://hooks.example.test/...`) still gets them (docs/webhooks.md,
 * "Receivers in the test's process").
 *
 * @mswjs/interceptors replaces `http.ClientRequest` and `http.request`/`get` with proxies that
 * send every request through its listeners. The class proxy traps only construction, so its
 * `prototype.constructor` is the class Node made, whether the interceptors were applied before
 * this module loaded or after (and in the CommonJS build as in the ES one).
 */
const NodeClientRequest = http.ClientRequest.prototype.constructor as typeof http.ClientRequest;

/** Whether a delivery to `url` goes straight to the socket: its host is this machine. */
export function isLoopbackDelivery(url: string): boolean {
  return URL.canParse(url) && isThisMachine(new URL(url).hostname);
}

/**
 * POSTs `body` to `url` with Node's own `ClientRequest`, and resolves with the status once the
 * answer's body has been read (so the receiver's connection closes cleanly). Rejects on a
 * connection error, or when `signal` aborts. One connection per attempt (no keep-alive), so no
 * socket outlives a test.
 */
export function postDirect(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const target = new URL(url);
    const request = new NodeClientRequest(
      {
        ...urlToHttpOptions(target),
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: target.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : false,
        signal,
      },
      (response) => {
        response.on('error', reject);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.resume();
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
