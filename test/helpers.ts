import { createSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';

export const KEY = 'SVC_TEST_alice';
export const OTHER_KEY = 'SVC_TEST_bob';
export const FROM = '+14155550100';
export const TO = '+14155550123';

/** A listening sandbox (seed 1). A test gets one from the `sandbox` fixture of fixture.ts; one made here, the caller closes. */
export function startSandbox(options: SandboxOptions = {}): Sandbox {
  return createSandbox({ seed: 1, ...options }).listen();
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A tiny client as a user's test would write it: real `fetch`, intercepted by the sandbox. */
export function client(sandbox: Sandbox, key: string | null = KEY) {
  const send = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> => {
    const res = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return {
    send,
    get: <T = any>(path: string, headers?: Record<string, string>) => send<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => send<T>('POST', path, body, headers),
    placeCall: (body: Record<string, unknown> = {}) => send('POST', '/v1/calls', { to: TO, from: FROM, ...body }),
  };
}
