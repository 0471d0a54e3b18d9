import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

/**
 * The recipes of docs/clock-and-determinism.md ("Testing back-off") run as they are written.
 * A fence tagged `recipe=vitest` is a vitest test file (collected here, so vitest runs its
 * tests); `recipe=jest` is a Jest test file, run with vitest's `test`, `expect` and `afterEach`
 * and a `jest` whose fake timers are Jest's own (test/support/jest-timers.ts); `recipe=sinon` is a
 * module that asserts with node:assert and runs when imported. `svc-sandbox` is pointed at the
 * sources. Each is written to test/docs/.recipes/ (gitignored) for the length of the run.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const doc = readFileSync(join(root, 'docs/clock-and-determinism.md'), 'utf8');
const dir = join(here, '.recipes', String(process.pid));
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const recipes = [...doc.matchAll(/^```(ts|js) recipe=(vitest|jest|sinon)\n([\s\S]*?)^```$/gm)].map((m, i) => ({
  runner: m[2] as 'vitest' | 'jest' | 'sinon',
  line: doc.slice(0, m.index).split('\n').length,
  file: join(dir, `${i}-${m[2]}.${m[1]}`),
  code: m[3]!,
}));

const source = (path: string) => pathToFileURL(join(root, path)).href;
for (const recipe of recipes) {
  let code = recipe.code.replace(/from 'svc-sandbox'/g, `from '${source('src/index.ts')}'`);
  if (recipe.runner === 'jest') {
    code = code.replace(
      /^const \{ (\w+(?:, \w+)*) \} = require\('svc-sandbox'\);$/m,
      (_, names: string) => `import { ${names} } from '${source('src/index.ts')}';`,
    );
    code = `import { afterEach, beforeEach, expect, test } from 'vitest';\nimport { jestTimers } from '${source('test/support/jest-timers.ts')}';\nconst jest = jestTimers();\n${code}`;
  }
  writeFileSync(recipe.file, `// docs/clock-and-determinism.md:${recipe.line} (${recipe.runner})\n${code}`);
}

describe('docs/clock-and-determinism.md, "Testing back-off"', () => {
  test('has a recipe for each of vitest, Jest and @sinonjs/fake-timers, each a complete program', () => {
    expect(recipes.map((r) => r.runner)).toEqual(['vitest', 'jest', 'sinon']);
    for (const recipe of recipes) {
      expect(recipe.code, `the ${recipe.runner} recipe`).toMatch(/createSandbox\(\{ clock: 'global' \}\)/);
      expect(recipe.code, `the ${recipe.runner} recipe`).toMatch(/sandbox\.close\(\)/);
    }
    expect(recipes.find((r) => r.runner === 'jest')!.code).not.toMatch(/^import /m); // CommonJS, as Jest's default runs it
  });

  for (const recipe of recipes) {
    if (recipe.runner === 'sinon') test('the @sinonjs/fake-timers recipe', () => import(pathToFileURL(recipe.file).href));
    else
      describe(`the ${recipe.runner} recipe`, async () => {
        await import(pathToFileURL(recipe.file).href);
      });
  }
});
