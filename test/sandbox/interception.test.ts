import http from 'node:http';
import https from 'node:https';
import axios from 'axios';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { client, FROM, KEY, TO } from '../helpers.js';

const opened: Sandbox[] = [];
const open = (options = {}) => {
  const s = createSandbox({ seed: 3, ...options }).listen();
  opened.push(s);
  return s;
};
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

function httpsJson(url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('interception', () => {
  it('answers axios (node:http adapter) unchanged', async () => {
    const sandbox = open();
    const res = await axios.post(`${sandbox.baseUrl}/v1/calls`, { to: TO, from: FROM }, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(201);
    expect(res.data.status).toBe('ringing');
    const err = await axios
      .get(`${sandbox.baseUrl}/v1/calls/call_missing`, { headers: { Authorization: `Bearer ${KEY}` } })
      .catch((e) => e);
    expect(err.response.status).toBe(404);
    expect(err.response.data.error.code).toBe('not_found');
    expect(err.response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers node:https request', async () => {
    const sandbox = open();
    const created = await httpsJson(`${sandbox.baseUrl}/v1/calls`, 'POST', { to: TO, from: FROM });
    expect(created.status).toBe(201);
    const fetched = await httpsJson(`${sandbox.baseUrl}/v1/calls/${created.body.id}`, 'GET');
    expect(fetched.body.id).toBe(created.body.id);
  });

  it('two sandboxes with different base URLs work side by side, isolated', async () => {
    const a = open({ baseUrl: 'https://a.svc.test' });
    const b = open({ baseUrl: 'https://b.svc.test' });
    const callA = (await client(a).placeCall()).body;
    expect((await client(b).get('/v1/calls')).body.data).toEqual([]);
    expect((await client(a).get('/v1/calls')).body.data.map((c: { id: string }) => c.id)).toEqual([callA.id]);
    await a.advance('5s');
    expect(a.calls.get(callA.id)?.status).toBe('answered');
    expect(b.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    b.close();
    expect((await client(a).get('/v1/calls')).status).toBe(200);
  });

  it('refuses a second sandbox on the same base URL', () => {
    open();
    expect(() => open()).toThrow(SandboxError);
    expect(() => open()).toThrow(/already listens on https:\/\/api\.svc\.test/);
  });

  it('close() restores fetch and http(s).request/get as they were', async () => {
    const before = { fetch: globalThis.fetch, request: http.request, get: http.get, sRequest: https.request, sGet: https.get };
    const a = createSandbox({ baseUrl: 'https://a.svc.test' }).listen();
    const b = createSandbox({ baseUrl: 'https://b.svc.test' }).listen();
    expect(globalThis.fetch).not.toBe(before.fetch);
    a.close();
    expect(globalThis.fetch).not.toBe(before.fetch); // b still listens
    b.close();
    expect({ fetch: globalThis.fetch, request: http.request, get: http.get, sRequest: https.request, sGet: https.get }).toEqual(before);
    expect(globalThis.fetch).toBe(before.fetch);
    expect(http.request).toBe(before.request);
  });

  it('handle() answers without listening, and close() makes the sandbox refuse further use', async () => {
    const sandbox = createSandbox();
    const res = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], next_cursor: null, has_more: false });
    sandbox.close();
    sandbox.close(); // twice is fine
    await expect(sandbox.advance('1s')).rejects.toThrow('Failed to advance: the sandbox is closed. Create a new one with createSandbox().');
    expect(() => sandbox.listen()).toThrow(SandboxError);
    await expect(sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`))).rejects.toThrow(/closed/);
  });
});
