import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * The package ships what its docs link: every relative link of a markdown file the package ships
 * (README.md, docs/, CHANGELOG.md, the helpers' and examples' READMEs) leads to a file or folder
 * that is in the package too, as `npm pack --dry-run` lists it. A reader of
 * node_modules/svc-sandbox/docs follows them as a reader of the repository does.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The package's files, as npm would pack them (no scripts: nothing is built or changed). */
function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
}

/** Markdown link targets outside code: `](webhooks.md)`, `](../examples/go/)`, not `](https://…)` or `](#x)`. */
const LINK = /\]\((?!https?:|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)/g;

it('every relative link in a shipped markdown file resolves to a file the package ships', () => {
  const files = packedFiles();
  const shipped = new Set(files);
  const folders = new Set(
    files.flatMap((file) =>
      file
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const docs = files.filter((file) => file.endsWith('.md'));
  expect(docs).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/README.md', 'docs/server.md']));
  const broken: string[] = [];
  for (const doc of docs) {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, link] of text.matchAll(LINK)) {
      const target = posix.normalize(posix.join(posix.dirname(doc), decodeURI(link!))).replace(/\/$/, '');
      if (!shipped.has(target) && !folders.has(target)) broken.push(`${doc}: ${link}`);
    }
  }
  expect(broken).toEqual([]);
});
