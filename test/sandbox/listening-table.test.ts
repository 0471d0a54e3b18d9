import { describe, expect, it } from 'vitest';
import * as first from '../../src/intercept/interceptor.js';

/**
 * The listening table is the process's, not a module's (docs/interception.md, "One table per
 * process"): two copies of the interception module (as the ES and the CommonJS build are, in a
 * process that loads both) share it. The copies here are two instances of the source module;
 * test/sandbox/dual-build.test.ts does the same with the two built files (an end-to-end test).
 */
async function secondCopy(): Promise<typeof first> {
  // @ts-expect-error: a query makes vitest load a second instance of the module, as a second build is.
  return (await import('../../src/intercept/interceptor.js?second-copy')) as typeof first;
}

const answering = (name: string) => async () => Response.json({ answeredBy: name });

describe('one listening table per process', () => {
  it('a second copy of the module refuses a base URL the first listens on, and each routes to the other', async () => {
    const second = await secondCopy();
    expect(second.intercept).not.toBe(first.intercept);
    const original = globalThis.fetch;
    const stopA = first.intercept('https://a.svc.test', '', answering('a'));
    const stopB = (() => {
      try {
        expect(() => second.intercept('https://a.svc.test', '', answering('impostor'))).toThrow(
          expect.objectContaining({
            code: 'conflict',
            param: 'baseUrl',
            message: expect.stringMatching(/already listens on https:\/\/a\.svc\.test/),
          }),
        );
        return second.intercept('https://b.svc.test', '', answering('b'));
      } catch (error) {
        stopA();
        throw error;
      }
    })();
    try {
      expect(await (await fetch('https://a.svc.test/v1/calls')).json()).toEqual({ answeredBy: 'a' });
      expect(await (await fetch('https://b.svc.test/v1/calls')).json()).toEqual({ answeredBy: 'b' });
      stopA();
      // The interceptors the first copy applied serve the second copy's base URL until it stops too.
      expect(await (await fetch('https://b.svc.test/v1/calls')).json()).toEqual({ answeredBy: 'b' });
      expect(globalThis.fetch).not.toBe(original);
    } finally {
      stopA();
      stopB();
    }
    expect(globalThis.fetch).toBe(original);
    // Free again, for either copy.
    second.intercept('https://a.svc.test', '', answering('a again'))();
  });
});
