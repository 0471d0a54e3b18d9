// @vitest-environment happy-dom
import { afterEach, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { FROM, KEY, TO } from '../helpers.js';

let sandbox: Sandbox;
afterEach(() => sandbox.close());

function xhr(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; requestId: string | null }> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, url);
    request.setRequestHeader('Authorization', `Bearer ${KEY}`);
    request.setRequestHeader('Content-Type', 'application/json');
    request.onload = () =>
      resolve({ status: request.status, body: JSON.parse(request.responseText), requestId: request.getResponseHeader('x-request-id') });
    request.onerror = () => reject(new Error('xhr failed'));
    request.send(body === undefined ? null : JSON.stringify(body));
  });
}

it('answers XMLHttpRequest where a DOM exists', async () => {
  const original = globalThis.XMLHttpRequest;
  sandbox = createSandbox().listen();
  const created = await xhr('POST', `${sandbox.baseUrl}/v1/calls`, { to: TO, from: FROM });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('ringing');
  expect(created.requestId).toMatch(/^req_/);
  const listed = await xhr('GET', `${sandbox.baseUrl}/v1/calls`);
  expect(listed.body.data).toHaveLength(1);
  sandbox.close();
  expect(globalThis.XMLHttpRequest).toBe(original);
  sandbox = createSandbox(); // for afterEach
});

it('fires error on XMLHttpRequest for an injected network fault, and load with the status for a 503', async () => {
  sandbox = createSandbox().listen();
  sandbox.faults.inject({ method: 'POST', network: true });
  await expect(xhr('POST', `${sandbox.baseUrl}/v1/calls`, { to: TO, from: FROM })).rejects.toThrow('xhr failed');
  sandbox.faults.inject({ status: 503 });
  const unavailable = await xhr('GET', `${sandbox.baseUrl}/v1/calls`);
  expect(unavailable.status).toBe(503);
  expect(unavailable.body.error.code).toBe('service_unavailable');
  expect((await xhr('GET', `${sandbox.baseUrl}/v1/calls`)).body.data).toEqual([]);
});
