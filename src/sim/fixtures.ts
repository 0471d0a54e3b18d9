import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads one JSON file of the package's `fixtures/` folder (shipped with the package; the
 * path is the same from `src/sim/` and from `dist/sim/`). Read once per sandbox, at
 * creation: the data is small and immutable, and no module-level cache is kept. The path
 * is built with node:path, not the global `URL`, which a DOM test environment replaces
 * (happy-dom's resolves `../..` against a file URL wrongly).
 *
 * @example
 * const inventory = readFixture('number-inventory.json');
 */
export function readFixture(name: string): unknown {
  const here = dirname(fileURLToPath(import.meta.url));
  return JSON.parse(readFileSync(join(here, '..', '..', 'fixtures', name), 'utf8'));
}
