import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../options.js';
import { SeededRandom } from '../sim/random.js';
import { Auth } from './auth.js';
import { Pipeline } from './pipeline.js';
import { RateLimiter } from './rate-limit.js';
import { Router } from './router.js';

function pipelineWith(handle: () => never) {
  const failures: Array<[unknown, string]> = [];
  const pipeline = new Pipeline({
    router: new Router([{ method: 'GET', path: '/v1/boom', resource: 'calls', summary: 'always throws', handle }]),
    auth: new Auth(resolveOptions()),
    limiter: new RateLimiter(),
    random: new SeededRandom(0),
    now: () => 0,
    basePath: '',
    onInternalError: (error, requestId) => failures.push([error, requestId]),
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
