import { isIP } from 'node:net';
import { HOST_NAME, isLoopbackAddress } from '../core/hosts.js';

/**
 * The server's front door (docs/server.md, "Security model"): which requests may reach the
 * sandbox at all, and which may drive the control API and the console.
 *
 * The control API has no authentication: it trusts the user's own programs on this machine.
 * Three kinds of request are not the user's own program and are refused here:
 *
 * - **DNS rebinding.** A page on `evil.example` whose name later resolves to 127.0.0.1 sends
 *   `Host: evil.example`. Every request's Host must be an IP address, `localhost` (or a name
 *   under `.localhost`), or a name given with `--allowed-host` (what Vite and webpack-dev-server
 *   do by default).
 * - **Cross-site requests from a browser.** A page on another origin can send a `no-cors` POST
 *   or submit an HTML form to loopback. Browsers mark both with `Origin` (and `Sec-Fetch-Site`):
 *   control requests whose Origin is not the server's own are refused, and a control request
 *   with a body must say `Content-Type: application/json`, which no form and no `no-cors`
 *   request can send.
 * - **Webhooks.** A subscription may not point at the server (api/routes/webhooks.ts refuses
 *   every loopback spelling of it); a request that carries a delivery's own headers is refused
 *   on the control API as well, whatever way it found here.
 */

/** `application/json`, or a `+json` type, as the API's own body reader accepts (api/pipeline.ts). */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** The hosts a request may name besides IP addresses and `localhost`. */
export interface HostPolicy {
  /** Names given with `--allowed-host` (lower case, no port); `true` allows any host. */
  readonly allowed: ReadonlySet<string> | true;
}

/** Why a request was refused, as the error envelope says it. */
export interface Refusal {
  status: 400 | 403;
  code: 'forbidden' | 'unsupported_content_type';
  message: string;
  param?: string;
}

/** The hostname of a Host header value (`[::1]:80` → `[::1]`, `Example.COM.:8080` → `example.com`). */
export function hostnameOf(host: string): string | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::\d*)?$/.exec(host.trim());
  const name = match?.[1];
  if (!name) return null;
  return name.toLowerCase().replace(/\.$/, '');
}

/** True for a literal IP address (v4, or v6 in brackets): no DNS name, so no rebinding. */
function isIpLiteral(hostname: string): boolean {
  if (hostname.startsWith('[')) return isIP(hostname.slice(1, -1)) === 6;
  return isIP(hostname) === 4;
}

/**
 * Refuses a request whose Host names something other than this machine's addresses,
 * `localhost`, or an allowed name. A request with no Host at all (HTTP/1.0) comes from no
 * browser and passes.
 */
export function checkHost(host: string | undefined, policy: HostPolicy): Refusal | null {
  if (host === undefined || policy.allowed === true) return null;
  const hostname = hostnameOf(host);
  if (
    hostname !== null &&
    (isIpLiteral(hostname) || hostname === 'localhost' || hostname.endsWith('.localhost') || policy.allowed.has(hostname))
  )
    return null;
  const shown = JSON.stringify(host.slice(0, 100));
  return {
    status: 403,
    code: 'forbidden',
    param: 'Host',
    message:
      `The Host ${shown} is not an address of this server. Use the address it printed (an IP address or localhost), or start it ` +
      `with --allowed-host ${hostname ?? 'NAME'} (startServer({ allowedHosts })) to accept that name. This guards against DNS rebinding ` +
      `(docs/server.md, "Security model").`,
  };
}

/**
 * Refuses a control request a browser page of another origin (or a webhook) could have sent.
 * `isOwnOrigin` says whether an `Origin` is the server's own (the console's); `hasBody` is
 * whether the request declares a body (Content-Length above 0, or Transfer-Encoding).
 */
export function checkControl(headers: Headers, method: string, hasBody: boolean, isOwnOrigin: (origin: string) => boolean): Refusal | null {
  if (headers.has('x-service-event-id') || headers.has('x-service-signature')) {
    return {
      status: 403,
      code: 'forbidden',
      message:
        'A webhook delivery cannot drive the control API: this request carries X-Service-Event-Id or X-Service-Signature. Point the ' +
        'subscription at your own receiver.',
    };
  }
  const origin = headers.get('origin');
  if (origin !== null && !isOwnOrigin(origin)) {
    return {
      status: 403,
      code: 'forbidden',
      param: 'Origin',
      message:
        `The control API answers only this server's own console and programs that send no Origin; a page on ` +
        `${JSON.stringify(origin.slice(0, 100))} may not drive it (docs/server.md, "Security model").`,
    };
  }
  if (origin === null && headers.get('sec-fetch-site') === 'cross-site') {
    return {
      status: 403,
      code: 'forbidden',
      param: 'Origin',
      message: 'A cross-site request from a browser may not drive the control API (docs/server.md, "Security model").',
    };
  }
  if (hasBody && method !== 'GET' && method !== 'HEAD') {
    const type = headers.get('content-type');
    if (type === null || !JSON_TYPE.test(type)) {
      return {
        status: 400,
        code: 'unsupported_content_type',
        param: 'Content-Type',
        message:
          `A control request with a body must send it as JSON with \`Content-Type: application/json\` (got ` +
          `${type === null ? 'none' : JSON.stringify(type.slice(0, 100))}); no HTML form or no-cors request can send that.`,
      };
    }
  }
  return null;
}

/**
 * Whether an `Origin` is this server's own: plain http, the server's port, and a host that is
 * this machine (a loopback address, the bound address, any local interface when bound to all,
 * `localhost`) or an allowed name. `localAddresses` holds the IP addresses, lower case, v6 in
 * brackets.
 */
export function ownOrigin(port: number, localAddresses: ReadonlySet<string>, policy: HostPolicy): (origin: string) => boolean {
  return (origin) => {
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    if (url.protocol !== 'http:' || (url.port || '80') !== String(port)) return false;
    const hostname = url.hostname.replace(/\.$/, '');
    return (
      hostname === 'localhost' ||
      hostname.endsWith('.localhost') ||
      isLoopbackAddress(hostname) ||
      localAddresses.has(hostname) ||
      (policy.allowed !== true && policy.allowed.has(hostname))
    );
  };
}

/** The `Host` names accepted besides IP addresses and `localhost`, checked once at start. */
export function hostPolicy(allowedHosts: readonly string[] | true | undefined, invalid: (message: string) => Error): HostPolicy {
  if (allowedHosts === true) return { allowed: true };
  if (allowedHosts !== undefined && !Array.isArray(allowedHosts))
    throw invalid('allowedHosts must be an array of host names, or true to accept any Host.');
  const allowed = new Set<string>();
  for (const host of allowedHosts ?? []) {
    if (typeof host !== 'string' || !HOST_NAME.test(host)) {
      throw invalid(
        `allowedHosts: ${JSON.stringify(host)} is not a host name; give a name such as devbox.example (no scheme, port or path).`,
      );
    }
    allowed.add(host.toLowerCase().replace(/\.$/, ''));
  }
  return { allowed };
}

/** Whether a browser page of this origin may call `/v1` (`allowedOrigins`), checked once at start. */
export function originPolicy(
  allowed: readonly string[] | true | undefined,
  invalid: (message: string) => Error,
): (origin: string) => boolean {
  if (allowed === true) return () => true;
  if (allowed !== undefined && !Array.isArray(allowed)) throw invalid('allowedOrigins must be an array of origins, or true to allow any.');
  const origins = new Set<string>();
  for (const origin of allowed ?? []) {
    const url = typeof origin === 'string' && URL.canParse(origin) ? new URL(origin) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.replace(/\/$/, '')) {
      throw invalid(
        `allowedOrigins: ${JSON.stringify(origin)} is not an origin; give scheme, host and port only, such as http://localhost:3000.`,
      );
    }
    origins.add(url.origin);
  }
  return (origin) => origins.has(origin);
}

/** The refusal of a `/v1` request from a browser page the server was not told to serve. */
export function foreignPage(origin: string): Refusal {
  const shown = JSON.stringify(origin.slice(0, 100));
  return {
    status: 403,
    code: 'forbidden',
    param: 'Origin',
    message:
      `A page on ${shown} may not call this server: start it with --allowed-origin ` +
      `${origin === 'null' ? 'ORIGIN' : origin.slice(0, 100)} (startServer({ allowedOrigins })) to let a browser app of yours use it ` +
      `(docs/server.md, "Security model").`,
  };
}
