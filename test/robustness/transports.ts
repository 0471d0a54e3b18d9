import http from 'node:http';
import https from 'node:https';
import axios from 'axios';
import type { Sandbox } from '../../src/index.js';
import { GOOD_AUTH, type BadRequest, type Transport } from './kit.js';

/** A request with its placeholders filled and its default headers applied. */
export interface Prepared {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | FormData;
}

/** What came back, whatever carried it. */
export interface Answer {
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  text: string;
}

/** Replaces `<<name>>` with the seeded value; an unknown name is a mistake in the corpus. */
export function fill(text: string, ids: Readonly<Record<string, string>>): string {
  return text.replace(/<<(\w+)>>/g, (_, name: string) => {
    const value = ids[name];
    if (value === undefined) throw new Error(`corpus: no seeded value <<${name}>>`);
    return value;
  });
}

/** The request as sent: placeholders filled, Authorization (the good key) and Content-Type (JSON, with a body) by default. */
export function prepare(request: BadRequest, baseUrl: string, ids: Readonly<Record<string, string>>): Prepared {
  const headers: Record<string, string> = { authorization: GOOD_AUTH };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = fill(value, ids);
  }
  const body =
    typeof request.body === 'string' ? fill(request.body, ids) : typeof request.body === 'function' ? request.body() : request.body;
  return { method: request.method, url: `${baseUrl}${fill(request.path, ids)}`, headers, ...(body === undefined ? {} : { body }) };
}

/** Sends `request` through intercepted `fetch`, `node:http(s)`, axios, or straight to `sandbox.handle()`. */
export async function send(sandbox: Sandbox, via: Transport, request: Prepared): Promise<Answer> {
  switch (via) {
    case 'fetch':
      return fromResponse(await fetch(request.url, { method: request.method, headers: request.headers, body: request.body ?? null }));
    case 'handle':
      return fromResponse(
        await sandbox.handle(new Request(request.url, { method: request.method, headers: request.headers, body: request.body ?? null })),
      );
    case 'http':
      return viaNodeHttp(request);
    case 'axios':
      return viaAxios(request);
  }
}

async function fromResponse(res: Response): Promise<Answer> {
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

function bytes(body: Prepared['body']): Buffer | undefined {
  if (body === undefined) return undefined;
  if (body instanceof FormData) throw new Error('a FormData body goes through fetch or handle only');
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function viaNodeHttp(request: Prepared): Promise<Answer> {
  const client = request.url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(request.url, { method: request.method, headers: request.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = String(value);
        resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(bytes(request.body));
  });
}

async function viaAxios(request: Prepared): Promise<Answer> {
  const res = await axios.request<string>({
    url: request.url,
    method: request.method,
    headers: request.headers,
    // A Buffer goes out byte for byte; axios would trim, re-encode or JSON-quote a string.
    data: bytes(request.body),
    responseType: 'text',
    transformResponse: [(data: string) => data],
    validateStatus: () => true,
    maxBodyLength: Infinity,
    maxContentLength: Infinity,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value != null) headers[name.toLowerCase()] = String(value);
  return { status: res.status, headers, text: res.data };
}
