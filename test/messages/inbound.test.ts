import { SandboxError, type Sandbox } from '../../src/index.js';
import { describe, expect } from '../fixture.js';
import { KEY, OTHER_KEY } from '../helpers.js';
import { numbersClient, test } from '../numbers/support.js';

const ADA = '+14155550123';

/** Every test starts with a local number of Alice's. */
const it = test.extend<{ number: { id: string; number: string } }>({
  number: [
    async ({ api }, use) => {
      await use(await api.provision({ kind: 'local' }));
    },
    { auto: true },
  ],
});

describe('sandbox.messages.inbound delivers a message to a provisioned number', () => {
  it("stores an inbound SMS as received and emits message.received for the number's account", async ({ sandbox, api, number }) => {
    await sandbox.advance('90s');
    const msg = sandbox.messages.inbound({ from: ADA, to: number.number, body: 'Can I move my appointment?' });
    expect(msg).toEqual({
      id: expect.stringMatching(/^msg_/),
      direction: 'inbound',
      channel: 'sms',
      from: ADA,
      to: number.number,
      body: 'Can I move my appointment?',
      media: [],
      template: null,
      conversation_id: expect.stringMatching(/^conv_/),
      status: 'received',
      segments: 1,
      created_at: '2026-01-01T00:01:30.000Z',
      sent_at: null,
      delivered_at: null,
      failed_at: null,
    });
    expect((await api.get('/v1/messages')).body.data).toEqual([msg]);
    expect(sandbox.messages.get(msg.id)).toEqual(msg);
    const events = sandbox.events.list({ apiKey: KEY });
    expect(events).toEqual([
      { id: expect.stringMatching(/^evt_/), type: 'message.received', created_at: '2026-01-01T00:01:30.000Z', data: msg },
    ]);
    expect(sandbox.events.list({ apiKey: OTHER_KEY })).toEqual([]);
    expect((await numbersClient(sandbox, OTHER_KEY).get('/v1/messages')).body.data).toEqual([]);
  });

  it('makes a message with mediaUrls an MMS, with or without body', ({ sandbox, number }) => {
    const msg = sandbox.messages.inbound({ from: ADA, to: number.number, mediaUrls: ['https://e.com/photo.jpeg'] });
    expect(msg).toMatchObject({
      channel: 'mms',
      body: null,
      media: [{ url: 'https://e.com/photo.jpeg', content_type: 'image/jpeg' }],
      status: 'received',
    });
    expect(sandbox.events.list({ type: 'message.received' })).toHaveLength(1);
  });

  it('stays received: the clock moves nothing and no message.delivered follows', async ({ sandbox, number }) => {
    const msg = sandbox.messages.inbound({ from: ADA, to: number.number, body: 'hi' });
    await sandbox.advance('1h');
    expect(sandbox.messages.get(msg.id)!.status).toBe('received');
    expect(sandbox.events.list().map((e) => e.type)).toEqual(['message.received']);
  });
});

describe('sandbox.messages.inbound refuses what cannot arrive with a SandboxError, storing nothing', () => {
  const refuse = (sandbox: Sandbox, options: any, message: RegExp) => {
    expect(() => sandbox.messages.inbound(options)).toThrow(SandboxError);
    expect(() => sandbox.messages.inbound(options)).toThrow(message);
  };
  it.afterEach(async ({ sandbox, api }) => {
    expect((await api.get('/v1/messages')).body.data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
  });

  it('a number nobody holds: released, never provisioned, or outside the pool', async ({ sandbox, api, number }) => {
    const [free] = (await api.get('/v1/numbers?limit=1')).body.data;
    refuse(sandbox, { from: ADA, to: free.number, body: 'x' }, /not provisioned by any account/);
    refuse(sandbox, { from: ADA, to: '+14155550100', body: 'x' }, /not a provisioned number/);
    await api.del(`/v1/numbers/${number.id}`);
    refuse(sandbox, { from: ADA, to: number.number, body: 'x' }, /not provisioned by any account/);
  });

  it('a number with SMS disabled', async ({ sandbox, api, number }) => {
    await api.put(`/v1/numbers/${number.id}`, { sms: { enabled: false } });
    refuse(sandbox, { from: ADA, to: number.number, body: 'x' }, /SMS disabled/);
  });

  it('an MMS to a number that takes no MMS', async ({ sandbox, api }) => {
    const uk = await api.provision({ country: 'GB' });
    refuse(sandbox, { from: ADA, to: uk.number, mediaUrls: ['https://e.com/a.png'] }, /takes no MMS/);
  });

  it('bad arguments, each named', ({ sandbox, number }) => {
    refuse(sandbox, { from: 'anonymous', to: number.number, body: 'x' }, /`from` must be E\.164, e\.g\. \+14155550123 \(got "anonymous"\)/);
    refuse(sandbox, { from: ADA, to: number.number }, /give a body and\/or mediaUrls/);
    refuse(sandbox, { from: ADA, to: number.number, body: '' }, /`body` must not be empty/);
    refuse(sandbox, { from: ADA, to: number.number, body: 'a'.repeat(1601) }, /`body` must be at most 1600 characters/);
    refuse(
      sandbox,
      { from: ADA, to: number.number, mediaUrls: Array(11).fill('https://e.com/a.png') },
      /`mediaUrls` must hold 0 to 10 items/,
    );
    refuse(
      sandbox,
      { from: ADA, to: number.number, mediaUrls: ['https://e.com/\u0000.png'] },
      /`mediaUrls\[0\]` must not contain control characters/,
    );
    refuse(sandbox, { from: ADA, to: number.number, body: 'a\u0000b' }, /`body` must not contain control characters/);
    refuse(sandbox, { from: ADA, to: number.number, body: 'a\ud800b' }, /`body` must be well-formed Unicode/);
    refuse(sandbox, { from: ADA, to: number.number, mediaUrls: ['http://e.com/a.png'] }, /`mediaUrls\[0\]` must be an https URL/);
    refuse(sandbox, { from: ADA, to: number.number, mediaUrls: 'https://e.com/a.png' }, /`mediaUrls` must be an array/);
    refuse(sandbox, { from: ADA, to: number.number, body: 'x', media: [] }, /Unknown option `media`: did you mean `mediaUrls`\?/);
    refuse(sandbox, null, /The body must be a JSON object|must be an object/);
  });
});

describe('reset() forgets messages and conversations', () => {
  it('empties the list and starts ids over', async ({ sandbox, api, number }) => {
    const before = sandbox.messages.inbound({ from: ADA, to: number.number, body: 'x' });
    sandbox.reset();
    expect((await api.get('/v1/messages')).body.data).toEqual([]);
    const again = await api.provision({ kind: 'local' });
    expect(again.number).toBe(number.number);
    const after = sandbox.messages.inbound({ from: ADA, to: again.number, body: 'x' });
    expect([after.id, after.conversation_id]).toEqual([before.id, before.conversation_id]);
  });
});
