import { describe, expect, it } from 'vitest';
import { bearerToken } from './auth.js';

/** The hand-written reader gives what the regular expression it replaced gave, on every form. */
const REFERENCE = /^bearer[ \t]+(\S+)[ \t]*$/i;

describe('bearerToken', () => {
  const headers = [
    'Bearer SVC_TEST_a',
    'bearer SVC_TEST_a',
    'BEARER\tSVC_TEST_a',
    'Bearer   SVC_TEST_a  ',
    'Bearer SVC_TEST_a\t',
    'Bearer SVC_TEST_a b',
    'Bearer',
    'Bearer ',
    'BearerSVC_TEST_a',
    'Basic abc',
    'Bearer\u00a0SVC_TEST_a',
    'Bearer SVC_TEST_a\u00a0',
    'Bearer SVC\u2003TEST',
    'Bearer x\n',
    'Bearer \nx',
    'Bearerr x',
    ' Bearer x',
    'Token x',
    'Bearer SVC_TEST_é',
    '',
  ];
  it.each(headers)('%j', (header) => {
    expect(bearerToken(header)).toBe(REFERENCE.exec(header)?.[1] ?? null);
  });
  it('null is no token', () => expect(bearerToken(null)).toBeNull());
});
