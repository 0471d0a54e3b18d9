import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The part of `node:sea` this module uses. */
interface SeaAssets {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

/** The embedded assets when this process is the single executable (docs/binary.md), else null; looked up once. */
let assets: SeaAssets | null | undefined;

function embedded(): SeaAssets | null {
  if (assets === undefined) {
    // `process.getBuiltinModule` rather than an import: `node:sea` is missing before Node 20.12,
    // and an ES import of it (or a bundler's rewrite of one) would break the library's own import
    // there and in test runners that replace `require`. Node before 20.16, or a runner's copy of
    // `process` without the method, cannot be the executable (which embeds the Node that built it).
    const sea = process.getBuiltinModule?.('node:sea') as SeaAssets | undefined;
    assets = sea?.isSea() ? sea : null;
  }
  return assets;
}

/**
 * Reads a file shipped with the package, named by its path from the package's root
 * (`fixtures/number-inventory.json`, `console/index.html`, `package.json`). Inside the single
 * executable (`npm run build:binary`, docs/binary.md) the file is one of its embedded assets,
 * since no package folder stands beside it; everywhere else it is read from the folder two levels
 * up from this module, which is the package's root from `src/core/`, `dist/core/` and `dist/cjs/`
 * alike. The path is built with node:path, not the global `URL`, which a DOM test environment
 * replaces. Throws when the file is missing.
 *
 * @example
 * const html = readPackageFile('console/index.html');
 */
export function readPackageFile(path: string): Buffer {
  const sea = embedded();
  if (sea) return Buffer.from(sea.getAsset(path));
  return readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', path));
}

/**
 * A JSON file shipped with the package (see {@link readPackageFile}), parsed.
 *
 * @example
 * const { version } = readPackageJson('package.json') as { version: string };
 */
export function readPackageJson(path: string): unknown {
  return JSON.parse(readPackageFile(path).toString('utf8'));
}
