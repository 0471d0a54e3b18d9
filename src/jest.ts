/**
 * `svc-sandbox/jest`: the sandbox's matchers for Jest's `expect.extend`, the same
 * `toHaveEmitted` and `toHaveReceived` as `svc-sandbox/vitest` gives vitest, with the same
 * messages. It loads nothing of the sandbox (the matchers read the sandbox you pass to
 * `expect`), works from CommonJS (Jest's default) and ESM mode, and adds the matchers to the
 * types of Jest's global `expect` (@types/jest); with `@jest/globals`, one line adds them there
 * too (docs/test-runners.md, "Jest matchers").
 *
 * @example
 * // jest.setup.js, listed in Jest's `setupFilesAfterEnv`
 * const { toHaveEmitted, toHaveReceived } = require('svc-sandbox/jest');
 * expect.extend({ toHaveEmitted, toHaveReceived });
 *
 * // a test
 * expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
 * expect(sandbox).toHaveReceived({ method: 'POST', path: '/v1/calls', status: 201 });
 */
import type { SandboxMatchers } from './matchers.js';

export { toHaveEmitted, toHaveReceived } from './matchers.js';
export type { EventMatch, MatcherContext, MatcherResult, SandboxMatchers } from './matchers.js';

declare global {
  // Jest's global `expect`, as @types/jest declares it; a namespace of our own when it is absent.
  namespace jest {
    // biome-ignore lint/complexity/noBannedTypes: @types/jest declares `Matchers<R, T = {}>`; an augmentation must repeat it (TS2428).
    interface Matchers<R, T = {}> extends SandboxMatchers<R> {}
  }
}
