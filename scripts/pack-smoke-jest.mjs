// `svc-sandbox/jest` as a user installs it: its matchers under Jest in CommonJS (the default)
// and ESM mode, and its types under Jest 30's (@types/jest for the global `expect`, and the
// documented augmentation for `@jest/globals`), tsc with skipLibCheck off. For
// scripts/pack-smoke.mjs, once the tarball is installed beside jest@30 and @types/jest@30:
//
//   import { jestMatchersSections } from './pack-smoke-jest.mjs';
//   await jestMatchersSections({ section, write, run, app, jestPassed });
//
// Each section is a project of its own under `app`, so Jest's default configuration applies.

const SCENARIO = `
  const sandbox = createSandbox({ seed: 1 });
  try {
    const res = await sandbox.fetch('/v1/calls', {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_jest', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+15005550002', from: '+14155550100' }),
    });
    expect(res.status).toBe(201);
    await sandbox.advanceUntil('call.completed');
    expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy', id: expect.any(String) } });
    expect(sandbox).not.toHaveEmitted('call.answered');
    expect(sandbox).toHaveReceived({ method: 'POST', path: '/v1/calls', status: 201 });
    expect(() => expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'no_answer' } })).toThrow(
      /expected the sandbox to have emitted call.completed matching[\\s\\S]*it emitted 1 call.completed event/,
    );
    expect(() => expect(sandbox).toHaveReceived({ status: 429 })).toThrow(/it received \\(the last 1\\):\\nPOST \\/v1\\/calls 201/);
    expect(() => expect({}).toHaveEmitted('call.started')).toThrow(/expected a sandbox \\(from createSandbox\\), got \\{\\}/);
  } finally {
    sandbox.close();
  }
`;

const CJS_TEST = `
const { createSandbox } = require('svc-sandbox');
const { toHaveEmitted, toHaveReceived } = require('svc-sandbox/jest');

expect.extend({ toHaveEmitted, toHaveReceived });

test('svc-sandbox/jest matchers, required', async () => {
  expect(require.resolve('svc-sandbox/jest')).toMatch(/dist\\/cjs\\/jest\\.cjs$/);
${SCENARIO}
});
`;

const ESM_TEST = `
import { expect, test } from '@jest/globals';
import { createSandbox } from 'svc-sandbox';
import { toHaveEmitted, toHaveReceived } from 'svc-sandbox/jest';

expect.extend({ toHaveEmitted, toHaveReceived });

test('svc-sandbox/jest matchers, imported', async () => {
${SCENARIO}
});
`;

/** @types/jest: importing svc-sandbox/jest types the global `expect`. */
const GLOBAL_TYPES = `
import { createSandbox } from 'svc-sandbox';
import { toHaveEmitted, toHaveReceived } from 'svc-sandbox/jest';

expect.extend({ toHaveEmitted, toHaveReceived });
const sandbox = createSandbox();
expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy', duration: expect.any(Number) } });
expect(sandbox).not.toHaveReceived({ method: 'POST', status: 429 });
// @ts-expect-error: not an event type
expect(sandbox).toHaveEmitted('call.finished');
// @ts-expect-error: not a disposition
expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'maybe' } });
`;

/** @jest/globals: the one-line augmentation docs/test-runners.md gives. */
const JEST_GLOBALS_TYPES = `
import { expect } from '@jest/globals';
import { createSandbox } from 'svc-sandbox';
import { type SandboxMatchers, toHaveEmitted, toHaveReceived } from 'svc-sandbox/jest';

declare module 'expect' {
  interface Matchers<R> extends SandboxMatchers<R> {}
}

expect.extend({ toHaveEmitted, toHaveReceived });
expect(createSandbox()).toHaveEmitted('message.delivered');
// @ts-expect-error: not an event type
expect(createSandbox()).toHaveEmitted('call.finished');
`;

export async function jestMatchersSections({ section, write, run, app, jestPassed }) {
  const jest = `${app}/node_modules/jest/bin/jest.js`;
  await section('svc-sandbox/jest under Jest, default config (CommonJS)', () => {
    write('jest-matchers-cjs/package.json', JSON.stringify({ name: 'jest-matchers-cjs', private: true }));
    write('jest-matchers-cjs/matchers.test.js', CJS_TEST);
    jestPassed(run(process.execPath, [jest, '--ci'], { cwd: `${app}/jest-matchers-cjs`, both: true }), 1);
    return '1 test';
  });
  await section('svc-sandbox/jest under Jest, ESM mode', () => {
    write('jest-matchers-esm/package.json', JSON.stringify({ name: 'jest-matchers-esm', private: true }));
    write('jest-matchers-esm/matchers.test.mjs', ESM_TEST);
    const output = run(process.execPath, ['--experimental-vm-modules', '--no-warnings', jest, '--ci'], {
      cwd: `${app}/jest-matchers-esm`,
      both: true,
    });
    jestPassed(output, 1);
    return '1 test';
  });
  await section('svc-sandbox/jest types: @types/jest and @jest/globals, skipLibCheck off', () => {
    write('jest-matchers-types/global-expect.ts', GLOBAL_TYPES);
    write('jest-matchers-types/jest-globals.ts', JEST_GLOBALS_TYPES);
    write(
      'jest-matchers-types/tsconfig.json',
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          skipLibCheck: false,
          types: ['jest', 'node'],
        },
        files: ['global-expect.ts', 'jest-globals.ts'],
      }),
    );
    run(process.execPath, [`${app}/node_modules/typescript/bin/tsc`, '-p', 'tsconfig.json'], { cwd: `${app}/jest-matchers-types` });
    return 'tsc: 2 files';
  });
}
