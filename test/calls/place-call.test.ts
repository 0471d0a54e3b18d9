import { describe, expect, it, test } from '../fixture.js';
import { FROM, TO } from '../helpers.js';

describe('POST /v1/calls', () => {
  it('creates a ringing call: 201 with id, status and ai_handler', async ({ api }) => {
    const res = await api.placeCall();
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^call_[0-9A-Za-z]{16}$/);
    expect(res.body).toMatchObject({
      status: 'ringing',
      ai_handler: 'none',
      direction: 'outbound',
      from: FROM,
      to: TO,
      ai_receptionist: false,
      answered_by: null,
      disposition: null,
      duration: null,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{16}$/);
  });

  it('names the AI handler when ai_receptionist is true', async ({ api }) => {
    const res = await api.placeCall({ ai_receptionist: true });
    expect(res.body).toMatchObject({ status: 'ringing', ai_receptionist: true, ai_handler: 'ava' });
  });

  describe('with the aiHandler option', () => {
    test.override({ sandboxOptions: { aiHandler: 'Reception-2' } });

    it('uses the configured AI handler name', async ({ api }) => {
      const res = await api.placeCall({ ai_receptionist: true });
      expect(res.body.ai_handler).toBe('Reception-2');
    });
  });

  it('stores the call: GET /v1/calls/{id} returns the same call', async ({ api }) => {
    const created = await api.placeCall();
    const fetched = await api.get(`/v1/calls/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
  });
});

describe('POST /v1/calls refuses bad input with a 4xx that names the field, and stores nothing', () => {
  const cases: Array<[string, unknown, number, string, string | undefined, RegExp]> = [
    ['missing to', { from: FROM }, 400, 'missing_parameter', 'to', /`to` is required.*E\.164/],
    ['missing from', { to: TO }, 400, 'missing_parameter', 'from', /`from` is required/],
    ['to not E.164', { to: '4155550123', from: FROM }, 400, 'invalid_parameter', 'to', /`to` must be E\.164, e\.g\. \+14155550123/],
    ['to with a leading 0', { to: '+04155550123', from: FROM }, 400, 'invalid_parameter', 'to', /E\.164/],
    ['to too long', { to: '+1234567890123456', from: FROM }, 400, 'invalid_parameter', 'to', /E\.164/],
    ['from a number type', { to: TO, from: 14155550100 }, 400, 'invalid_parameter', 'from', /`from` must be a string/],
    ['ai_receptionist a string', { to: TO, from: FROM, ai_receptionist: 'yes' }, 400, 'invalid_parameter', 'ai_receptionist', /boolean/],
    [
      'a misspelt field',
      { to: TO, from: FROM, ai_recepcionist: true },
      400,
      'invalid_parameter',
      'ai_recepcionist',
      /did you mean `ai_receptionist`/,
    ],
    ['an unknown field', { to: TO, from: FROM, colour: 'red' }, 400, 'invalid_parameter', 'colour', /remove it/],
    [
      'a __proto__ key',
      JSON.parse('{"to":"+14155550123","from":"+14155550100","__proto__":{"x":1}}'),
      400,
      'invalid_parameter',
      '__proto__',
      /Unknown field/,
    ],
    ['an array body', [TO], 400, 'invalid_parameter', undefined, /must be a JSON object/],
    ['a null body', null, 400, 'invalid_parameter', undefined, /must be a JSON object/],
    ['the unreachable magic number', { to: '+15005550001', from: FROM }, 422, 'unreachable_destination', 'to', /unreachable/],
    ['an unassigned +999 prefix', { to: '+9991234567', from: FROM }, 422, 'unreachable_destination', 'to', /unreachable/],
    ['to combined with campaign', { to: TO, campaign: { to: [TO], from: FROM } }, 400, 'invalid_parameter', 'to', /inside campaign/],
    ['an empty campaign', { campaign: { to: [], from: FROM } }, 400, 'invalid_parameter', 'campaign.to', /1 to 1000 items/],
    ['a bad campaign number', { campaign: { to: [TO, '555'], from: FROM } }, 400, 'invalid_parameter', 'campaign.to[1]', /E\.164/],
    ['a campaign without from', { campaign: { to: [TO] } }, 400, 'missing_parameter', 'campaign.from', /required/],
    [
      'an unreachable campaign number',
      { campaign: { to: [TO, '+15005550001'], from: FROM } },
      422,
      'unreachable_destination',
      'campaign.to[1]',
      /unreachable/,
    ],
  ];

  it.for(cases)('%s', async ([, body, status, code, param, message], { sandbox, api }) => {
    const res = await api.post('/v1/calls', body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.param).toBe(param);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const list = await api.get('/v1/calls');
    expect(list.body.data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
  });

  it('refuses malformed JSON with invalid_json', async ({ api }) => {
    const res = await api.post('/v1/calls', '{"to": "+14155550123",');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(res.body.error.message).toMatch(/not valid JSON/);
  });

  it('refuses an empty body', async ({ api }) => {
    const res = await api.send('POST', '/v1/calls', undefined, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/empty/) });
  });

  it('refuses a body that is not JSON by content type, and says how to fix it', async ({ api }) => {
    const res = await api.post('/v1/calls', 'to=%2B14155550123', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_content_type');
    expect(res.body.error.message).toMatch(/application\/json/);
  });

  it('refuses a body over 1 MiB with 413', async ({ api }) => {
    const res = await api.post('/v1/calls', { to: TO, from: FROM, pad: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('refuses invalid UTF-8', async ({ sandbox }) => {
    const res = await fetch(`${sandbox.baseUrl}/v1/calls`, {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_alice', 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_json');
  });

  it('does not use up a queued behaviour when the request is refused', async ({ sandbox, api }) => {
    sandbox.network.queueBehavior(TO, { outcome: 'busy' });
    expect((await api.post('/v1/calls', { to: TO })).status).toBe(400);
    const call = await api.placeCall();
    await sandbox.advance('1s');
    expect(sandbox.calls.get(call.body.id)?.disposition).toBe('busy');
  });
});
