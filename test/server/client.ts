/**
 * The standalone server driven as a Python, Go or Ruby suite drives it: plain HTTP, JSON in
 * and out. `onAnswer` sees every answer (the parity test checks control answers against the
 * server's OpenAPI document with it).
 */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export function serverClient(
  url: () => string,
  onAnswer?: (method: string, path: string, res: Response, text: string) => Promise<void> | void,
) {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${url()}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    await onAnswer?.(method, path, res, text);
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }
  return {
    call,
    api: (key: string) => ({
      get: (path: string) => call('GET', path, undefined, { authorization: `Bearer ${key}` }),
      post: (path: string, body: unknown) => call('POST', path, body, { authorization: `Bearer ${key}` }),
    }),
    control: {
      get: (path: string) => call('GET', `/__sandbox${path}`),
      post: (path: string, body?: unknown) => call('POST', `/__sandbox${path}`, body),
      put: (path: string, body?: unknown) => call('PUT', `/__sandbox${path}`, body),
      delete: (path: string) => call('DELETE', `/__sandbox${path}`),
    },
  };
}
