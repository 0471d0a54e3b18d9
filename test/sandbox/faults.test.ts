import https from 'node:https';
import axios from 'axios';
import { SandboxError } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client, FROM, KEY, TO } from '../helpers.js';

describe('sandbox.faults: injected server and network failures', () => {
  it('answers the next matching request with the injected 503, changes nothing, then serves normally', async ({ sandbox, api }) => {
    sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503, retryAfter: 2 });

    const failed = await api.placeCall();
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('service_unavailable');
    expect(failed.body.error.message).toMatch(/injected 503 fault.*retry after 2 seconds/);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(failed.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{16}$/);
    expect(failed.headers.get('x-ratelimit-remaining')).toBe('99');
    expect((await api.get('/v1/calls')).body.data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
    expect(sandbox.faults.list()).toEqual([]);

    const retried = await api.placeCall();
    expect(retried.status).toBe(201);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('matches by method and by path pattern, and leaves other requests alone', async ({ sandbox, api }) => {
    const { id } = (await api.placeCall()).body;
    sandbox.faults.inject({ method: 'GET', path: '/v1/calls/{id}', status: 500 });

    expect((await api.get('/v1/calls')).status).toBe(200); // another path
    expect((await api.placeCall()).status).toBe(201); // another method
    const failed = await api.get(`/v1/calls/${id}`);
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('internal_error');
    expect(failed.headers.get('retry-after')).toBeNull();
    expect((await api.get(`/v1/calls/${id}`)).status).toBe(200);
    expect(sandbox.internalErrors()).toEqual([]); // injected, not a sandbox bug
  });

  it('hits `times` requests, or every one until cleared with Infinity, first rule first', async ({ sandbox, api }) => {
    sandbox.faults.inject({ path: '/v1/numbers', status: 502, times: 2 });
    sandbox.faults.inject({ status: 504, times: Infinity });
    expect(sandbox.faults.list()).toEqual([
      { method: null, path: '/v1/numbers', status: 502, network: false, retryAfter: null, remaining: 2 },
      { method: null, path: null, status: 504, network: false, retryAfter: null, remaining: Infinity },
    ]);

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api.get('/v1/numbers')).status);
    statuses.push((await api.placeCall()).status);
    expect(statuses).toEqual([502, 502, 504, 504]);
    expect(sandbox.faults.list()).toHaveLength(1);

    sandbox.faults.clear();
    expect((await api.placeCall()).status).toBe(201);
  });

  it('answers 429 with the rate-limit code and a Retry-After of at least 1 second', async ({ sandbox }) => {
    sandbox.faults.inject({ status: 429 });
    const res = await client(sandbox).placeCall();
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('a network fault makes fetch reject, axios fail and node:https emit error, with nothing stored', async ({ sandbox }) => {
    sandbox.faults.inject({ network: true, times: 3 });
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ to: TO, from: FROM });

    await expect(fetch(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers, body })).rejects.toThrow(TypeError);
    await expect(axios.post(`${sandbox.baseUrl}/v1/calls`, body, { headers })).rejects.toThrow(/network error/i);
    const error = await new Promise<Error>((resolve, reject) => {
      const req = https.request(`${sandbox.baseUrl}/v1/calls`, { method: 'POST', headers }, () => reject(new Error('got a response')));
      req.on('error', resolve);
      req.end(body);
    });
    expect(error.message).toMatch(/network error/i);

    expect((await client(sandbox).get('/v1/calls')).body.data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
  });

  it('through handle(), a network fault is Response.error()', async ({ sandbox }) => {
    sandbox.faults.inject({ network: true });
    const res = await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`, { headers: { authorization: `Bearer ${KEY}` } }));
    expect(res.type).toBe('error');
    expect(res.status).toBe(0);
  });

  it('reset() forgets the rules', async ({ sandbox }) => {
    sandbox.faults.inject({ times: Infinity });
    sandbox.reset();
    expect(sandbox.faults.list()).toEqual([]);
    expect((await client(sandbox).placeCall()).status).toBe(201);
  });

  it.for<[object, RegExp, string]>([
    [{ status: 404 }, /`status` must be 429 or an integer from 500 to 599/, 'status'],
    [{ status: 503.5 }, /`status` must be/, 'status'],
    [{ method: 'post' }, /`method` must be one of "GET", "POST", "PUT", "DELETE", got "post": did you mean "POST"\?/, 'method'],
    [{ path: 'v1/calls' }, /`path` must be a path that starts with \//, 'path'],
    [{ path: '/v1/calls?limit=1' }, /hold(s)? no query/, 'path'],
    [{ network: true, status: 503 }, /a network fault has no status/, 'network'],
    [{ status: 500, retryAfter: 1 }, /`retryAfter` goes with status 503 or 429/, 'retryAfter'],
    [{ retryAfter: -1 }, /`retryAfter` must be an integer from 0/, 'retryAfter'],
    [{ status: 429, retryAfter: 0 }, /`retryAfter` of a 429 is at least 1 second/, 'retryAfter'],
    [{ times: 0 }, /`times` must be a whole number of 1 or more/, 'times'],
    [{ statuss: 503 }, /Unknown option `statuss`: did you mean `status`\?/, 'statuss'],
  ])('refuses the malformed rule %j with a SandboxError naming the field', ([rule, message, param], { sandbox }) => {
    expect(() => sandbox.faults.inject(rule as never)).toThrow(SandboxError);
    expect(() => sandbox.faults.inject(rule as never)).toThrow(message);
    expect(() => sandbox.faults.inject(rule as never)).toThrow(expect.objectContaining({ param }));
    expect(sandbox.faults.list()).toEqual([]);
  });

  it('refuses to inject into a closed sandbox', ({ sandbox }) => {
    sandbox.close();
    expect(() => sandbox.faults.inject({})).toThrow(/closed/);
  });
});
