import { readPackageJson } from './package-files.js';

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
 * Reads one JSON file of the package's `fixtures/` folder (shipped with the package, and
 * embedded in the single executable: core/package-files.ts). The result is frozen: copy before
 * changing it.
 *
 * @example
 * const inventory = readFixture('number-inventory.json');
 */
export function readFixture(name: string): unknown {
  let data = parsed.get(name);
  if (data === undefined) {
    data = deepFreeze(readPackageJson(`fixtures/${name}`));
    parsed.set(name, data);
  }
  return data;
}
