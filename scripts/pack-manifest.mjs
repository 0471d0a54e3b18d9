// The packed package.json without `prepare` (docs/contributing.md, "Packing: no prepare in the
// tarball"). npm packs package.json as it is on disk, and npm 11 warns on every install of a
// tarball whose manifest has an install-time script ("1 package has install scripts not yet
// covered by allowScripts: svc-sandbox@0.1.0 (prepare: node scripts/ensure-built.mjs prepare)"),
// though the script's file is not even shipped. The repository keeps `prepare`: it builds dist/
// after `npm install` here and when a project installs the package from git (npm runs only
// `prepare` there). So `prepack` runs `strip`, which writes package.json without it, and
// `postpack` runs `restore`, which puts the file back byte for byte with its modification time
// (scripts/ensure-built.mjs reads that time: a pack must not make dist/ look stale). The original
// waits in node_modules/.cache; a pack that died before `postpack` is undone by the next `strip`.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = join(root, 'package.json');
/** The original file and its times, while a pack runs. */
const saved = join(root, 'node_modules/.cache/svc-sandbox/package.json.before-pack.json');
/** The scripts npm runs when a package is installed: none may be in the packed manifest. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

/** Writes `text` to package.json in one step (a reader sees the old file or the new one), with the given times. */
function replace(text, { atimeMs, mtimeMs }) {
  const temporary = `${manifest}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  utimesSync(temporary, atimeMs / 1000, mtimeMs / 1000);
  renameSync(temporary, manifest);
}

/** Puts package.json back as it was before `strip`; false when there is nothing to put back. */
function restore() {
  if (!existsSync(saved)) return false;
  const { text, times } = JSON.parse(readFileSync(saved, 'utf8'));
  replace(text, times);
  rmSync(saved);
  return true;
}

function strip() {
  if (restore()) process.stderr.write('package.json: put back as it was before a pack that did not finish\n');
  const text = readFileSync(manifest, 'utf8');
  const { atimeMs, mtimeMs } = statSync(manifest);
  const json = JSON.parse(text);
  for (const script of INSTALL_SCRIPTS) delete json.scripts?.[script];
  mkdirSync(dirname(saved), { recursive: true });
  writeFileSync(saved, JSON.stringify({ text, times: { atimeMs, mtimeMs } }));
  replace(`${JSON.stringify(json, null, 2)}\n`, { atimeMs, mtimeMs });
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  process.stderr.write('Usage: node scripts/pack-manifest.mjs strip|restore (npm runs them as prepack and postpack)\n');
  process.exit(2);
}
