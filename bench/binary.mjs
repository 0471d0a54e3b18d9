// Single executable: dist/bin/svc-sandbox (npm run build:binary, docs/binary.md) against
// `node dist/server/cli.js`: the executable's size, and the real time from spawning
// `serve --port 0` to its ready line on stdout, with the RSS of the process at that moment.
//
// The two start alternately, one at a time, each stopped (SIGTERM, waited for) before the next
// starts, so neither shares the machine with the other; median and spread (min–max) per
// contender. Start-up is what a Python, Go or Ruby suite pays once per process when its helper
// starts a server. Run alone: node bench/binary.mjs [--quick] [--runs N] [--bin PATH]
// (PATH: another executable to measure, e.g. one built with other options); builds the
// executable first when it is missing or stale (a second or two when a kept copy exists).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Milliseconds from spawn to the ready line, and the RSS (MB) read from /proc then. */
function startOnce(command, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, [...args, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let result;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.on('data', (chunk) => (err += chunk));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (result || !out.includes('\n')) return;
      const ms = performance.now() - started;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readStatus(child.pid))?.[1];
      result = { ms, rss: rss === undefined ? Number.NaN : Number(rss) / 1024 };
      // One answer before the signal: the CLI prints its ready line just before it installs its
      // SIGTERM handler, and a signal sent at once can land in between (then it dies of it).
      const url = out.slice(0, out.indexOf('\n')).split(' ').pop();
      fetch(`${url}/__sandbox/health`).then(
        () => child.kill('SIGTERM'),
        () => child.kill('SIGKILL'),
      );
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (result && code === 0) resolve(result);
      else reject(new Error(`${command} serve exited ${code ?? signal} before or after its ready line:\n${out}${err}`));
    });
  });
}

function readStatus(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/** The executable, built (or linked from its kept copy) when missing or stale. */
function executable() {
  const built = spawnSync(process.execPath, [`${ROOT}scripts/build-binary.mjs`, '--print-path'], { encoding: 'utf8', timeout: 600_000 });
  if (built.status !== 0) throw new Error(`npm run build:binary failed:\n${built.stderr}`);
  return built.stdout.trim();
}

export async function binaryBench({ quick = false, runs, bin } = {}) {
  const path = bin ?? executable();
  const n = runs ?? (quick ? 5 : 15);
  const contenders = [
    { label: 'single executable', command: path, args: [], ms: [], rss: [] },
    { label: 'node dist/server/cli.js', command: process.execPath, args: [`${ROOT}dist/server/cli.js`], ms: [], rss: [] },
  ];
  const loadBefore = loadavg()[0].toFixed(1);
  // One untimed start each first: the file cache holds both from then on.
  for (const c of contenders) await startOnce(c.command, c.args);
  for (let i = 0; i < n; i++) {
    for (const c of i % 2 ? [...contenders].reverse() : contenders) {
      const { ms, rss } = await startOnce(c.command, c.args);
      c.ms.push(ms);
      c.rss.push(rss);
    }
  }
  const load = loadavg()[0].toFixed(1);
  const [exe, node] = contenders;
  const nodeSize = statSync(process.execPath).size;
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  return [
    `executable: ${path.startsWith(ROOT) ? path.slice(ROOT.length) : path}, ${mb(statSync(path).size)} (the node it copies: ${mb(nodeSize)})`,
    `start-up to the ready line of serve --port 0, ${n} runs each, alternating (load average ${loadBefore} before, ${load} after):`,
    ...contenders.map(
      (c) =>
        `  ${c.label.padEnd(26)} median ${median(c.ms).toFixed(0).padStart(4)} ms (${spread(c.ms)})   RSS at ready ${median(c.rss).toFixed(0)} MB (${spread(c.rss)})`,
    ),
    `  ratio of medians: ${(median(exe.ms) / median(node.ms)).toFixed(2)}×`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const lines = await binaryBench({
    quick: process.argv.includes('--quick'),
    runs: arg('--runs') === undefined ? undefined : Number(arg('--runs')),
    bin: arg('--bin'),
  });
  console.log(lines.join('\n'));
}
