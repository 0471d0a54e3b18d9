import { afterAll, expect } from 'vitest';

/**
 * A test file leaves the process as it found it: every sandbox it listened with is closed (the
 * last `close()` restores `fetch`, `http.request` and XMLHttpRequest) and no global stays
 * stubbed. A worker runs several files in one process (`isolate: false`, vitest.config.ts), so
 * a sandbox left listening would answer, or refuse, the next file's requests.
 */
const fetchBefore = globalThis.fetch;

afterAll(() => {
  expect(
    globalThis.fetch === fetchBefore,
    'globalThis.fetch is still patched after this file: close every sandbox it listened with (and unstub what it stubbed)',
  ).toBe(true);
});
