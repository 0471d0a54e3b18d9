// The fenced code blocks of the docs a user reads (README.md and docs/**/*.md), with what each
// is marked to be (docs/contributing.md, "Snippets that run"). Shared by test/docs/snippets.test.ts
// (JavaScript and TypeScript, under vitest) and test/docs/snippets.mjs (Python, shell, Go and
// Ruby, under `svc-sandbox exec`): one reading of the marks, so both agree on what must run.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The languages whose blocks must say what they are. An unmarked block of one of them is an
 * error: nothing a reader would paste is left unchecked by accident. Blocks of other languages
 * (json, yaml, text, output without a language) are only shown.
 */
export const KNOWN = ['ts', 'js', 'python', 'sh', 'go', 'ruby'];

/**
 * What a mark says, per language. `run`: a complete program, run as written (TypeScript and
 * JavaScript: an ES module with top-level await; Python, Ruby: a script; shell: `sh -e`; Go: a
 * `_test.go` file run by `go test`). `vitest`: a vitest test file. `pytest`: a pytest test file.
 * `recipe=…`: run by test/docs/clock-recipes.test.ts. `no-run`: deliberately not run (a fragment,
 * pseudo-code such as `MySdk(...)`, commands for the reader's own shell), and shown only.
 */
export const KINDS = {
  ts: ['run', 'vitest', 'no-run', 'recipe=vitest', 'recipe=sinon'],
  js: ['run', 'no-run', 'recipe=jest'],
  python: ['run', 'pytest', 'no-run'],
  sh: ['run', 'no-run'],
  go: ['run', 'no-run'],
  ruby: ['run', 'no-run'],
};

/** README.md and every markdown file under docs/, as paths from `root`. */
export function docFiles(root) {
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return ['README.md', ...walk('docs')].map((file) => relative(root, join(root, file)).split('\\').join('/'));
}

/**
 * Every fenced block of `doc`: `{ doc, line, lang, kind, code, where }`, `line` the opening
 * fence's (1-based), `kind` the mark (`undefined` when there is none), `where` `doc:line`.
 */
export function fencesOf(root, doc) {
  const out = [];
  let open = null;
  readFileSync(join(root, doc), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const fence = /^(\s*)```(.*)$/.exec(text);
      if (!open && fence) {
        const [lang = '', kind] = fence[2].trim().split(/\s+/);
        open = { doc, line: i + 1, lang, kind, indent: fence[1].length, lines: [], where: `${doc}:${i + 1}` };
      } else if (open && fence && fence[2].trim() === '') {
        out.push({ ...open, code: open.lines.map((line) => line.slice(Math.min(open.indent, line.search(/\S|$/)))).join('\n') });
        open = null;
      } else if (open) open.lines.push(text);
    });
  if (open) throw new Error(`${open.where}: a fence is never closed`);
  return out;
}

/** Each block of the docs in a language of {@link KNOWN} whose mark is missing or not one its language has: `doc:line: why`. */
export function badMarks(fences) {
  return fences
    .filter((f) => KNOWN.includes(f.lang) && !KINDS[f.lang].includes(f.kind))
    .map((f) =>
      f.kind === undefined
        ? `${f.where}: a \`\`\`${f.lang} block without a mark: \`\`\`${f.lang} ${KINDS[f.lang].filter((k) => !k.startsWith('recipe=')).join(', or ')} (docs/contributing.md)`
        : `${f.where}: \`\`\`${f.lang} ${f.kind}: ${f.lang} blocks are marked ${KINDS[f.lang].join(', ')}`,
    );
}

/** Every block of every doc. */
export function allFences(root) {
  return docFiles(root).flatMap((doc) => fencesOf(root, doc));
}
