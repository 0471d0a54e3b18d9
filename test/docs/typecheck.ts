import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The type errors of the snippet files under `dir`, compiled as a user would compile them
 * (tsconfig.json's settings), as `file:line message`. Only the snippets are checked: the
 * library's own files are type-checked by `npm test`'s tsc, and a snippet's diagnostics need only
 * the declarations it uses, not every body of src/.
 */
export function typeErrors(root: string, files: readonly string[], dir: string): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram([...files], { ...options, noEmit: true, allowImportingTsExtensions: true });
  const snippets = program.getSourceFiles().filter((file) => file.fileName.startsWith(dir.split('\\').join('/')));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...snippets.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
  return diagnostics.map((d) => {
    const where = d.file ? `${relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
