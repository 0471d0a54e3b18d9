import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';

/**
 * The control API's request examples are requests the server accepts, as
 * test/api/examples.test.ts holds the `/v1` ones: each example of each control operation with a
 * body is sent to a running server, on a session of its own made just before, and must get the
 * operation's documented success status with an answer the served document describes.
 */
type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string; example?: string }>;
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, unknown>;
};
type Session = { id: string; apiKey: string };

let server: SandboxServer;
let doc: { paths: Record<string, Record<string, Operation>> };
let checker: Conformance;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 11 });
  doc = (await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as typeof doc;
  checker = new Conformance(doc);
});
afterAll(async () => {
  await server.close();
});

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

async function v1(session: Session, path: string, body: unknown): Promise<Record<string, string>> {
  const { res, text } = await send('POST', path, body, { authorization: `Bearer ${session.apiKey}` });
  expect(res.status, `${path}: ${text}`).toBe(201);
  return JSON.parse(text);
}

/**
 * What an example needs to exist first, made through `/v1` with the session's key as a client
 * would: the call a call's path names (placed, so still ringing), and the account's own number
 * where the example's `to` must be one (no example can know which number a session provisions).
 */
const PREPARE: Record<string, (session: Session) => Promise<{ params?: Record<string, string>; own?: Record<string, string> }>> = {
  async answerCall(session) {
    return { params: { id: (await v1(session, '/v1/calls', { to: '+14155550123', from: '+14155550100' })).id! } };
  },
  async setCallRecordingTiming(session) {
    return PREPARE.answerCall!(session);
  },
  async setConversationScript(session) {
    return PREPARE.answerCall!(session);
  },
  // `{until: "call.completed"}` needs a call to complete; `{duration}` does not mind one.
  async advance(session) {
    await v1(session, '/v1/calls', { to: '+14155550123', from: '+14155550100' });
    return {};
  },
  async inboundCall(session) {
    return { own: { to: (await v1(session, '/v1/numbers', { kind: 'local', country: 'US', area_code: '415' })).number! } };
  },
  async inboundMessage(session) {
    return PREPARE.inboundCall!(session);
  },
};

const operations = () =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/__sandbox/'))
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

describe('the control request examples', () => {
  it('give every control request body at least one example: 17 operations', () => {
    const withBodies = operations().filter(({ op }) => op.requestBody);
    expect(withBodies).toHaveLength(17);
    for (const { path, method, op } of withBodies)
      expect(Object.keys(op.requestBody!.content['application/json']!.examples ?? {}), `${method} ${path}`).not.toEqual([]);
  });

  it('are each accepted by the server with the documented success, on a fresh session, and answered as the document says', async () => {
    let sent = 0;
    for (const { path, method, op } of operations().filter(({ op }) => op.requestBody)) {
      for (const [name, example] of Object.entries(op.requestBody!.content['application/json']!.examples!)) {
        const made = await send('POST', '/__sandbox/sessions', {});
        const session = JSON.parse(made.text) as Session;
        const { params = {}, own = {} } = (await PREPARE[op.operationId]?.(session)) ?? {};
        const examples = Object.fromEntries((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.example!]));
        const url = path.replace(/\{(\w+)\}/g, (_, param: string) =>
          encodeURIComponent(param === 's' ? session.id : (params[param] ?? examples[param]!)),
        );
        const { res, text } = await send(method, url, { ...(example.value as object), ...own });
        const where = `${op.operationId} ${name}: ${method} ${url}`;
        const success = Object.keys(op.responses).find((status) => status.startsWith('2'));
        expect(res.status, `${where} → ${text}`).toBe(Number(success));
        // Transport headers (date, connection, content-length) are not the document's business.
        const headers = new Headers(res.headers.has('content-type') ? { 'content-type': res.headers.get('content-type')! } : {});
        expect(checker.check(method, url, res.status, headers, text || null), where).toEqual([]);
        if (op.operationId === 'runScenario') expect(JSON.parse(text).passed, `${where}: the scenario example passes`).toBe(true);
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(19); // createSession and advance have two each
  });
});
