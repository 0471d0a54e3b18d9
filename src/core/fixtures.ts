import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The parsed fixture files, read once per process. Fixtures are immutable data shipped with
 * the package (deep-frozen here), not state: sharing them between sandboxes cannot leak
 * anything from one to another, and reading the disk at every `createSandbox()` was the
 * larger part of its cost.
 */
const parsed = new Map<string, unknown>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Reads one JSON file of the package's `fixtures/` folder (shipped with the package; the
 * path is the same from `src/core/` and from `dist/core/`). The path is built with node:path,
 * not the global `URL`, which a DOM test environment replaces (happy-dom's resolves `../..`
 * against a file URL wrongly). The result is frozen: copy before changing it.
 *
 * @example
 * const inventory = readFixture('number-inventory.json');
 */
export function readFixture(name: string): unknown {
  let data = parsed.get(name);
  if (data === undefined) {
    const here = dirname(fileURLToPath(import.meta.url));
    data = deepFreeze(JSON.parse(readFileSync(join(here, '..', '..', 'fixtures', name), 'utf8')) as unknown);
    parsed.set(name, data);
  }
  return data;
}
