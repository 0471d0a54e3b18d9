import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/**
 * This package's version, from its package.json (two folders up from `src/core/`, `dist/core/`
 * and `dist/cjs/` alike, as core/fixtures.ts reads fixtures/). A snapshot names it: the
 * simulation of another version may answer the same inputs differently (docs/snapshots.md).
 *
 * @example
 * packageVersion(); // '0.1.0'
 */
export function packageVersion(): string {
  if (version === undefined) {
    const here = dirname(fileURLToPath(import.meta.url));
    version = (JSON.parse(readFileSync(join(here, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  }
  return version;
}
