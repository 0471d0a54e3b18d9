import { SandboxError } from '../core/errors.js';

/**
 * `createSandbox({ allowHosts })`: nock's `disableNetConnect()` with `enableNetConnect(host)`,
 * and msw's `onUnhandledRequest: 'error'` for every host. While a sandbox with `allowHosts`
 * listens, a request from the process to a host that is neither a listening sandbox's nor
 * allowed is refused, with an error naming the host and the option (docs/interception.md,
 * "Refusing every other host"). Kept apart from the interceptor's routing: it only needs the
 * listening sandboxes' origins and guards, handed to it on each request.
 */

/** A host a request may go to: a host name (any port), `name:port`, or a RegExp tried on both. */
export type HostPattern = string | RegExp;

/** What this module reads of a listening sandbox. */
export interface HostGuard {
  origin: string;
  guard: { mode: 'bypass' | 'warn' | 'error'; allowHosts: readonly HostPattern[] | null };
}

/** A request no listening sandbox allows: the error that refuses it, and whether to refuse or warn. */
export interface HostRefusal {
  mode: 'warn' | 'error';
  error: SandboxError;
}

/** `example.com` and `example.com:443` for `https://Example.com./x`; IPv6 in brackets, as URLs write it. */
function hostOf(url: URL): { name: string; withPort: string } {
  const name = url.hostname.replace(/\.$/, '');
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return { name, withPort: `${name}:${port}` };
}

/** Whether one of `allowed` matches the host of `url`. Strings were lower-cased when the option was read. */
export function hostAllowed(url: URL, allowed: readonly HostPattern[]): boolean {
  const { name, withPort } = hostOf(url);
  return allowed.some((pattern) => {
    if (typeof pattern === 'string') return pattern === name || pattern === withPort;
    pattern.lastIndex = 0; // a /g or /y pattern would otherwise answer by turns
    if (pattern.test(name)) return true;
    pattern.lastIndex = 0;
    return pattern.test(withPort);
  });
}

const show = (pattern: HostPattern) => (typeof pattern === 'string' ? `'${pattern}'` : String(pattern));

/**
 * The refusal of a request to `url` by the listening sandboxes, or null when none refuses it:
 * none has `allowHosts`, the host is a listening sandbox's own, or every sandbox that refuses
 * other hosts allows it. With several, the strictest decides (`'error'` over `'warn'`), as for
 * production hosts.
 */
export function otherHostRefusal(url: string, sandboxes: readonly HostGuard[]): HostRefusal | null {
  const watching = sandboxes.filter((s) => s.guard.allowHosts !== null && s.guard.mode !== 'bypass');
  if (watching.length === 0 || !URL.canParse(url)) return null;
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return null;
  const { withPort } = hostOf(target);
  if (sandboxes.some((s) => hostOf(new URL(s.origin)).withPort === withPort)) return null;
  const refusing = watching.flatMap((s) => {
    const allowHosts = s.guard.allowHosts;
    return allowHosts !== null && !hostAllowed(target, allowHosts) ? [{ origin: s.origin, guard: s.guard, allowHosts }] : [];
  });
  const strictest = refusing.find((s) => s.guard.mode === 'error') ?? refusing[0];
  if (strictest === undefined) return null;
  const { name } = hostOf(target);
  const allowed = strictest.allowHosts;
  const why =
    `${name} is neither the sandbox's host (${strictest.origin}) nor in ` +
    `allowHosts (${allowed.length ? allowed.map(show).join(', ') : 'empty: every other host is refused'}). Add '${name}' to ` +
    'allowHosts to let it through, or point the client at the sandbox.';
  const shown = url.slice(0, 200);
  return strictest.guard.mode === 'error'
    ? {
        mode: 'error',
        error: new SandboxError(`svc-sandbox refused a request to ${shown}: ${why} Nothing was sent.`, {
          code: 'unhandled_request',
          param: 'allowHosts',
        }),
      }
    : { mode: 'warn', error: new SandboxError(`svc-sandbox let through a request to ${shown}: ${why}`, { code: 'unhandled_request' }) };
}

/** The part of an interceptor's request controller this module uses (@mswjs/interceptors 0.41). */
interface Controller {
  passthrough(): Promise<void>;
  errorWith(reason?: unknown): void;
}

/**
 * Refuses (or warns about) the request only when it is about to reach the network: the
 * interceptors call `controller.passthrough()` once every listener has had its turn and none
 * answered. So a host a user's msw handler or interceptor answers in-process is never refused,
 * whichever of msw and the sandbox started first.
 */
export function refuseUnlessAnswered(controller: Controller, refusal: HostRefusal): void {
  const passthrough = controller.passthrough.bind(controller);
  controller.passthrough = async () => {
    if (refusal.mode === 'warn') {
      console.warn(`[svc-sandbox] ${refusal.error.message}`);
      return passthrough();
    }
    controller.errorWith(refusal.error);
  };
}
