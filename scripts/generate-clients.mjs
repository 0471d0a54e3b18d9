#!/usr/bin/env node
/**
 * The control layer of the Python, Go and Ruby helpers, derived from the contract.
 *
 * The server's OpenAPI document (`GET /__sandbox/openapi.json`, built from the control route
 * table) is the one definition of every control operation. This script reads it from a real
 * server (the built package, `npm run build` first), writes the operations it describes to
 * `clients/control-operations.json`, and hands that list to each language's emitter
 * (`scripts/clients/<language>.mjs`, `emit(operations) → [{ file, text }]`), whose files are
 * committed beside the hand-written helper code.
 *
 *   node scripts/generate-clients.mjs          # write every generated file
 *   node scripts/generate-clients.mjs --check  # exit 1 naming each file a regeneration would change
 *
 * CI runs `--check`, so a control row added, removed or changed without regenerating fails.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LANGUAGES = ['python', 'go', 'ruby'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The control operations of a served document, in path order: what every emitter reads. */
export function controlOperations(document) {
  const operations = [];
  for (const [fullPath, item] of Object.entries(document.paths)) {
    if (!fullPath.startsWith('/__sandbox/')) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const success = Object.keys(operation.responses ?? {}).find((status) => /^2\d\d$/.test(status));
      const media = success ? Object.keys(operation.responses[success].content ?? {})[0] : undefined;
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path: fullPath.slice('/__sandbox'.length),
        summary: operation.summary ?? '',
        pathParams: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        query: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: operation.requestBody !== undefined,
        status: success ? Number(success) : undefined,
        contentType: media,
      });
    }
  }
  return operations.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

async function servedDocument() {
  const built = join(root, 'dist/index.js');
  if (!existsSync(built)) throw new Error('generate-clients: dist/index.js is missing; run `npm run build` first.');
  const { startServer } = await import(pathToFileURL(built).href);
  const server = await startServer({ port: 0 });
  try {
    const answer = await fetch(`${server.url}/__sandbox/openapi.json`);
    if (!answer.ok) throw new Error(`generate-clients: GET /__sandbox/openapi.json answered ${answer.status}`);
    return await answer.json();
  } finally {
    await server.close();
  }
}

async function main() {
  const check = process.argv.includes('--check');
  const operations = controlOperations(await servedDocument());
  const outputs = [{ file: 'clients/control-operations.json', text: `${JSON.stringify(operations, null, 2)}\n` }];
  for (const language of LANGUAGES) {
    const emitter = join(root, 'scripts/clients', `${language}.mjs`);
    if (!existsSync(emitter)) continue;
    const { emit } = await import(pathToFileURL(emitter).href);
    outputs.push(...emit(operations));
  }
  const stale = [];
  for (const { file, text } of outputs) {
    const path = join(root, file);
    const now = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (now === text) continue;
    if (check) stale.push(relative(root, path));
    else writeFileSync(path, text);
  }
  if (stale.length) {
    console.error(`generate-clients: these files differ from what the control document generates: ${stale.join(', ')}.`);
    console.error('Run `npm run build && node scripts/generate-clients.mjs` and commit the result.');
    process.exit(1);
  }
  console.log(check ? `generate-clients: ${outputs.length} files current` : `generate-clients: wrote ${outputs.length} files`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
