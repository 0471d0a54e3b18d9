import { describe, expect } from '../fixture.js';
import { OTHER_KEY, startSandbox } from '../helpers.js';
import { allPages, numbersClient, test, type NumbersClient } from './support.js';

/** `api` is Alice's numbers client; `bob` is another account's. */
const it = test.extend<{ bob: NumbersClient }>({
  bob: async ({ sandbox }, use) => {
    await use(numbersClient(sandbox, OTHER_KEY));
  },
});

const available = async (c: NumbersClient, query = 'limit=200') => (await allPages(c, `/v1/numbers?${query}`)).map((n) => n.number);
const mine = async (c: NumbersClient) => (await allPages(c, '/v1/numbers?provisioned=true')).map((n) => n.id);

describe('POST /v1/numbers provisions a number', () => {
  it('provisions a searched number: 201 with the Number record', async ({ api }) => {
    const [first] = (await api.get('/v1/numbers?country=CA&limit=1')).body.data;
    const res = await api.post('/v1/numbers', { number: first.number });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^num_[0-9A-Za-z]{16}$/),
      number: first.number,
      kind: 'local',
      country: 'CA',
      area_code: first.area_code,
      capabilities: { voice: true, sms: true, mms: true },
      routing: null,
      caller_id: null,
      sms: { enabled: true },
      status: 'provisioned',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(await available(api)).not.toContain(first.number);
    expect(await mine(api)).toEqual([res.body.id]);
  });

  it('provisions the first available match of kind, country and area_code', async ({ api, bob }) => {
    const [expected, next] = (await api.get('/v1/numbers?kind=international&country=DE&area_code=89&limit=2')).body.data;
    const a = await api.provision({ kind: 'international', country: 'DE', area_code: '89' });
    expect(a).toMatchObject({
      number: expected.number,
      kind: 'international',
      country: 'DE',
      area_code: '89',
      capabilities: { mms: false },
    });
    const b = await bob.provision({ kind: 'international', country: 'de', area_code: '89' });
    expect(b.number).toBe(next.number);
  });

  it('takes the configuration with it: routing, caller_id and sms', async ({ api }) => {
    const n = await api.provision({
      kind: 'toll_free',
      routing: { type: 'agent', target: 'maria' },
      caller_id: { name: 'Acme Dental' },
      sms: { enabled: false },
    });
    expect(n).toMatchObject({
      kind: 'toll_free',
      routing: { type: 'agent', target: 'maria' },
      caller_id: { name: 'Acme Dental' },
      sms: { enabled: false },
    });
  });

  it('makes a number held by one account unavailable to another until it is released', async ({ api, bob }) => {
    const n = await api.provision({ area_code: '617' });
    expect(await available(bob, 'area_code=617')).not.toContain(n.number);

    const taken = await bob.post('/v1/numbers', { number: n.number });
    expect(taken.status).toBe(422);
    expect(taken.body.error).toMatchObject({
      code: 'number_unavailable',
      param: 'number',
      message: expect.stringMatching(/already provisioned.*GET \/v1\/numbers/),
    });
    expect(await mine(bob)).toEqual([]);
    // The holder itself cannot take it twice either.
    expect((await api.post('/v1/numbers', { number: n.number })).body.error.code).toBe('number_unavailable');

    expect((await api.del(`/v1/numbers/${n.id}`)).status).toBe(204);
    expect(await available(bob, 'area_code=617')).toContain(n.number);
    const again = await bob.post('/v1/numbers', { number: n.number });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(n.id);
    expect(again.body.routing).toBeNull();
  });

  it('answers 422 number_unavailable for a number outside the pool or criteria nothing matches, and stores nothing', async ({ api }) => {
    const outside = await api.post('/v1/numbers', { number: '+14155550123' });
    expect(outside.status).toBe(422);
    expect(outside.body.error).toMatchObject({
      code: 'number_unavailable',
      param: 'number',
      message: expect.stringMatching(/not in the sandbox's number pool/),
    });
    const nothing = await api.post('/v1/numbers', { country: 'FR' });
    expect(nothing.status).toBe(422);
    expect(nothing.body.error).toMatchObject({
      code: 'number_unavailable',
      param: 'country',
      message: expect.stringMatching(/No available number matches country=FR/),
    });
    const mismatch = await api.post('/v1/numbers', { kind: 'toll_free', country: 'GB' });
    expect(mismatch.body.error.code).toBe('number_unavailable');
    expect(await mine(api)).toEqual([]);
  });

  it('runs out: the 51st number of one area code is unavailable', async ({ api, bob }) => {
    for (let i = 0; i < 50; i++) await (i % 2 ? bob : api).provision({ area_code: '305' });
    const res = await api.post('/v1/numbers', { area_code: '305' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('number_unavailable');
    expect(await available(api, 'area_code=305')).toEqual([]);
  });
});

describe('POST /v1/numbers refuses bad input with a 4xx naming the field, and stores nothing', () => {
  const cases: Array<[string, unknown, number, string, string | undefined, RegExp]> = [
    ['no number nor criteria', {}, 400, 'missing_parameter', 'number', /`number`.*or criteria/],
    ['only configuration', { sms: { enabled: true } }, 400, 'missing_parameter', 'number', /Say which number/],
    [
      'number with criteria',
      { number: '+12125550100', kind: 'local' },
      400,
      'invalid_parameter',
      'kind',
      /either `number` or search criteria/,
    ],
    ['a number not E.164', { number: '2125550100' }, 400, 'invalid_parameter', 'number', /E\.164/],
    ['an unknown kind', { kind: 'mobile' }, 400, 'invalid_parameter', 'kind', /must be one of "local", "toll_free", "international"/],
    ['a misspelt field', { kind: 'local', areacode: '415' }, 400, 'invalid_parameter', 'areacode', /did you mean `area_code`/],
    [
      'an agent routing without target',
      { kind: 'local', routing: { type: 'agent' } },
      400,
      'missing_parameter',
      'routing.target',
      /required for routing type agent/,
    ],
    [
      'a caller ID name of 16 characters',
      { kind: 'local', caller_id: { name: 'A'.repeat(16) } },
      400,
      'invalid_parameter',
      'caller_id.name',
      /at most 15 characters/,
    ],
    [
      'a forward to an unreachable number',
      { kind: 'local', routing: { type: 'forward', target: '+15005550001' } },
      422,
      'unreachable_destination',
      'routing.target',
      /unreachable/,
    ],
    ['a non-JSON-object body', [1], 400, 'invalid_parameter', undefined, /JSON object/],
  ];
  it.for(cases)('%s', async ([, body, status, code, param, message], { api }) => {
    const res = await api.post('/v1/numbers', body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(res.body.error.param).toBe(param);
    expect(await mine(api)).toEqual([]);
  });

  it('uses up no id on a refused request: the next number gets the id a fresh sandbox would give', async ({ api }) => {
    await api.post('/v1/numbers', { kind: 'local', routing: { type: 'extension', target: 'abc' } });
    await api.post('/v1/numbers', { country: 'FR' });
    const n = await api.provision({ kind: 'local' });
    const fresh = startSandbox({ baseUrl: 'https://fresh.svc.test' });
    try {
      expect((await numbersClient(fresh).provision({ kind: 'local' })).id).toBe(n.id);
    } finally {
      fresh.close();
    }
  });
});

describe('PUT /v1/numbers/{id} replaces the aspects it names', () => {
  it('sets routing of each type, caller ID and SMS, leaving the others as they were', async ({ api }) => {
    const n = await api.provision();
    const put = (body: unknown) => api.put(`/v1/numbers/${n.id}`, body);

    let res = await put({ routing: { type: 'ai_receptionist' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...n, routing: { type: 'ai_receptionist', target: null } });
    res = await put({ routing: { type: 'ai_receptionist', target: 'front-desk' } });
    expect(res.body.routing).toEqual({ type: 'ai_receptionist', target: 'front-desk' });
    res = await put({ routing: { type: 'agent', target: 'maria' } });
    expect(res.body.routing).toEqual({ type: 'agent', target: 'maria' });
    res = await put({ routing: { type: 'extension', target: '204' } });
    expect(res.body.routing).toEqual({ type: 'extension', target: '204' });
    res = await put({ routing: { type: 'forward', target: '+442071234567' } });
    expect(res.body.routing).toEqual({ type: 'forward', target: '+442071234567' });

    res = await put({ caller_id: { name: 'Acme Dental Co.' } });
    expect(res.body).toMatchObject({
      caller_id: { name: 'Acme Dental Co.' },
      routing: { type: 'forward', target: '+442071234567' },
      sms: { enabled: true },
    });
    res = await put({ sms: { enabled: false } });
    expect(res.body).toMatchObject({ sms: { enabled: false }, caller_id: { name: 'Acme Dental Co.' } });
    res = await put({ routing: null, caller_id: null });
    expect(res.body).toMatchObject({ routing: null, caller_id: null, sms: { enabled: false } });
    // The listing shows the stored state.
    expect((await api.get('/v1/numbers?provisioned=true')).body.data[0]).toEqual(res.body);
  });

  const cases: Array<[string, unknown, number, string, string, RegExp]> = [
    ['an empty body', {}, 400, 'missing_parameter', 'routing', /at least one aspect/],
    ['an unknown routing type', { routing: { type: 'voicemail' } }, 400, 'invalid_parameter', 'routing.type', /must be one of/],
    [
      'a misspelt routing type',
      { routing: { type: 'agnet', target: 'x' } },
      400,
      'invalid_parameter',
      'routing.type',
      /did you mean "agent"/,
    ],
    ['routing without type', { routing: { target: 'maria' } }, 400, 'missing_parameter', 'routing.type', /required/],
    [
      'an agent with an empty target',
      { routing: { type: 'agent', target: '' } },
      400,
      'invalid_parameter',
      'routing.target',
      /must not be empty/,
    ],
    [
      'an agent with a blank target',
      { routing: { type: 'agent', target: '   ' } },
      400,
      'missing_parameter',
      'routing.target',
      /agent name/,
    ],
    [
      'an extension with letters',
      { routing: { type: 'extension', target: '20a' } },
      400,
      'invalid_parameter',
      'routing.target',
      /1 to 8 digits/,
    ],
    [
      'an extension of 9 digits',
      { routing: { type: 'extension', target: '123456789' } },
      400,
      'invalid_parameter',
      'routing.target',
      /1 to 8 digits/,
    ],
    [
      'an extension without target',
      { routing: { type: 'extension', target: null } },
      400,
      'missing_parameter',
      'routing.target',
      /extension digits/,
    ],
    [
      'a forward to a non-E.164 number',
      { routing: { type: 'forward', target: '020 7123 4567' } },
      400,
      'invalid_parameter',
      'routing.target',
      /E\.164/,
    ],
    [
      'a forward to an unassigned prefix',
      { routing: { type: 'forward', target: '+9991234567' } },
      422,
      'unreachable_destination',
      'routing.target',
      /unreachable/,
    ],
    [
      'a caller ID over 15 characters',
      { caller_id: { name: 'Acme Dental Clinic' } },
      400,
      'invalid_parameter',
      'caller_id.name',
      /at most 15 characters, got 18/,
    ],
    ['a caller ID with non-ASCII', { caller_id: { name: 'Café Ünï' } }, 400, 'invalid_parameter', 'caller_id.name', /printable ASCII/],
    ['caller_id without name', { caller_id: {} }, 400, 'missing_parameter', 'caller_id.name', /required/],
    ['sms.enabled a string', { sms: { enabled: 'yes' } }, 400, 'invalid_parameter', 'sms.enabled', /boolean/],
    ['an unknown aspect', { voicemail: true }, 400, 'invalid_parameter', 'voicemail', /Unknown field/],
  ];
  it.for(cases)('refuses %s and changes nothing', async ([, body, status, code, param, message], { api }) => {
    const n = await api.provision({ kind: 'local', routing: { type: 'agent', target: 'sam' }, caller_id: { name: 'Sam' } });
    const res = await api.put(`/v1/numbers/${n.id}`, body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, param, message: expect.stringMatching(message) });
    expect((await api.get('/v1/numbers?provisioned=true')).body.data).toEqual([n]);
  });

  it('refuses a forward to the number itself', async ({ api }) => {
    const n = await api.provision();
    const res = await api.put(`/v1/numbers/${n.id}`, { routing: { type: 'forward', target: n.number } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: 'routing.target', message: expect.stringMatching(/itself/) });
  });

  it("is 404 for an unknown id and for another account's number", async ({ api, bob }) => {
    const n = await api.provision();
    expect((await api.put('/v1/numbers/num_0000000000000000', { sms: { enabled: false } })).status).toBe(404);
    const theirs = await bob.put(`/v1/numbers/${n.id}`, { sms: { enabled: false } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    expect((await api.get('/v1/numbers?provisioned=true')).body.data[0].sms).toEqual({ enabled: true });
  });
});

describe('DELETE /v1/numbers/{id} releases the number for good', () => {
  it('answers 204; the id is then 404 everywhere and the number is back in the search', async ({ api }) => {
    const n = await api.provision({ area_code: '512' });
    const res = await api.del(`/v1/numbers/${n.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api.del(`/v1/numbers/${n.id}`)).status).toBe(404);
    expect((await api.put(`/v1/numbers/${n.id}`, { sms: { enabled: true } })).status).toBe(404);
    expect(await mine(api)).toEqual([]);
    expect(await available(api, 'area_code=512')).toContain(n.number);
  });

  it("is 404 for another account's number, which stays held", async ({ api, bob }) => {
    const n = await api.provision();
    const res = await bob.del(`/v1/numbers/${n.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(await mine(api)).toEqual([n.id]);
  });

  it('is forgotten by reset(), which empties every account', async ({ sandbox, api }) => {
    const n = await api.provision();
    sandbox.reset();
    expect(await mine(api)).toEqual([]);
    expect(await available(api)).toContain(n.number);
  });
});

describe('scopes and keys apply to numbers and messages', () => {
  it('refuses writes to a read-only key with 403, storing nothing, and shares numbers between keys of one account', async () => {
    const sandbox = startSandbox({
      keys: {
        SVC_TEST_admin: { account: 'acme' },
        SVC_TEST_reader: { account: 'acme', scopes: ['numbers:read', 'messages:read'] },
      },
    });
    try {
      const admin = numbersClient(sandbox, 'SVC_TEST_admin');
      const reader = numbersClient(sandbox, 'SVC_TEST_reader');
      const refused = await reader.post('/v1/numbers', { kind: 'local' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      const n = await admin.provision();
      expect((await reader.get('/v1/numbers?provisioned=true')).body.data.map((x: any) => x.id)).toEqual([n.id]);
      expect((await reader.sendMessage({ from: n.number, to: '+14155550123', body: 'x' })).status).toBe(403);
      expect((await reader.del(`/v1/numbers/${n.id}`)).status).toBe(403);
      expect((await admin.sendMessage({ from: n.number, to: '+14155550123', body: 'x' })).status).toBe(201);
      expect((await reader.get('/v1/messages')).body.data).toHaveLength(1);
    } finally {
      sandbox.close();
    }
  });
});
