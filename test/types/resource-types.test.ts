import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as events from '../../src/state/events.js';
import * as resources from '../../src/state/resources.js';
import { renderResourceTypes } from '../../scripts/resource-types.mjs';

/**
 * The public resource types carry their schemas' descriptions as JSDoc (src/state/resource-types.ts,
 * generated from src/state/resources.ts): an editor's hover on `Call` or `call.duration` explains
 * the data. Regenerate the file with `npm run build && node scripts/resource-types.mjs` when this fails.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('src/state/resource-types.ts', () => {
  it('is what the schemas say (regenerate: npm run build && node scripts/resource-types.mjs)', () => {
    expect(readFileSync(`${ROOT}src/state/resource-types.ts`, 'utf8')).toBe(renderResourceTypes({ ...resources, ...events }));
  });

  it('an editor hovering `Call` and `call.duration` through the language service sees their documentation', () => {
    // A file the language service alone sees, beside this one.
    const file = join(ROOT, 'test', 'types', 'hover-probe.ts');
    const source = "import type { Call } from '../../src/index.js';\ndeclare const call: Call;\ncall.duration;\n";
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
    };
    const host: ts.LanguageServiceHost = {
      getScriptFileNames: () => [file],
      getScriptVersion: () => '1',
      getScriptSnapshot: (name) => {
        const text = name === file ? source : ts.sys.readFile(name);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => ROOT,
      getCompilationSettings: () => options,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: (name) => name === file || ts.sys.fileExists(name),
      readFile: (name) => (name === file ? source : ts.sys.readFile(name)),
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    const service = ts.createLanguageService(host, ts.createDocumentRegistry());
    const hover = (text: string, nth = 0) => {
      let at = -1;
      for (let i = 0; i <= nth; i++) at = source.indexOf(text, at + 1);
      const info = service.getQuickInfoAtPosition(file, at);
      return ts.displayPartsToString(info?.documentation ?? []);
    };
    expect(hover('Call', 1)).toMatch(/voice call/i);
    expect(hover('duration')).toMatch(/seconds from answer to end/i);
  });
});
