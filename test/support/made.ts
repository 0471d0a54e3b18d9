import { afterEach } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/** A `createSandbox` for a test file that makes several sandboxes a test: each is closed after its test. */
export function closedAfterEach(): (options?: Parameters<typeof createSandbox>[0]) => Sandbox {
  const open: Sandbox[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  return (options) => {
    const sandbox = createSandbox(options);
    open.push(sandbox);
    return sandbox;
  };
}
