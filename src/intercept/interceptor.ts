import { BatchInterceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { SandboxError } from '../errors.js';

/**
 * The only module that knows @mswjs/interceptors (0.41 is the last line that runs on
 * Node 20; 0.42 renames things, so an upgrade touches this file alone). It relies only on
 * `request` and `controller` of the listener.
 *
 * Interception patches process globals (fetch, http/https request and get,
 * XMLHttpRequest), which exist once per process; so, unlike every other piece of state,
 * the table of listening sandboxes is module-level. One interceptor serves all of them,
 * routed by base URL; it is applied by the first `listen()` and disposed by the last
 * `close()`, which restores every patched global.
 */

export type RequestHandler = (request: Request) => Promise<Response>;

interface Target {
  origin: string;
  basePath: string;
  handle: RequestHandler;
}

const targets: Target[] = [];
let interceptor: BatchInterceptor<[ClientRequestInterceptor, XMLHttpRequestInterceptor, FetchInterceptor]> | null = null;

function findTarget(url: string): Target | undefined {
  const { origin, pathname } = new URL(url);
  return targets.find((t) => t.origin === origin && (t.basePath === '' || pathname === t.basePath || pathname.startsWith(`${t.basePath}/`)));
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
  if (!interceptor) {
    interceptor = new BatchInterceptor({
      name: 'svc-sandbox',
      interceptors: [new ClientRequestInterceptor(), new XMLHttpRequestInterceptor(), new FetchInterceptor()],
    });
    interceptor.on('request', async ({ request, controller }) => {
      const found = findTarget(request.url);
      // Not ours: leave it alone, so it reaches the network (or another interceptor).
      if (!found) return;
      controller.respondWith(await found.handle(request));
    });
    interceptor.apply();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    targets.splice(targets.indexOf(target), 1);
    if (targets.length === 0 && interceptor) {
      interceptor.dispose();
      interceptor = null;
    }
  };
}
