// svc-sandbox show at both ends of what it accepts (docs/debugging.md, "Memory and size"): a
// session of distinct calls (each to its own number, so no two requests fold into one input;
// about 220 bytes of snapshot each), written to a ~12 MiB file and to one just under the file
// limit (16 MiB); each opened by the built bin as a user opens it (`svc-sandbox show FILE`), with
// the time to its ready line, the resident memory then and at its peak (/proc VmRSS, VmHWM), and
// one state answer's size and time (the lists windowed to their newest 500 items).
// `node bench/run.mjs show-limits`, after a build.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../dist/sandbox.js';
import { MAX_SNAPSHOT_FILE_BYTES } from '../dist/server/snapshot-file.js';

const CLI = new URL('../dist/server/cli.js', import.meta.url).pathname;
const MIB = 2 ** 20;

/** A snapshot of `calls` distinct calls, 10 a second, each run to its end. */
async function snapshotOf(calls) {
  const sandbox = createSandbox({ seed: 1 });
  for (let i = 0; i < calls; i++) {
    await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: 'Bearer SVC_TEST_bench', 'content-type': 'application/json' },
        body: JSON.stringify({ to: `+1415${String(5_000_000 + i).padStart(7, '0')}`, from: '+14155550100' }),
      }),
    );
    if (i % 10 === 9) await sandbox.advance('1s');
  }
  await sandbox.advance('10m');
  const json = JSON.stringify(sandbox.snapshot());
  sandbox.close();
  return json;
}

const memory = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
};

/** Opens `file` with the bin; answers what it took. */
async function open(file) {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'show', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => {
    err += c;
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const line = / on (http:\S+)\/__sandbox\/console\n/.exec(out);
      if (line) resolve(line[1]);
    });
    child.once('exit', (code) => reject(new Error(`show exited ${code}: ${err.split('\n')[0]}`)));
  });
  const ready = (performance.now() - started) / 1000;
  const atReady = memory(child.pid);
  const asked = performance.now();
  const state = await (await fetch(`${url}/__sandbox/show/state`)).text();
  const stateMs = performance.now() - asked;
  const after = memory(child.pid);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return { ready, atReady, after, stateBytes: state.length, stateMs };
}

export async function showLimits({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-show-limits-'));
  const lines = [];
  try {
    // About 220 bytes a call: 57,000 calls make some 12 MiB; the limit's size, a little under it.
    const sizes = quick
      ? [['~3 MiB', 14_000]]
      : [
          ['~12 MiB', 57_000],
          ['the limit', Math.floor((MAX_SNAPSHOT_FILE_BYTES / 224) * 0.97)],
        ];
    for (const [name, calls] of sizes) {
      const file = join(dir, `${calls}.json`);
      writeFileSync(file, await snapshotOf(calls));
      const mib = statSync(file).size / MIB;
      const r = await open(file);
      lines.push(
        `${name}: ${calls.toLocaleString('en')} calls, ${mib.toFixed(1)} MiB: ready after ${r.ready.toFixed(1)} s, RSS ${r.atReady.rss.toFixed(0)} MiB then (peak ${r.atReady.peak.toFixed(0)} MiB); ` +
          `the state at the end ${(r.stateBytes / MIB).toFixed(1)} MiB in ${r.stateMs.toFixed(0)} ms, peak ${r.after.peak.toFixed(0)} MiB` +
          `  (target for 12 MiB: ready < 30 s, RSS < 1024 MiB)`,
      );
      rmSync(file);
    }
    lines.push(`file limit: ${MAX_SNAPSHOT_FILE_BYTES / MIB} MiB (a larger file exits 2)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log((await showLimits({ quick: process.argv.includes('--quick') })).join('\n'));
