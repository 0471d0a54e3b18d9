import { readPackageFile } from '../core/package-files.js';

/**
 * The account console (docs/server.md): plain ES modules, HTML and CSS shipped in the package's
 * `console/` folder, served as they are: no build step at install, and the page requests
 * nothing from any other origin. Files are read once and kept (inside the single executable,
 * from its embedded copies: core/package-files.ts).
 */
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
const cache = new Map<string, Uint8Array>();

function read(name: string): Uint8Array | undefined {
  let data = cache.get(name);
  if (!data) {
    try {
      data = readPackageFile(`console/${name}`);
    } catch {
      return undefined;
    }
    cache.set(name, data);
  }
  return data;
}

/** The console file for a path below `/__sandbox`, or undefined when the path is not the console's. */
export function consoleAsset(path: string, method: string): Response | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const name =
    path === '/console' || path === '/console/' ? 'index.html' : /^\/console\/([a-z0-9-]+\.(?:js|css|html|svg))$/.exec(path)?.[1];
  if (!name) return undefined;
  const data = read(name);
  if (!data) return new Response(`No console file ${name}.`, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const type = TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
  return new Response(method === 'HEAD' ? null : (data as Uint8Array<ArrayBuffer>), {
    headers: {
      'content-type': type,
      'cache-control': 'no-cache',
      // Nothing from another origin, ever (docs/server.md): the page's own policy says so too.
      'content-security-policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
      // No page of another origin may frame the console and steer clicks into it (docs/server.md, "Security model").
      'x-frame-options': 'DENY',
    },
  });
}
