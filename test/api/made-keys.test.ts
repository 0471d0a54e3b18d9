import { describe, expect, it } from '../fixture.js';
import { client } from '../helpers.js';

/**
 * `sandbox.keys.create({ plan, scopes, account })`: a key made at run time behaves as one
 * configured in `options.keys` (the server makes its sessions' keys so).
 */
describe('keys made with a plan, scopes or an account', () => {
  it('a scoped key is 403 outside its scopes; the answer and the list repeat what it was made with', async ({ sandbox }) => {
    const made = sandbox.keys.create({ scopes: ['calls:read'] });
    expect(made).toEqual({ key: expect.stringMatching(/^SVC_TEST_/), createdAt: '2026-01-01T00:00:00.000Z', scopes: ['calls:read'] });
    const reader = client(sandbox, made.key);
    expect((await reader.get('/v1/calls')).status).toBe(200);
    const refused = await reader.placeCall();
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    made.scopes!.push('*'); // a copy: the key keeps its scopes
    expect(sandbox.keys.list()).toEqual([{ key: made.key, createdAt: '2026-01-01T00:00:00.000Z', scopes: ['calls:read'] }]);
  });

  it('an enterprise key has no cap, and keeps its plan across reset(); made again without options it is standard', async ({ sandbox }) => {
    const { key } = sandbox.keys.create({ key: 'SVC_TEST_big', plan: 'enterprise' });
    const big = client(sandbox, key);
    sandbox.reset();
    for (let i = 0; i < 150; i++) expect((await big.get('/v1/calls')).status).toBe(200);
    sandbox.keys.revoke(key);
    sandbox.keys.create({ key });
    await sandbox.advance('1s');
    const answers: number[] = [];
    for (let i = 0; i < 101; i++) answers.push((await big.get('/v1/calls')).status);
    expect(answers.at(-1)).toBe(429);
  });

  it("a key made with an account shares that account's resources", async ({ sandbox, api }) => {
    const placed = await api.placeCall(); // as SVC_TEST_alice, her own account
    const { key } = sandbox.keys.create({ account: 'SVC_TEST_alice' });
    expect((await client(sandbox, key).get(`/v1/calls/${placed.body.id}`)).status).toBe(200);
  });

  it("refuses a bad scope or plan with the library's wording", ({ sandbox }) => {
    expect(() => sandbox.keys.create({ scopes: ['calls:delete' as never] })).toThrow(/^keys\.create: `scopes\[0\]`/);
    expect(() => sandbox.keys.create({ plan: 'gold' as never })).toThrow(
      expect.objectContaining({
        code: 'invalid_parameter',
        param: 'plan',
        message: expect.stringMatching(/^keys\.create: `plan` must be one of/),
      }),
    );
  });
});
