import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { typeErrors } from './typecheck.js';

/**
 * Every snippet of README.md and docs/ that a reader would paste is run by a test
 * (docs/contributing.md, "Snippets that run"). Here: every block is marked (a block of a known
 * language without a mark fails, naming the doc and line), and each JavaScript or TypeScript
 * block marked `run` or `vitest` runs, its `svc-sandbox` imports pointed at the sources. The
 * blocks of docs/api.md run in test/docs/api-examples.test.ts, the back-off recipes in
 * test/docs/clock-recipes.test.ts; Python, shell, Go and Ruby blocks in test/docs/snippets.mjs,
 * which CI runs against the built bin.
 */
interface Fence {
  doc: string;
  line: number;
  lang: string;
  kind: string | undefined;
  code: string;
  where: string;
}
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
// A plain-JavaScript module shared with snippets.mjs, by a path the type check does not follow.
const fences = (await import(`${here}/fences.mjs`)) as {
  allFences(root: string): Fence[];
  badMarks(fences: Fence[]): string[];
};
const all = fences.allFences(root);

const dir = join(here, '.doc-snippets', String(process.pid));
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRIES: Record<string, string> = {
  'svc-sandbox': 'src/index.ts',
  'svc-sandbox/vitest': 'src/vitest.ts',
  'svc-sandbox/jest': 'src/jest.ts',
};
/** The block with its package imports pointed at the sources (a path, which both vitest and tsc resolve). */
const rewrite = (code: string) =>
  code.replace(/(from\s+|import\s*\(\s*)(['"])(svc-sandbox(?:\/\w+)?)\2/g, (whole, lead: string, quote: string, name: string) =>
    ENTRIES[name] ? `${lead}${quote}${join(root, ENTRIES[name]).split('\\').join('/')}${quote}` : whole,
  );

const runnable = all.filter(
  (f) => (f.lang === 'ts' || f.lang === 'js') && (f.kind === 'run' || f.kind === 'vitest') && f.doc !== 'docs/api.md',
);
const files = new Map(
  runnable.map((f, i) => {
    const file = join(
      dir,
      `${String(i).padStart(2, '0')}-${f.doc.replace(/\W+/g, '-')}-${f.line}${f.kind === 'vitest' ? '.vitest' : ''}.${f.lang}`,
    );
    writeFileSync(file, `// ${f.where}\n${rewrite(f.code)}\n`);
    return [f, file] as const;
  }),
);

describe('the snippets of README.md and docs/', () => {
  test('every block of a known language is marked: run, vitest, pytest or no-run (docs/contributing.md)', () => {
    expect(fences.badMarks(all)).toEqual([]);
  });

  test('a block without a mark, or with a mark its language has not, is refused, naming the doc and line', () => {
    const fence = (lang: string, kind: string | undefined): Fence => ({
      doc: 'notes/x.md',
      line: 7,
      lang,
      kind,
      code: '',
      where: 'notes/x.md:7',
    });
    expect(fences.badMarks([fence('python', undefined), fence('go', 'vitest'), fence('json', undefined), fence('sh', 'no-run')])).toEqual([
      'notes/x.md:7: a ```python block without a mark: ```python run, or pytest, or no-run (docs/contributing.md)',
      'notes/x.md:7: ```go vitest: go blocks are marked run, no-run',
    ]);
  });

  test('the README and the docs have runnable blocks of every language the helpers serve', () => {
    const langs = new Set(all.filter((f) => f.kind === 'run' || f.kind === 'pytest' || f.kind === 'vitest').map((f) => f.lang));
    expect([...langs].sort()).toEqual(['go', 'python', 'ruby', 'sh', 'ts']);
  });

  test('every runnable TypeScript block type-checks as a user would compile it (tsconfig.json settings)', () => {
    const typescript = [...files].filter(([fence]) => fence.lang === 'ts').map(([, file]) => file);
    expect(typeErrors(root, typescript, dir)).toEqual([]);
  }, 120_000);

  for (const [fence, file] of files) {
    if (fence.kind === 'vitest')
      describe(`${fence.where} (vitest)`, async () => {
        await import(pathToFileURL(file).href);
      });
    else test(fence.where, () => import(pathToFileURL(file).href));
  }
});
