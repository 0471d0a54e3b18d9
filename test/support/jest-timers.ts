import { ModernFakeTimers } from '@jest/fake-timers';

/**
 * Jest's modern fake timers as `jest.useFakeTimers()` builds them (jest-environment-node makes a
 * `ModernFakeTimers` over the test's global), with the members a test calls on `jest`. Jest fakes
 * `process.nextTick` and `queueMicrotask` too, but on its test context's copy of `process`: the
 * process's own, which Node's streams and this test runner use, stays real. Here the global is the
 * process's own, so those two are left real, as they are for everything outside a Jest context.
 */
export function jestTimers() {
  type ProjectConfig = ConstructorParameters<typeof ModernFakeTimers>[0]['config'];
  const config = { fakeTimers: { doNotFake: ['nextTick', 'queueMicrotask'] } } as unknown as ProjectConfig;
  const timers = new ModernFakeTimers({ global: globalThis, config });
  return {
    useFakeTimers: (options?: { now?: Date | number }) => timers.useFakeTimers(options),
    useRealTimers: () => timers.useRealTimers(),
    advanceTimersByTimeAsync: (ms: number) => timers.advanceTimersByTimeAsync(ms),
  };
}
