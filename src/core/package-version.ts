import { readPackageJson } from './package-files.js';

let version: string | undefined;

/**
 * This package's version, from its package.json (read by core/package-files.ts, which the
 * single executable answers from its embedded copy). A snapshot names it: the
 * simulation of another version may answer the same inputs differently (docs/snapshots.md).
 *
 * @example
 * packageVersion(); // '0.1.0'
 */
export function packageVersion(): string {
  if (version === undefined) {
    version = (readPackageJson('package.json') as { version: string }).version;
  }
  return version;
}
