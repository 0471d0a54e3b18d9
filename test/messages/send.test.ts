import { SandboxError, type Sandbox } from '../../src/index.js';
import { describe, expect } from '../fixture.js';
import { KEY, OTHER_KEY, startSandbox, TO } from '../helpers.js';
import { numbersClient, test, type NumbersClient } from '../numbers/support.js';

/** Every test starts with a local 415 number of Alice's (`mine`); `send` sends from it to TO. */
const it = test.extend<{ mine: string; send: (body: Record<string, unknown>) => ReturnType<NumbersClient['sendMessage']> }>({
  mine: [
    async ({ api }, use) => {
      await use((await api.provision({ kind: 'local', area_code: '415' })).number);
    },
    { auto: true },
  ],
  send: async ({ api, mine }, use) => {
    await use((body) => api.sendMessage({ from: mine, to: TO, ...body }));
  },
});

describe('POST /v1/messages sends an SMS or MMS', () => {
  it('queues an SMS: 201 with the Message record', async ({ mine, send }) => {
    const res = await send({ body: 'Your table is ready.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-Za-z]{16}$/),
      direction: 'outbound',
      channel: 'sms',
      from: mine,
      to: TO,
      body: 'Your table is ready.',
      media: [],
      template: null,
      conversation_id: expect.stringMatching(/^conv_[0-9A-Za-z]{16}$/),
      status: 'queued',
      segments: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      sent_at: null,
      delivered_at: null,
      failed_at: null,
    });
  });

  it('makes a message with media an MMS, with or without text', async ({ send }) => {
    const res = await send({
      media_urls: ['https://cdn.example.com/menu.PDF', 'https://cdn.example.com/photo.jpg?size=2', 'https://cdn.example.com/x'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      channel: 'mms',
      body: null,
      segments: 1,
      media: [
        { url: 'https://cdn.example.com/menu.PDF', content_type: 'application/pdf' },
        { url: 'https://cdn.example.com/photo.jpg?size=2', content_type: 'image/jpeg' },
        { url: 'https://cdn.example.com/x', content_type: 'application/octet-stream' },
      ],
    });
    const withText = await send({ body: 'x'.repeat(500), media_urls: ['https://cdn.example.com/a.png'] });
    expect(withText.body).toMatchObject({ channel: 'mms', body: 'x'.repeat(500), segments: 1 });
    // An empty media list is no media.
    expect((await send({ body: 'hi', media_urls: [] })).body.channel).toBe('sms');
  });

  it('counts segments as carriers do: GSM-7 160/153, UCS-2 70/67', async ({ send }) => {
    const segments = async (body: string) => (await send({ body })).body.segments;
    expect(await segments('a'.repeat(160))).toBe(1);
    expect(await segments('a'.repeat(161))).toBe(2);
    expect(await segments('{'.repeat(80))).toBe(1); // extension characters take two septets
    expect(await segments('{'.repeat(81))).toBe(2);
    expect(await segments('ü'.repeat(160))).toBe(1); // ü is in the GSM alphabet
    expect(await segments(`👋${'a'.repeat(68)}`)).toBe(1); // an emoji makes it UCS-2: 70 units
    expect(await segments(`👋${'a'.repeat(69)}`)).toBe(2);
    expect(await segments('я'.repeat(134))).toBe(2);
    expect(await segments('я'.repeat(135))).toBe(3);
    expect(await segments('a'.repeat(1600))).toBe(11);
  });

  it('fills a template from fixtures with its variables (numbers accepted) and keeps the template on the message', async ({ send }) => {
    const res = await send({ template: { id: 'appointment_reminder', variables: { name: 'Ada', date: 'March 3', time: 1530 } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      channel: 'sms',
      body: 'Hi Ada, this is a reminder of your appointment on March 3 at 1530. Reply C to confirm or R to reschedule.',
      template: { id: 'appointment_reminder', variables: { name: 'Ada', date: 'March 3', time: '1530' } },
    });
    const mms = await send({
      template: { id: 'verification_code', variables: { code: '123456' } },
      media_urls: ['https://e.com/logo.png'],
    });
    expect(mms.body).toMatchObject({ channel: 'mms', body: 'Your verification code is 123456. It expires in 10 minutes.' });
  });

  describe('with the templates option', () => {
    it.override({ sandboxOptions: { templates: { welcome: 'Welcome to {{ shop }}, {{name}}!', verification_code: 'Code: {{code}}' } } });

    it('uses its templates, which may replace a fixture template', async ({ send }) => {
      expect((await send({ template: { id: 'welcome', variables: { shop: 'Acme', name: 'Ada' } } })).body.body).toBe(
        'Welcome to Acme, Ada!',
      );
      expect((await send({ template: { id: 'verification_code', variables: { code: 42 } } })).body.body).toBe('Code: 42');
      expect((await send({ template: { id: 'missed_call', variables: { name: 'Ada' } } })).status).toBe(201);
    });
  });
});

describe('the outbound lifecycle on the virtual clock', () => {
  it('is queued, sent after 1 s, delivered 2 s later with message.delivered', async ({ sandbox, api, send }) => {
    const { id } = (await send({ body: 'hello' })).body;
    const status = async () => (await api.get('/v1/messages')).body.data[0];
    await sandbox.advance(999);
    expect(await status()).toMatchObject({ id, status: 'queued', sent_at: null });
    await sandbox.advance(1);
    expect(await status()).toMatchObject({ status: 'sent', sent_at: '2026-01-01T00:00:01.000Z', delivered_at: null });
    await sandbox.advance(1999);
    expect((await status()).status).toBe('sent');
    expect(sandbox.events.list({ type: 'message.delivered' })).toEqual([]);
    await sandbox.advance(1);
    const delivered = await status();
    expect(delivered).toMatchObject({ status: 'delivered', delivered_at: '2026-01-01T00:00:03.000Z', failed_at: null });
    const events = sandbox.events.list({ type: 'message.delivered', apiKey: KEY });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'message.delivered', created_at: '2026-01-01T00:00:03.000Z', data: delivered });
    expect(sandbox.events.list({ apiKey: OTHER_KEY })).toEqual([]);
  });

  it('ends `failed` for the magic number +15005550009, with no message.delivered', async ({ sandbox, send }) => {
    const { id } = (await send({ to: '+15005550009', body: 'hello' })).body;
    await sandbox.advance('1s');
    expect(sandbox.messages.get(id)).toMatchObject({ status: 'sent' });
    await sandbox.advance('2s');
    expect(sandbox.messages.get(id)).toMatchObject({
      status: 'failed',
      sent_at: '2026-01-01T00:00:01.000Z',
      delivered_at: null,
      failed_at: '2026-01-01T00:00:03.000Z',
    });
    await sandbox.advance('1h');
    expect(sandbox.messages.get(id)!.status).toBe('failed');
    expect(sandbox.events.list()).toEqual([]);
  });

  it('keeps going for a message whose number is released meanwhile', async ({ sandbox, api, send }) => {
    const n = (await api.get('/v1/numbers?provisioned=true')).body.data[0];
    const { id } = (await send({ body: 'bye' })).body;
    await api.del(`/v1/numbers/${n.id}`);
    await sandbox.advance('3s');
    expect(sandbox.messages.get(id)!.status).toBe('delivered');
  });
});

describe('POST /v1/messages refuses bad input with a 4xx naming the field, and stores nothing', () => {
  const https = (n: number) => Array.from({ length: n }, (_, i) => `https://e.com/${i}.png`);
  const cases: Array<[string, Record<string, unknown>, number, string, string, RegExp]> = [
    ['no from', { from: undefined, body: 'x' }, 400, 'missing_parameter', 'from', /`from` is required/],
    ['no to', { to: undefined, body: 'x' }, 400, 'missing_parameter', 'to', /`to` is required/],
    ['to not E.164', { to: '4155550123', body: 'x' }, 400, 'invalid_parameter', 'to', /E\.164, e\.g\. \+14155550123/],
    ['nothing to send', {}, 400, 'missing_parameter', 'body', /`body`.*`media_urls`.*`template`/],
    ['an empty body', { body: '' }, 400, 'invalid_parameter', 'body', /must not be empty/],
    ['a body of 1,601 characters', { body: 'a'.repeat(1601) }, 400, 'invalid_parameter', 'body', /at most 1600 characters/],
    ['a body that is not text', { body: 42 }, 400, 'invalid_parameter', 'body', /must be a string/],
    ['an http media URL', { media_urls: ['http://e.com/a.png'] }, 400, 'invalid_parameter', 'media_urls[0]', /https URL/],
    [
      'a media URL that is no URL',
      { body: 'x', media_urls: ['https://e.com/a.png', 'cat.png'] },
      400,
      'invalid_parameter',
      'media_urls[1]',
      /https URL/,
    ],
    ['11 media URLs', { media_urls: https(11) }, 400, 'invalid_parameter', 'media_urls', /0 to 10 items, got 11/],
    ['media_urls a string', { media_urls: 'https://e.com/a.png' }, 400, 'invalid_parameter', 'media_urls', /must be an array/],
    [
      'body and template',
      { body: 'x', template: { id: 'missed_call', variables: { name: 'A' } } },
      400,
      'invalid_parameter',
      'template',
      /either `body` or `template`/,
    ],
    [
      'an unknown template',
      { template: { id: 'apointment_reminder', variables: {} } },
      400,
      'invalid_parameter',
      'template.id',
      /did you mean "appointment_reminder"/,
    ],
    ['a template without id', { template: { variables: {} } }, 400, 'missing_parameter', 'template.id', /required/],
    [
      'a missing template variable',
      { template: { id: 'appointment_reminder', variables: { name: 'Ada', date: 'today' } } },
      400,
      'missing_parameter',
      'template.variables.time',
      /needs the variable `time`/,
    ],
    [
      'template variables left out',
      { template: { id: 'verification_code' } },
      400,
      'missing_parameter',
      'template.variables.code',
      /`code`/,
    ],
    [
      'an unknown template variable',
      { template: { id: 'verification_code', variables: { code: '1', cod: '2' } } },
      400,
      'invalid_parameter',
      'template.variables.cod',
      /no variable `cod`: did you mean `code`/,
    ],
    [
      'a __proto__ template variable',
      { template: { id: 'verification_code', variables: JSON.parse('{"code":"1","__proto__":"x"}') } },
      400,
      'invalid_parameter',
      'template.variables.__proto__',
      /no variable `__proto__`/,
    ],
    [
      'a template variable that is an object',
      { template: { id: 'verification_code', variables: { code: {} } } },
      400,
      'invalid_parameter',
      'template.variables.code',
      /string or a number/,
    ],
    [
      'variables that are an array',
      { template: { id: 'verification_code', variables: ['1'] } },
      400,
      'invalid_parameter',
      'template.variables',
      /object of variable name/,
    ],
    [
      'a template rendering past 1,600 characters',
      { template: { id: 'verification_code', variables: { code: '9'.repeat(1600) } } },
      400,
      'invalid_parameter',
      'template.variables',
      /renders to \d+ characters/,
    ],
    [
      'a misspelt field',
      { body: 'x', media_url: ['https://e.com/a.png'] },
      400,
      'invalid_parameter',
      'media_url',
      /did you mean `media_urls`/,
    ],
    ['to the same number as from', { to: 'FROM', body: 'x' }, 400, 'invalid_parameter', 'to', /same number/],
    [
      'from a number nobody holds',
      { from: '+14155550100', body: 'x' },
      422,
      'number_not_provisioned',
      'from',
      /not a number of this account.*POST \/v1\/numbers/,
    ],
    ['to the unreachable magic number', { to: '+15005550001', body: 'x' }, 422, 'unreachable_destination', 'to', /unreachable/],
    ['to an unassigned +999 prefix', { to: '+9995550123', body: 'x' }, 422, 'unreachable_destination', 'to', /unreachable/],
  ];

  it.for(cases)('%s', async ([, overrides, status, code, param, message], { sandbox, api, mine }) => {
    const body = { from: mine, to: TO, ...overrides };
    if (body.to === 'FROM') body.to = mine;
    for (const key of Object.keys(body)) if (body[key as keyof typeof body] === undefined) delete body[key as keyof typeof body];
    const res = await api.post('/v1/messages', body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, param, message: expect.stringMatching(message) });
    expect((await api.get('/v1/messages')).body.data).toEqual([]);
    await sandbox.advance('10s');
    expect(sandbox.events.list()).toEqual([]);
  });

  it("answers 422 number_not_provisioned for another account's number and for a released one", async ({ sandbox, api, send }) => {
    const theirs = await numbersClient(sandbox, OTHER_KEY).provision();
    const res = await api.sendMessage({ from: theirs.number, to: TO, body: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'number_not_provisioned', param: 'from' });
    const own = (await api.get('/v1/numbers?provisioned=true')).body.data[0];
    await api.del(`/v1/numbers/${own.id}`);
    expect((await send({ body: 'x' })).body.error.code).toBe('number_not_provisioned');
    expect((await api.get('/v1/messages')).body.data).toEqual([]);
  });

  it('answers 422 when the number has SMS disabled, and says how to enable it', async ({ api, send }) => {
    const own = (await api.get('/v1/numbers?provisioned=true')).body.data[0];
    await api.put(`/v1/numbers/${own.id}`, { sms: { enabled: false } });
    const res = await send({ body: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'number_not_provisioned',
      param: 'from',
      message: expect.stringMatching(/SMS disabled.*PUT \/v1\/numbers\/num_.*"enabled": true/),
    });
    await api.put(`/v1/numbers/${own.id}`, { sms: { enabled: true } });
    expect((await send({ body: 'x' })).status).toBe(201);
  });

  it('answers 422 for an MMS from a number that carries no MMS, and sends its SMS', async ({ api }) => {
    const uk = (await api.provision({ country: 'GB' })).number;
    const res = await api.sendMessage({ from: uk, to: TO, body: 'x', media_urls: ['https://e.com/a.png'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'number_not_provisioned',
      param: 'from',
      message: expect.stringMatching(/cannot send MMS/),
    });
    expect((await api.sendMessage({ from: uk, to: TO, body: 'x' })).status).toBe(201);
  });

  it('uses up no id on a refused request: the next message gets the ids a fresh sandbox would give', async ({ send }) => {
    await send({ to: '+15005550001', body: 'x' });
    await send({ template: { id: 'nope' } });
    const sent = (await send({ body: 'x' })).body;
    const fresh = startSandbox({ baseUrl: 'https://fresh.svc.test' });
    try {
      const freshApi = numbersClient(fresh);
      const number = (await freshApi.provision({ kind: 'local', area_code: '415' })).number;
      const twin = (await freshApi.sendMessage({ from: number, to: TO, body: 'x' })).body;
      expect([twin.id, twin.conversation_id]).toEqual([sent.id, sent.conversation_id]);
    } finally {
      fresh.close();
    }
  });
});

const sendTo = async ({ api, mine }: { api: NumbersClient; mine: string }, to = TO) =>
  (await api.sendMessage({ from: mine, to, body: 'Your code is 123456.' })).body.id as string;
const statusesAfter = async (sandbox: Sandbox, ids: string[]) => {
  await sandbox.advance('3s');
  return ids.map((id) => sandbox.messages.get(id)!.status);
};

describe('network.setMessageBehavior / queueMessageBehavior: message outcomes per destination', () => {
  it('makes every later message to a number end `failed`, with no message.delivered, until cleared', async ({ sandbox, api, mine }) => {
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    const failed = [await sendTo({ api, mine }), await sendTo({ api, mine })];
    const other = await sendTo({ api, mine }, '+14155550199');
    expect(await statusesAfter(sandbox, [...failed, other])).toEqual(['failed', 'failed', 'delivered']);
    expect(sandbox.messages.get(failed[0]!)).toMatchObject({
      sent_at: '2026-01-01T00:00:01.000Z',
      failed_at: '2026-01-01T00:00:03.000Z',
      delivered_at: null,
    });
    expect(sandbox.events.list({ type: 'message.delivered' }).map((e) => e.data.id)).toEqual([other]);

    sandbox.network.clearBehavior(TO);
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine })])).toEqual(['delivered']);
  });

  it('queues one-shot outcomes, used up in order by the messages accepted, before the standing one', async ({ sandbox, api, mine }) => {
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    sandbox.network.queueMessageBehavior(TO, { outcome: 'delivered' }, { outcome: 'failed' }, {});
    const ids = [await sendTo({ api, mine }), await sendTo({ api, mine }), await sendTo({ api, mine }), await sendTo({ api, mine })];
    // `{}` takes the defaults of the destination, not the standing behaviour.
    expect(await statusesAfter(sandbox, ids)).toEqual(['delivered', 'failed', 'delivered', 'failed']);
  });

  it('takes the outcome when the message is accepted: scripting afterwards does not change it', async ({ sandbox, api, mine }) => {
    const before = await sendTo({ api, mine });
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    expect(await statusesAfter(sandbox, [before])).toEqual(['delivered']);
  });

  it('overrides the magic failing number, and leaves calls to the same number alone', async ({ sandbox, api, mine }) => {
    sandbox.network.setMessageBehavior('+15005550009', { outcome: 'delivered' });
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine }, '+15005550009')])).toEqual(['delivered']);
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    const call = await api.post('/v1/calls', { to: TO, from: mine });
    await sandbox.advance('2m');
    expect(sandbox.calls.get(call.body.id)).toMatchObject({ status: 'completed', disposition: 'answered' });
  });

  it('a refused message uses nothing up', async ({ sandbox, api, mine }) => {
    sandbox.network.queueMessageBehavior(TO, { outcome: 'failed' });
    const refused = await api.sendMessage({ from: '+14155550100', to: TO, body: 'not my number' });
    expect(refused.status).toBe(422);
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine })])).toEqual(['failed']);
  });

  it('reset() and clearBehavior() forget message behaviour too', async ({ sandbox, api, mine }) => {
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    sandbox.network.queueMessageBehavior('+14155550199', { outcome: 'failed' });
    sandbox.network.clearBehavior();
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine }), await sendTo({ api, mine }, '+14155550199')])).toEqual([
      'delivered',
      'delivered',
    ]);
    sandbox.network.setMessageBehavior(TO, { outcome: 'failed' });
    sandbox.reset();
    const again = (await api.provision({ kind: 'local', area_code: '415' })).number;
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine: again })])).toEqual(['delivered']);
  });

  it.for<[[string, unknown], RegExp]>([
    [['14155550123', { outcome: 'failed' }], /`number` must be E\.164/],
    [[TO, { outcome: 'unreachable' }], /`behavior(s\[0\])?.outcome` must be "delivered" or "failed".*network\.setBehavior/],
    [[TO, { outcome: 'failed', ring: '1s' }], /Unknown option `behavior(s\[0\])?.ring`: remove it/],
    [[TO, null], /must be an object/],
  ])('refuses setMessageBehavior(%j) with a SandboxError naming the fix', ([[number, behavior], message], { sandbox }) => {
    expect(() => sandbox.network.setMessageBehavior(number as string, behavior as never)).toThrow(SandboxError);
    expect(() => sandbox.network.setMessageBehavior(number as string, behavior as never)).toThrow(message);
    expect(() => sandbox.network.queueMessageBehavior(number as string, behavior as never)).toThrow(message);
  });

  it('a bad behaviour in a queue adds none of the queue', async ({ sandbox, api, mine }) => {
    expect(() => sandbox.network.queueMessageBehavior(TO, { outcome: 'failed' }, { outcome: 'lost' as never })).toThrow(SandboxError);
    expect(await statusesAfter(sandbox, [await sendTo({ api, mine })])).toEqual(['delivered']);
  });
});
