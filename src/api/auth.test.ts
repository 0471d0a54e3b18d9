import { describe, expect, it } from 'vitest';
import { bearerToken } from './auth.js';

describe('bearerToken', () => {
  const tokens: Array<[string, string | null]> = [
    ['Bearer SVC_TEST_a', 'SVC_TEST_a'],
    ['bearer SVC_TEST_a', 'SVC_TEST_a'],
    ['BEARER\tSVC_TEST_a', 'SVC_TEST_a'],
    ['Bearer   SVC_TEST_a  ', 'SVC_TEST_a'],
    ['Bearer SVC_TEST_a\t', 'SVC_TEST_a'],
    ['Bearer SVC_TEST_a b', null],
    ['Bearer', null],
    ['Bearer ', null],
    ['BearerSVC_TEST_a', null],
    ['Basic abc', null],
    ['Bearer\u00a0SVC_TEST_a', null],
    ['Bearer SVC_TEST_a\u00a0', null],
    ['Bearer SVC\u2003TEST', null],
    ['Bearer x\n', null],
    ['Bearer \nx', null],
    ['Bearerr x', null],
    [' Bearer x', null],
    ['Token x', null],
    ['Bearer SVC_TEST_é', 'SVC_TEST_é'],
    ['', null],
  ];
  it.each(tokens)('%j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
  it('null is no token', () => expect(bearerToken(null)).toBeNull());
});
