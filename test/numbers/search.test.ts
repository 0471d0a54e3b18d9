import type { Sandbox } from '../../src/index.js';
import { describe, expect } from '../fixture.js';
import { client, OTHER_KEY, startSandbox } from '../helpers.js';
import { allPages, numbersClient, test as it } from './support.js';

describe('GET /v1/numbers searches the available inventory', () => {
  it('answers a page of available numbers in the list envelope', async ({ api }) => {
    const res = await api.get('/v1/numbers');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(50);
    expect(res.body.has_more).toBe(true);
    expect(typeof res.body.next_cursor).toBe('string');
    for (const n of res.body.data) {
      expect(n).toEqual({
        number: expect.stringMatching(/^\+[1-9]\d{1,14}$/),
        kind: expect.stringMatching(/^(local|toll_free|international)$/),
        country: expect.stringMatching(/^[A-Z]{2}$/),
        area_code: expect.stringMatching(/^\d+$/),
        capabilities: { voice: true, sms: true, mms: expect.any(Boolean) },
        status: 'available',
      });
    }
  });

  it('holds every kind across several countries and area codes', async ({ api }) => {
    const all = await allPages(api, '/v1/numbers?limit=200');
    expect(new Set(all.map((n) => n.kind))).toEqual(new Set(['local', 'toll_free', 'international']));
    expect(new Set(all.map((n) => n.country)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(all.map((n) => n.area_code)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(all.map((n) => n.number)).size).toBe(all.length);
    // 555 exchanges stay outside the pool, so tests can use them as remote numbers freely.
    expect(all.filter((n) => /^\+1\d{3}555/.test(n.number))).toEqual([]);
  });

  it('filters by kind, country (any case), area_code and contains', async ({ api }) => {
    const tollFree = await allPages(api, '/v1/numbers?kind=toll_free&limit=200');
    expect(tollFree.length).toBeGreaterThan(0);
    expect(tollFree.every((n) => n.kind === 'toll_free' && n.country === 'US')).toBe(true);

    const gb = await allPages(api, '/v1/numbers?country=gb&limit=200');
    expect(gb.length).toBeGreaterThan(0);
    expect(gb.every((n) => n.country === 'GB' && n.kind === 'international' && n.number.startsWith('+44'))).toBe(true);
    expect(gb.every((n) => n.capabilities.mms === false)).toBe(true);

    const sf = await allPages(api, '/v1/numbers?area_code=415');
    expect(sf).toHaveLength(50);
    expect(sf.every((n) => n.number.startsWith('+1415') && n.area_code === '415' && n.kind === 'local')).toBe(true);

    const target = sf[7].number.slice(-4);
    const containing = await allPages(api, `/v1/numbers?contains=${target}&limit=200`);
    expect(containing.map((n) => n.number)).toContain(sf[7].number);
    expect(containing.every((n) => n.number.includes(target))).toBe(true);

    const none = await api.get('/v1/numbers?country=FR');
    expect(none.body).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it('reads letters in contains as keypad digits and * as any digit', async ({ api }) => {
    const sf = await allPages(api, '/v1/numbers?area_code=415');
    const digits = sf[3].number.slice(5, 8); // the exchange, e.g. "723"
    const wild = await allPages(api, `/v1/numbers?area_code=415&contains=415${digits[0]}*${digits[2]}`);
    expect(wild.map((n) => n.number)).toContain(sf[3].number);
    expect(wild.every((n) => new RegExp(`^\\+1415${digits[0]}\\d${digits[2]}`).test(n.number))).toBe(true);
    // "1GCE" is 1-4-2-3 on a keypad.
    const lettered = await allPages(api, '/v1/numbers?contains=1GCE&limit=200');
    const numeric = await allPages(api, '/v1/numbers?contains=1423&limit=200');
    expect(lettered).toEqual(numeric);
  });

  it('pages with a stable cursor: every number once, in a fixed order', async ({ sandbox, api }) => {
    const whole = await allPages(api, '/v1/numbers?limit=200');
    const paged = await allPages(api, '/v1/numbers?limit=37');
    expect(paged.map((n) => n.number)).toEqual(whole.map((n) => n.number));

    const first = await api.get('/v1/numbers?area_code=415&limit=20');
    expect(first.body.data).toHaveLength(20);
    // A number ahead of the cursor is taken meanwhile: the next page skips it and repeats nothing.
    const taken = first.body.data.length + 2;
    const ahead = (await allPages(api, '/v1/numbers?area_code=415'))[taken].number;
    await numbersClient(sandbox, OTHER_KEY).provision({ number: ahead });
    const rest = await allPages(api, '/v1/numbers?area_code=415&limit=20', first.body.next_cursor);
    const all = [...first.body.data, ...rest].map((n) => n.number);
    expect(all).toHaveLength(49);
    expect(new Set(all).size).toBe(49);
    expect(all).not.toContain(ahead);
  });

  it('is the same pool for the same seed, survives reset, and differs for another seed', async ({ sandbox }) => {
    const pool = async (s: Sandbox) => (await allPages(client(s), '/v1/numbers?limit=200')).map((n) => n.number);
    const mine = await pool(sandbox);
    const twin = startSandbox({ baseUrl: 'https://twin.svc.test' });
    const other = startSandbox({ baseUrl: 'https://other.svc.test', seed: 2 });
    try {
      expect(await pool(twin)).toEqual(mine);
      const theirs = await pool(other);
      expect(theirs).toHaveLength(mine.length);
      expect(theirs).not.toEqual(mine);
      sandbox.reset();
      expect(await pool(sandbox)).toEqual(mine);
    } finally {
      twin.close();
      other.close();
    }
  });
});

describe("GET /v1/numbers?provisioned=true lists the account's own numbers", () => {
  it("lists only this account's numbers, newest first, with the filters and date bounds", async ({ sandbox, api }) => {
    const a = await api.provision({ kind: 'local', area_code: '212' });
    await sandbox.advance('1m');
    const b = await api.provision({ kind: 'toll_free' });
    await numbersClient(sandbox, OTHER_KEY).provision({ kind: 'local' });

    const mine = await api.get('/v1/numbers?provisioned=true');
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((n: any) => n.id)).toEqual([b.id, a.id]);
    expect(mine.body.data[0]).toEqual(b);
    expect((await api.get('/v1/numbers?provisioned=true&kind=local')).body.data.map((n: any) => n.id)).toEqual([a.id]);
    expect((await api.get('/v1/numbers?provisioned=true&area_code=212')).body.data.map((n: any) => n.id)).toEqual([a.id]);
    expect((await api.get('/v1/numbers?provisioned=true&created_after=2026-01-01T00:00:30Z')).body.data.map((n: any) => n.id)).toEqual([
      b.id,
    ]);
    const page = await api.get('/v1/numbers?provisioned=true&limit=1');
    expect(page.body).toMatchObject({ has_more: true, data: [{ id: b.id }] });
    const next = await api.get(`/v1/numbers?provisioned=true&limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(next.body).toMatchObject({ has_more: false, next_cursor: null, data: [{ id: a.id }] });
    // provisioned=false is the search.
    expect((await api.get('/v1/numbers?provisioned=false&limit=1')).body.data[0].status).toBe('available');
  });
});

describe('GET /v1/numbers refuses bad queries with a 400 naming the parameter', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['an unknown kind', 'kind=tollfree', 'kind', /did you mean "toll_free"/],
    ['a country that is not two letters', 'country=USA', 'country', /two-letter country code/],
    ['an area code with letters', 'area_code=41a', 'area_code', /1 to 5 digits/],
    ['contains with punctuation', 'contains=41-5', 'contains', /digits, letters/],
    ['provisioned not a boolean', 'provisioned=yes', 'provisioned', /"true", "false"/],
    ['a misspelt parameter', 'area=415', 'area', /did you mean `area_code`/],
    ['a limit of 0', 'limit=0', 'limit', /1 to 200/],
    ['a limit of 201', 'limit=201', 'limit', /1 to 200/],
    ['date bounds without provisioned=true', 'created_after=2026-01-01T00:00:00Z', 'created_after', /provisioned=true/],
    ['a forged cursor', 'cursor=abc.def', 'cursor', /not a cursor of this list/],
  ];
  it.for(cases)('%s', async ([, query, param, message], { api }) => {
    const res = await api.get(`/v1/numbers?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses a cursor of another list or another account', async ({ sandbox, api }) => {
    await api.placeCall();
    await api.placeCall();
    const calls = await api.get('/v1/calls?limit=1');
    expect((await api.get(`/v1/numbers?cursor=${encodeURIComponent(calls.body.next_cursor)}`)).status).toBe(400);
    const mine = await api.get('/v1/numbers?limit=1');
    const theirs = await numbersClient(sandbox, OTHER_KEY).get(`/v1/numbers?limit=1&cursor=${encodeURIComponent(mine.body.next_cursor)}`);
    expect(theirs.status).toBe(400);
    expect(theirs.body.error.code).toBe('invalid_parameter');
    // The search cursor is not one of the provisioned list either.
    expect((await api.get(`/v1/numbers?provisioned=true&cursor=${encodeURIComponent(mine.body.next_cursor)}`)).status).toBe(400);
  });
});
