import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../core/random.js';
import { Steps } from '../core/steps.js';
import { Accounts } from '../state/accounts.js';
import { Faults } from '../state/faults.js';
import { Pipeline, splitUrl } from './pipeline.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import type { RouteDeps } from './route-deps.js';

function pipelineWith(handle: () => never, record?: (error: unknown, requestId: string) => void) {
  const failures: Array<[unknown, string]> = [];
  const pipeline = new Pipeline({
    // The one row throws before it reads any part of a sandbox.
    routeDeps: {} as RouteDeps,
    router: new Router([
      {
        method: 'GET',
        path: '/v1/boom',
        resource: 'calls',
        summary: 'always throws',
        description: 'Always throws.',
        operationId: 'boom',
        response: { status: 200, description: 'never' },
        handle,
      },
    ]),
    accounts: new Accounts({ keys: new Map(), onlyConfiguredKeys: false, seed: 0 }, () => 0),
    limiter: new RateLimiter(),
    random: new SeededRandom(0),
    now: () => 0,
    origin: 'https://api.svc.test',
    basePath: '',
    faults: new Faults(),
    steps: new Steps((error) => failures.push([error, ''])),
    generation: () => 0,
    onInternalError: record ?? ((error, requestId) => failures.push([error, requestId])),
  });
  return { pipeline, failures };
}

describe('Pipeline', () => {
  it('turns an unexpected exception into a 500 internal_error JSON response and records it', async () => {
    const bug = new TypeError('cannot read x of undefined');
    const { pipeline, failures } = pipelineWith(() => {
      throw bug;
    });
    const res = await pipeline.handle(new Request('https://api.svc.test/v1/boom', { headers: { authorization: 'Bearer SVC_TEST_a' } }));
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error.code).toBe('internal_error');
    expect(body.error.message).toContain(res.headers.get('x-request-id'));
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(failures).toEqual([[bug, res.headers.get('x-request-id')]]);
  });
});

describe('splitUrl', () => {
  it('gives the pathname below the base path and the query string, as new URL() would', () => {
    const base = fc.constantFrom('', '/api', '/svc/sandbox');
    const url = fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withPort: true } });
    fc.assert(
      fc.property(url, base, (raw, basePath) => {
        const parsed = new URL(raw);
        // The pipeline serves only URLs under its base path, as interception routes them.
        const served = new Request(parsed.origin + basePath + parsed.pathname + parsed.search + parsed.hash).url;
        const expected = new URL(served);
        expect(splitUrl(served, basePath)).toEqual({
          path: expected.pathname.slice(basePath.length) || '/',
          query: expected.search.slice(1),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('handles a bare origin, an empty query and a fragment holding a question mark', () => {
    expect(splitUrl('https://api.svc.test/', '')).toEqual({ path: '/', query: '' });
    expect(splitUrl('https://api.svc.test/v1/calls?', '')).toEqual({ path: '/v1/calls', query: '' });
    expect(splitUrl('https://api.svc.test/v1/calls#a?b=1', '')).toEqual({ path: '/v1/calls', query: '' });
    expect(splitUrl('https://api.svc.test:8443/api/v1/calls?limit=2#x', '/api')).toEqual({ path: '/v1/calls', query: 'limit=2' });
  });
});

describe('the 500 path', () => {
  it('regression: the internal-error path could itself throw into the caller; a failing recorder still gives the 500', async () => {
    const { pipeline } = pipelineWith(
      () => {
        throw new Error('bug');
      },
      () => {
        throw new RangeError('Invalid time value');
      },
    );
    const res = await pipeline.handle(new Request('https://api.svc.test/v1/boom', { headers: { authorization: 'Bearer SVC_TEST_a' } }));
    expect(res.status).toBe(500);
    expect((await res.json()).error.code).toBe('internal_error');
  });
});
