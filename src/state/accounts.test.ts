import { describe, expect, it } from 'vitest';
import { Accounts, PRINCIPAL_CACHE } from './accounts.js';

describe('Accounts', () => {
  it('regression: every distinct key was cached until reset(); the cache keeps at most PRINCIPAL_CACHE principals', () => {
    const accounts = new Accounts({ keys: new Map(), onlyConfiguredKeys: false, seed: 0 }, () => 0);
    for (let i = 0; i < PRINCIPAL_CACHE * 3; i++) accounts.resolve(`SVC_TEST_k${i}`);
    const cache = accounts.cached;
    expect(cache.size).toBe(PRINCIPAL_CACHE);
    // The newest stay; a forgotten key still authenticates, as the same account.
    expect(cache.has(`SVC_TEST_k${PRINCIPAL_CACHE * 3 - 1}`)).toBe(true);
    expect(accounts.resolve('SVC_TEST_k0')).toMatchObject({ key: 'SVC_TEST_k0', account: 'SVC_TEST_k0' });
  });

  it('made keys work with onlyConfiguredKeys, revoked ones are refused, and both outlive reset()', () => {
    const accounts = new Accounts({ keys: new Map([['SVC_TEST_cfg', {}]]), onlyConfiguredKeys: true, seed: 0 }, () => 0);
    expect(accounts.resolve('SVC_TEST_other')).toBe('not_configured');
    const { key } = accounts.create();
    expect(key).toMatch(/^SVC_TEST_[0-9A-Za-z]{16}$/);
    expect(accounts.resolve(key)).toMatchObject({ key });
    accounts.revoke('SVC_TEST_cfg');
    accounts.reset();
    expect(accounts.resolve('SVC_TEST_cfg')).toBe('revoked');
    expect(accounts.resolve(key)).toMatchObject({ key });
    expect(accounts.create().key).not.toBe(key);
  });
});
