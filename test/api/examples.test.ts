import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { Conformance } from '../support/conformance.js';

/**
 * The document's examples are requests the sandbox accepts: example-driven
 * tools (dredd, Portman, Prism's mock) send exactly these. Each request body example is sent
 * to a fresh sandbox and must get the operation's success status; each path parameter example
 * has the shape of a real id and gets a documented answer. Every answer is checked against the
 * document by the conformance checker.
 */
const KEY = 'SVC_TEST_examples';
type Operation = { operationId: string; parameters?: Array<Record<string, any>>; requestBody?: any; responses: Record<string, unknown> };
const doc = createSandbox().openapi() as { paths: Record<string, Record<string, Operation>> };
const checker = new Conformance(doc);
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

async function send(sandbox: Sandbox, method: string, path: string, body?: unknown) {
  const res = await sandbox.fetch(path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(checker.check(method, path.replace(/\?.*$/, ''), res.status, res.headers, text), `${method} ${path}`).toEqual([]);
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function provision(sandbox: Sandbox): Promise<{ id: string; number: string }> {
  const res = await send(sandbox, 'POST', '/v1/numbers', { kind: 'local', country: 'US', area_code: '415' });
  expect(res.status).toBe(201);
  return res.body;
}

/**
 * What an operation's body examples need to exist first, as a user's test would make it: the
 * values of the path parameters, and the fields that must name the account's own things (a
 * message's `from` is one of the account's numbers: no example can know which).
 */
const PREPARE: Record<string, (sandbox: Sandbox) => Promise<{ params?: Record<string, string>; own?: Record<string, string> }>> = {
  async transferCall(sandbox) {
    const call = await send(sandbox, 'POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
    sandbox.calls.answer(call.body.id);
    return { params: { id: call.body.id } };
  },
  async updateNumber(sandbox) {
    return { params: { id: (await provision(sandbox)).id } };
  },
  async sendMessage(sandbox) {
    return { own: { from: (await provision(sandbox)).number } };
  },
};

describe('the request examples of the document', () => {
  const withBodies = operations.filter(({ op }) => op.requestBody);

  it('give every request body at least one example, and every path parameter one', () => {
    expect(withBodies.length).toBeGreaterThan(5);
    for (const { path, method, op } of operations) {
      if (op.requestBody)
        expect(Object.keys(op.requestBody.content['application/json'].examples ?? {}), `${method} ${path}`).not.toEqual([]);
      for (const param of op.parameters?.filter((p) => p.in === 'path') ?? [])
        expect(param.example, `${method} ${path} {${param.name}}`).toEqual(expect.any(String));
    }
  });

  for (const { path, method, op } of withBodies) {
    for (const [name, example] of Object.entries(
      op.requestBody.content['application/json'].examples as Record<string, { value: Record<string, unknown> }>,
    )) {
      it(`${op.operationId} ${name}: the sandbox accepts it with the documented success`, async () => {
        const sandbox = createSandbox({ seed: 1 });
        const { params = {}, own = {} } = (await PREPARE[op.operationId]?.(sandbox)) ?? {};
        const url = path.replace(/\{(\w+)\}/g, (_, param: string) => params[param] ?? '');
        const res = await send(sandbox, method, url, { ...example.value, ...own });
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
        expect(res.status, JSON.stringify(res.body)).toBe(Number(success));
        await sandbox.close();
      });
    }
  }

  it('gives path parameters ids of the right shape, which a sandbox that never made them answers with a documented 404', async () => {
    const sandbox = createSandbox({ seed: 1 });
    for (const { path, method, op } of operations.filter(({ path }) => path.includes('{'))) {
      const values: Record<string, string> = Object.fromEntries(
        op.parameters!.filter((p) => p.in === 'path').map((p) => [p.name, p.example]),
      );
      for (const value of Object.values(values)) expect(value, `${method} ${path}`).toMatch(/^(call|camp|num|rec|trn|wh)_[0-9A-Za-z]{16}$/);
      const url = path.replace(/\{(\w+)\}/g, (_, param: string) => values[param]!);
      const example =
        op.requestBody &&
        Object.values(op.requestBody.content['application/json'].examples as Record<string, { value: unknown }>)[0]!.value;
      const res = await send(sandbox, method, url, example);
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    await sandbox.close();
  });
});

describe('the list date filters: regression, the document typed them narrower than the server accepts', () => {
  const param = (name: string) => doc.paths['/v1/calls']!.get!.parameters!.find((p) => p.name === name)!;

  it('are described as the server accepts them: a plain date or a date-time', async () => {
    const ajv = new Ajv2020({ strict: true });
    for (const name of ['created_after', 'created_before']) {
      const validate = ajv.compile(param(name).schema);
      for (const value of ['2026-01-01', '2026-01-01T09:30:00Z', '2026-01-01T09:30:00.123+02:00'])
        expect(validate(value), `${name}=${value}`).toBe(true);
      for (const value of ['yesterday', '2026-1-1', '']) expect(validate(value), `${name}=${value}`).toBe(false);
    }
    // And the server takes what the document lets through.
    const sandbox = createSandbox({ seed: 1 });
    expect((await send(sandbox, 'GET', '/v1/calls?created_after=2026-01-01&created_before=2027-01-01')).status).toBe(200);
    expect((await send(sandbox, 'GET', '/v1/calls?created_after=yesterday')).status).toBe(400);
    await sandbox.close();
  });

  it("regression: a date-time without an offset was read in the machine's time zone; it is UTC, as a plain date is", async () => {
    const sandbox = createSandbox({ seed: 1, startTime: '2026-01-01T00:00:00Z' });
    await sandbox.advance('10h');
    const { id } = (await send(sandbox, 'POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' })).body;
    const zone = process.env.TZ;
    try {
      for (const tz of ['UTC', 'America/New_York', 'Asia/Tokyo']) {
        process.env.TZ = tz;
        const page = await send(sandbox, 'GET', '/v1/calls?created_after=2026-01-01T09:59&created_before=2026-01-01T10:01:00');
        expect(
          page.body.data.map((c: { id: string }) => c.id),
          tz,
        ).toEqual([id]);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    await sandbox.close();
  });
});
