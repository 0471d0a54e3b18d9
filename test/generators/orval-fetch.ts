/**
 * The fetch every orval-generated function calls (orval.config.cjs names it as the mutator): it
 * puts the server's base URL before the document's paths and sends the key, both set at run time
 * with {@link configureSandboxFetch}. It answers what orval's fetch client types each answer as:
 * `{ data, status, headers }`, with the body parsed when there is one.
 */
let baseUrl = '';
let headers: Record<string, string> = {};

export function configureSandboxFetch(options: { baseUrl: string; apiKey?: string }): void {
  baseUrl = options.baseUrl;
  headers = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
}

export async function sandboxFetch<T>(url: string, init: RequestInit): Promise<T> {
  const res = await fetch(baseUrl + url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
  const text = [204, 205, 304].includes(res.status) ? '' : await res.text();
  const json = res.headers.get('content-type')?.includes('json') ?? false;
  return { data: text && json ? JSON.parse(text) : text, status: res.status, headers: res.headers } as T;
}
