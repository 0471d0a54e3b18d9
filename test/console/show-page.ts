import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fetch as nodeFetch } from 'undici';
import { vi } from 'vitest';
import { start } from '../../console/app.js';
import type { ShowServer } from '../../src/server/show.js';

/**
 * Opens the console's page over a show server under happy-dom, as `svc-sandbox show` serves it:
 * the page's requests go to the server over HTTP (each path told to `onRequest`), its address is
 * the console's with `?at=` (when given). Undo the stubbed fetch with `vi.unstubAllGlobals()`.
 */
export function openShowPage(show: ShowServer, at: string | null, onRequest: (path: string) => void = () => {}): void {
  vi.stubGlobal('fetch', async (path: string, init?: RequestInit) => {
    onRequest(path);
    const res = await nodeFetch(`${show.url}${path}`, init as never);
    return new Response(await res.text(), { status: res.status, headers: { 'content-type': 'application/json' } });
  });
  const html = readFileSync(join(import.meta.dirname, '..', '..', 'console', 'index.html'), 'utf8');
  document.documentElement.innerHTML = html.replace(/<script[^>]*><\/script>|<link[^>]*>/g, '');
  document.documentElement.dataset.mode = 'show';
  const page = at === null ? show.consoleUrl : `${show.consoleUrl}?at=${at}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(page);
  start(document);
}
