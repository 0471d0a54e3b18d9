import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands on its own: every file path that the sources, the
 * docs and the README name exists in the repository, no source cites a document outside it
 * or an issue number, and every file of src/ is covered by a layer rule.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDERS = ['src', 'docs', 'test', 'examples', 'bench', 'scripts', 'console', 'fixtures'];
const SKIP = new Set(['node_modules', 'dist', 'generated', 'scratch', '.git']);

function files(dir: string, ext: RegExp): string[] {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? files(path, ext) : ext.test(name) ? [path] : [];
  });
}

/** Paths such as `docs/webhooks.md` or `test/server/security.test.ts` named in a text (not inside a URL). */
const NAMED = new RegExp(
  `(?<![\\w./:-])((?:${FOLDERS.join('|')})/[\\w./-]*\\.(?:md|ts|mjs|cjs|js|json|py|go|rb|sh|html|css))(?![\\w/-])`,
  'g',
);
/** Markdown link targets: `](webhooks.md)`, `](../README.md#x)`. */
const LINK = /\]\((?!https?:|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)/g;

const sources = [...FOLDERS.flatMap((dir) => files(dir, /\.(ts|mjs|js|md|py|go|rb|sh)$/)), 'README.md', 'CHANGELOG.md'];

describe('references', () => {
  it('every repository path named in src/, docs/, tests, examples and the README exists', () => {
    const missing: string[] = [];
    for (const file of sources) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, path] of text.matchAll(NAMED)) {
        const target = path!.replace(/[.,:;]+$/, '');
        if (target.includes('*') || target.includes('...')) continue;
        // From the repository's root, or (an example's own README) from the file's folder.
        if (!existsSync(join(ROOT, target)) && !existsSync(join(ROOT, dirname(file), target))) missing.push(`${file}: ${target}`);
      }
      if (!file.endsWith('.md')) continue;
      for (const [, link] of text.matchAll(LINK)) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), decodeURI(link!)));
        if (!existsSync(join(ROOT, target))) missing.push(`${file}: link ${link}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('nothing in src/ or docs/ cites a document outside the repository', () => {
    const outside = [...files('src', /\.ts$/), ...files('docs', /\.md$/), 'README.md']
      .filter((file) => /CONTRACT(\.md)? ?§|\.\.\/shared\//.test(readFileSync(join(ROOT, file), 'utf8')))
      .sort();
    expect(outside).toEqual([]);
  });

  it('no test or source cites an issue number: a reader of the repository cannot follow one, so a test says in words what it pins', () => {
    const citing = [...files('src', /\.ts$/), ...files('test', /\.(ts|mjs|sh)$/)]
      .filter((file) => /\bissues? \d/i.test(readFileSync(join(ROOT, file), 'utf8')))
      .sort();
    expect(citing).toEqual([]);
  });

  it('every file of src/ has a layer rule (.dependency-cruiser.cjs): a new folder or top-level file must say what it may import', () => {
    const { forbidden } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
      forbidden: Array<{ name: string; from: { path: string; pathNot?: string | string[] } }>;
    };
    // The rules every file meets (cycles, tests) say nothing of its layer.
    const layerRules = forbidden.filter((rule) => rule.from.path !== '^src/');
    const covers = (rule: (typeof layerRules)[number], file: string) =>
      new RegExp(rule.from.path).test(file) && ![rule.from.pathNot ?? []].flat().some((not) => new RegExp(not).test(file));
    const files = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
      .map((name) => `src/${name.split('\\').join('/')}`)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => !layerRules.some((rule) => covers(rule, file)))).toEqual([]);
  });
});
