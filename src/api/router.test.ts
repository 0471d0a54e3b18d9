import { describe, expect, it } from 'vitest';
import { RouteTable } from './router.js';

describe('RouteTable', () => {
  const table = new RouteTable([
    { method: 'GET', path: '/v1/things/{id}' },
    { method: 'GET', path: '/v1/things/mine' },
    { method: 'GET', path: '/v1/things' },
    { method: 'POST', path: '/v1/things/mine' },
  ] as const);

  it('a path without parameters finds its row, however it is spelt, and the row of the first fitting one when an earlier row takes it', () => {
    expect(table.match('GET', '/v1/things').route.path).toBe('/v1/things');
    expect(table.match('HEAD', '/v1/things/').route.path).toBe('/v1/things');
    // The table is walked in order: the parameter row before it takes `mine`.
    expect(table.match('GET', '/v1/things/mine')).toEqual({ route: { method: 'GET', path: '/v1/things/{id}' }, params: { id: 'mine' } });
    expect(table.match('POST', '/v1/things/mine')).toEqual({ route: { method: 'POST', path: '/v1/things/mine' }, params: {} });
  });

  it('each match has params of its own', () => {
    const first = table.match('GET', '/v1/things');
    first.params.id = 'changed';
    expect(table.match('GET', '/v1/things').params).toEqual({});
  });
});
