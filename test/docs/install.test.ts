import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../server/built-cli.js';

/**
 * Installing the packed tarball, as the README's "Use it in your project" says, is quiet: npm 11
 * warned on every install that `svc-sandbox@0.1.0 (prepare: node scripts/ensure-built.mjs
 * prepare)` had an install script (the packed package.json kept `prepare`, whose file is not
 * shipped). `npm pack` here runs prepack and postpack as a user's does: the tarball's manifest
 * has no install-time script, and the repository's package.json is left as it was, to the byte
 * and the modification time (scripts/ensure-built.mjs reads it).
 */
const work = mkdtempSync(join(tmpdir(), 'svc-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(ensureBuilt, 300_000);

const npm = (args: string[], cwd: string) => {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 240_000 });
  expect(result.status, `npm ${args.join(' ')}:\n${result.stdout}${result.stderr}`).toBe(0);
  return `${result.stdout}${result.stderr}`;
};

it('npm pack, then npm install of the tarball: no warning about svc-sandbox, and the bin runs', () => {
  const manifest = join(ROOT, 'package.json');
  const before = { text: readFileSync(manifest, 'utf8'), mtime: statSync(manifest).mtimeMs };
  npm(['pack', '--pack-destination', work], ROOT);
  expect(readFileSync(manifest, 'utf8')).toBe(before.text);
  expect(statSync(manifest).mtimeMs).toBeCloseTo(before.mtime, 0); // utimes takes the time to the microsecond
  expect(JSON.parse(before.text).scripts.prepare).toBeDefined(); // the repository keeps it: npm install here and git installs build

  const { name, version } = JSON.parse(before.text) as { name: string; version: string };
  const tarball = join(work, `${name}-${version}.tgz`);
  const shipped = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  expect(Object.keys(shipped.scripts).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);

  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  const output = npm(['install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
  expect(output.split('\n').filter((line) => /warn|svc-sandbox/i.test(line))).toEqual([]);
  const help = execFileSync('npx', ['--no-install', 'svc-sandbox', '--help'], { cwd: app, encoding: 'utf8' });
  expect(help).toMatch(/^Usage: svc-sandbox/);
}, 300_000);
