/**
 * An answer of the `/v1` road before it is a web `Response`: its status, its headers as one flat
 * list of lower-case names and values (each name once), and its body. `sandbox.handle()` turns it
 * into a `Response` ({@link toResponse}); the standalone server writes it to its socket as it is
 * (server/http.ts `writeAnswer`), with no `Headers` or `Response` made for it.
 */
export class Answer {
  constructor(
    readonly status: number,
    /** Name, value, name, value...: lower-case names, each once. */
    readonly headers: string[],
    /** JSON text, bytes (audio), a stream (server-sent events), or none (204, HEAD). */
    readonly body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
  ) {}

  /** Sets a header, replacing the one of that name. */
  set(name: string, value: string): void {
    setHeader(this.headers, name, value);
  }
}

/** An injected network fault: no answer at all (`Response.error()`; the server drops the connection). */
export const NETWORK_ERROR = new Answer(0, [], null);

/** Sets `name` in a flat header list, replacing the one of that name. */
export function setHeader(headers: string[], name: string, value: string): void {
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] === name) {
      headers[i + 1] = value;
      return;
    }
  }
  headers.push(name, value);
}

/**
 * The platform's `Response` and `Headers.prototype.set`, taken when this module loads. While
 * interception is applied, @mswjs/interceptors wraps the global `Response` constructor and the
 * `Headers` methods in proxies that copy every header into a list of raw names (for
 * `node:http` clients' `rawHeaders`); they doubled what building an answer cost. The answers
 * made here need none of it: their names are lower case already, which is what the
 * interceptors read back when a response carries no such list. Loaded after a user's msw has
 * patched them, these are the wrapped ones, which work the same, only slower.
 */
const PlatformResponse = globalThis.Response;
const setOn = Headers.prototype.set;

/** The web `Response` of an answer. */
export function toResponse(answer: Answer): Response {
  if (answer === NETWORK_ERROR) return Response.error();
  // The headers go into the Response's own list: handing a `Headers` to the constructor copies it.
  const response = new PlatformResponse(answer.body, { status: answer.status });
  const { headers } = response;
  // `set`, not `append`: a text body has made its own Content-Type, which ours replaces.
  const list = answer.headers;
  for (let i = 0; i + 1 < list.length; i += 2) setOn.call(headers, list[i] ?? '', list[i + 1] ?? '');
  return response;
}
