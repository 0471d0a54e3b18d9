import { describe, expect } from '../fixture.js';
import { OTHER_KEY } from '../helpers.js';
import { allPages, numbersClient, test, type NumbersClient } from '../numbers/support.js';

const ADA = '+14155550123';
const BOB = '+14155550124';

/** Every test starts with a local number of Alice's (`mine`). */
const it = test.extend<{ mine: string }>({
  mine: [
    async ({ api }, use) => {
      await use((await api.provision({ kind: 'local' })).number);
    },
    { auto: true },
  ],
});

const ids = async (api: NumbersClient, query: string) => (await allPages(api, `/v1/messages${query}`)).map((m) => m.id);

describe('conversations: one account number and one remote number, both directions', () => {
  it('puts an SMS and an MMS to one person, and their reply, in one conversation; another person gets another', async ({
    sandbox,
    api,
    mine,
  }) => {
    const sms = (await api.sendMessage({ from: mine, to: ADA, body: 'Here is the menu' })).body;
    const mms = (await api.sendMessage({ from: mine, to: ADA, media_urls: ['https://e.com/menu.jpg'] })).body;
    const reply = sandbox.messages.inbound({ from: ADA, to: mine, body: 'Thanks!' });
    const other = (await api.sendMessage({ from: mine, to: BOB, body: 'Hi Bob' })).body;
    expect([sms.channel, mms.channel]).toEqual(['sms', 'mms']);
    expect(mms.conversation_id).toBe(sms.conversation_id);
    expect(reply.conversation_id).toBe(sms.conversation_id);
    expect(other.conversation_id).not.toBe(sms.conversation_id);

    // The same person texted from another of the account's numbers is another conversation.
    const second = (await api.provision({ kind: 'toll_free' })).number;
    const fromSecond = (await api.sendMessage({ from: second, to: ADA, body: 'x' })).body;
    expect(fromSecond.conversation_id).not.toBe(sms.conversation_id);

    expect(await ids(api, `?conversation_id=${sms.conversation_id}`)).toEqual([reply.id, mms.id, sms.id]);
    expect(await ids(api, `?conversation_id=${other.conversation_id}`)).toEqual([other.id]);
    expect(await ids(api, '?conversation_id=conv_unknown')).toEqual([]);
  });

  it("keeps an account's conversations to itself: another account texting the same person starts its own", async ({
    sandbox,
    api,
    mine,
  }) => {
    const mineToAda = (await api.sendMessage({ from: mine, to: ADA, body: 'x' })).body;
    const bob = numbersClient(sandbox, OTHER_KEY);
    const theirs = (await bob.provision()).number;
    const theirsToAda = (await bob.sendMessage({ from: theirs, to: ADA, body: 'x' })).body;
    expect(theirsToAda.conversation_id).not.toBe(mineToAda.conversation_id);
    expect((await bob.get(`/v1/messages?conversation_id=${mineToAda.conversation_id}`)).body.data).toEqual([]);
    expect((await bob.get('/v1/messages')).body.data.map((m: any) => m.id)).toEqual([theirsToAda.id]);
  });
});

describe('GET /v1/messages filters and pages', () => {
  it('filters by direction, channel and status, newest first', async ({ sandbox, api, mine }) => {
    const out1 = (await api.sendMessage({ from: mine, to: ADA, body: 'one' })).body;
    await sandbox.advance('5s');
    const in1 = sandbox.messages.inbound({ from: ADA, to: mine, body: 'two' });
    const in2 = sandbox.messages.inbound({ from: BOB, to: mine, mediaUrls: ['https://e.com/cat.gif'] });
    const out2 = (await api.sendMessage({ from: mine, to: BOB, body: 'four', media_urls: ['https://e.com/dog.png'] })).body;

    expect(await ids(api, '')).toEqual([out2.id, in2.id, in1.id, out1.id]);
    expect(await ids(api, '?direction=inbound')).toEqual([in2.id, in1.id]);
    expect(await ids(api, '?direction=outbound')).toEqual([out2.id, out1.id]);
    expect(await ids(api, '?channel=mms')).toEqual([out2.id, in2.id]);
    expect(await ids(api, '?channel=sms&direction=inbound')).toEqual([in1.id]);
    expect(await ids(api, '?status=received')).toEqual([in2.id, in1.id]);
    expect(await ids(api, '?status=delivered')).toEqual([out1.id]);
    expect(await ids(api, '?status=queued')).toEqual([out2.id]);
  });

  it('filters by creation date and pages with a cursor that stays valid while messages arrive', async ({ sandbox, api, mine }) => {
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push((await api.sendMessage({ from: mine, to: ADA, body: `#${i}` })).body.id);
      await sandbox.advance('1m');
    }
    expect(await ids(api, '?created_after=2026-01-01T00:01:00Z')).toEqual([sent[4], sent[3], sent[2]]);
    expect(await ids(api, '?created_before=2026-01-01T00:01:00Z')).toEqual([sent[0]]);
    expect(await ids(api, '?created_after=2026-01-01T00:00:00Z&created_before=2026-01-01T00:03:00Z')).toEqual([sent[2], sent[1]]);

    const first = await api.get('/v1/messages?limit=2');
    expect(first.body).toMatchObject({ has_more: true, data: [{ id: sent[4] }, { id: sent[3] }] });
    sandbox.messages.inbound({ from: ADA, to: mine, body: 'new' });
    const rest = await allPages(api, '/v1/messages?limit=2', first.body.next_cursor);
    expect(rest.map((m) => m.id)).toEqual([sent[2], sent[1], sent[0]]);
  });

  const cases: Array<[string, string, string, RegExp]> = [
    ['an unknown direction', 'direction=incoming', 'direction', /"outbound", "inbound"/],
    ['an unknown channel', 'channel=smss', 'channel', /did you mean "sms"/],
    ['an unknown status', 'status=done', 'status', /must be one of/],
    ['a misspelt parameter', 'conversation=conv_x', 'conversation', /did you mean `conversation_id`/],
    ['a bad date', 'created_after=yesterday', 'created_after', /ISO 8601/],
    ['a limit of 500', 'limit=500', 'limit', /1 to 200/],
    ['a forged cursor', 'cursor=zz.AAAAAAAAAAAAAAAA', 'cursor', /not a cursor of this list/],
  ];
  it.for(cases)('refuses %s with a 400 naming it', async ([, query, param, message], { api }) => {
    const res = await api.get(`/v1/messages?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param, message: expect.stringMatching(message) });
  });

  it('refuses a cursor of another account or another list', async ({ sandbox, api, mine }) => {
    await api.sendMessage({ from: mine, to: ADA, body: '1' });
    await api.sendMessage({ from: mine, to: ADA, body: '2' });
    const page = await api.get('/v1/messages?limit=1');
    const bob = numbersClient(sandbox, OTHER_KEY);
    expect((await bob.get(`/v1/messages?cursor=${encodeURIComponent(page.body.next_cursor)}`)).status).toBe(400);
    expect((await api.get(`/v1/calls?cursor=${encodeURIComponent(page.body.next_cursor)}`)).status).toBe(400);
  });
});
