import { describe, expect, test as fixtureTest, type SandboxContext } from '../fixture.js';
import { client, TO, type Reply } from '../helpers.js';

// Enterprise: no rate cap, so a test can create many calls within one virtual second.
// The file's options: an extension of its own (a top-level override would change the shared test API for every file after this one in a worker).
const test = fixtureTest.extend({ sandboxOptions: { keys: { SVC_TEST_alice: { plan: 'enterprise' } } } });
const it = test;

async function placeMany({ sandbox, api }: SandboxContext, n: number, spacing = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await api.placeCall()).body.id);
    if (spacing) await sandbox.advance(spacing);
  }
  return ids;
}

async function walk(api: SandboxContext['api'], query: string): Promise<{ pages: number; ids: string[] }> {
  const ids: string[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res: Reply = await api.get(`/v1/calls?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    pages++;
    ids.push(...res.body.data.map((c: { id: string }) => c.id));
    expect(res.body.has_more).toBe(res.body.next_cursor !== null);
    cursor = res.body.next_cursor;
  } while (cursor);
  return { pages, ids };
}

describe('GET /v1/calls', () => {
  it('pages 130 calls with limit=50 in three pages, newest first, each exactly once', async ({ sandbox, api }) => {
    const created = await placeMany({ sandbox, api }, 130);
    const first = await api.get('/v1/calls?limit=50');
    expect(first.body.data).toHaveLength(50);
    expect(first.body.has_more).toBe(true);
    const { pages, ids } = await walk(api, 'limit=50');
    expect(pages).toBe(3);
    expect(ids).toEqual([...created].reverse());
  });

  it('defaults to 50 per page and accepts up to 200', async ({ sandbox, api }) => {
    await placeMany({ sandbox, api }, 201);
    expect((await api.get('/v1/calls')).body.data).toHaveLength(50);
    const big = await api.get('/v1/calls?limit=200');
    expect(big.body.data).toHaveLength(200);
    expect(big.body.has_more).toBe(true);
  });

  it('an empty list has next_cursor null and has_more false', async ({ api }) => {
    expect((await api.get('/v1/calls')).body).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it('a cursor stays valid while new calls arrive: no item twice, none skipped', async ({ sandbox, api }) => {
    const created = await placeMany({ sandbox, api }, 30);
    const first = await api.get('/v1/calls?limit=10');
    const newer = await placeMany({ sandbox, api }, 5);
    const ids = [...first.body.data.map((c: { id: string }) => c.id)];
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const page = await api.get(`/v1/calls?limit=10&cursor=${encodeURIComponent(cursor)}`);
      ids.push(...page.body.data.map((c: { id: string }) => c.id));
      cursor = page.body.next_cursor;
    }
    expect(ids).toEqual([...created].reverse());
    // A fresh walk sees the newer calls first.
    expect((await walk(api, 'limit=10')).ids).toEqual([...created, ...newer].reverse());
  });

  it('filters by created_after and created_before (both exclusive)', async ({ sandbox, api }) => {
    const ids = await placeMany({ sandbox, api }, 10, 1000); // one call per virtual second, from 00:00:00
    const res = await api.get('/v1/calls?created_after=2026-01-01T00:00:02Z&created_before=2026-01-01T00:00:06Z');
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([ids[5], ids[4], ids[3]]);
    const paged = await walk(api, 'limit=2&created_after=2026-01-01T00:00:02Z&created_before=2026-01-01T00:00:06Z');
    expect(paged.ids).toEqual([ids[5], ids[4], ids[3]]);
    expect(paged.pages).toBe(2);
  });

  it('filters by status and direction', async ({ sandbox, api }) => {
    sandbox.network.setBehavior(TO, { ring: 'manual' });
    const [a, b, c] = await placeMany({ sandbox, api }, 3);
    sandbox.calls.answer(b!);
    sandbox.calls.hangUp(c!);
    sandbox.calls.inbound({ from: '+442071234567', to: '+14155550100', apiKey: 'SVC_TEST_alice', behavior: { ring: 'manual' } });
    const ids = async (q: string) => (await api.get(`/v1/calls?${q}`)).body.data.map((x: { id: string; direction: string }) => x.id);
    expect(await ids('status=ringing&direction=outbound')).toEqual([a]);
    expect(await ids('status=answered')).toEqual([b]);
    expect(await ids('status=completed')).toEqual([c]);
    expect(await ids('direction=inbound')).toHaveLength(1);
  });

  it('lists only the calls of the key’s account', async ({ sandbox, api }) => {
    await placeMany({ sandbox, api }, 3);
    await client(sandbox, 'SVC_TEST_bob').placeCall();
    expect((await api.get('/v1/calls')).body.data).toHaveLength(3);
    expect((await client(sandbox, 'SVC_TEST_bob').get('/v1/calls')).body.data).toHaveLength(1);
  });

  it.for<[string, string, RegExp]>([
    ['limit=0', 'limit', /integer from 1 to 200/],
    ['limit=201', 'limit', /integer from 1 to 200/],
    ['limit=ten', 'limit', /integer/],
    ['limit=1.5', 'limit', /integer/],
    ['cursor=forged', 'cursor', /not a cursor of this list/],
    ['created_after=yesterday', 'created_after', /ISO 8601/],
    ['created_before=2026-13-45', 'created_before', /ISO 8601/],
    ['status=ended', 'status', /one of "ringing", "answered", "completed"/],
    ['direction=out', 'direction', /did you mean "outbound"/],
    ['page=2', 'page', /Unknown query parameter/],
    ['limit=1&limit=2', 'limit', /more than once/],
  ])('refuses ?%s with 400 naming %s', async ([query, param, message], { api }) => {
    const res = await api.get(`/v1/calls?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses another account’s cursor', async ({ sandbox, api }) => {
    await placeMany({ sandbox, api }, 3);
    const bob = client(sandbox, 'SVC_TEST_bob');
    await bob.placeCall();
    await bob.placeCall();
    const bobCursor = (await bob.get('/v1/calls?limit=1')).body.next_cursor;
    expect(bobCursor).toEqual(expect.any(String));
    const res = await api.get(`/v1/calls?cursor=${encodeURIComponent(bobCursor)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('cursor');
  });

  it('refuses a tampered cursor', async ({ sandbox, api }) => {
    await placeMany({ sandbox, api }, 3);
    const cursor: string = (await api.get('/v1/calls?limit=1')).body.next_cursor;
    const tampered = `${(parseInt(cursor.split('.')[0]!, 36) + 1).toString(36)}.${cursor.split('.')[1]}`;
    expect((await api.get(`/v1/calls?cursor=${encodeURIComponent(tampered)}`)).status).toBe(400);
  });
});
