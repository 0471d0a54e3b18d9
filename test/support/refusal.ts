import type { SandboxError } from '../../src/index.js';

/** What `fn` throws, for a test that asserts on the refusal's parts; a failure when it throws nothing. */
export function refusal(fn: () => unknown): SandboxError {
  try {
    fn();
  } catch (error) {
    return error as SandboxError;
  }
  throw new Error('expected a refusal');
}
