// npm run bench: every figure is a ratio measured side by side in this one run, with both
// absolute numbers beside it. The last results go to bench/RESULTS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { requestOverhead } from './request-overhead.mjs';
import { memoryPerItem, scale } from './scale.mjs';
import { idleAdvance, lifecycles } from './virtual-time.mjs';
import { startup } from './startup.mjs';
import { schemaKit } from './schema.mjs';
import { serverBench } from './server.mjs';
import { sandboxCpu } from './profile.mjs';
import { allocation } from './allocation.mjs';
import { serverScale } from './server-scale.mjs';
import { serverSoak } from './server-soak.mjs';
import { longWork } from './long-work.mjs';
import { hangingReceiver20 } from './hanging-receiver.mjs';
import { showBench } from './show.mjs';
import { showLimits } from './show-limits.mjs';
import { binaryBench } from './binary.mjs';
import { stillReads } from './still-reads.mjs';

const quick = process.argv.includes('--quick');
/** `node bench/run.mjs server-scale`: that section alone (its title in lower case, dashed), RESULTS.md untouched. */
const only = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const sections = [];
async function section(title, run) {
  if (only && title.toLowerCase().replace(/[^a-z0-9]+/g, '-') !== only) return;
  globalThis.gc?.(); // no section pays for the garbage of the one before
  const started = performance.now();
  // A section that cannot run (a tool missing, a child that failed) says why, and the run goes on.
  const lines = await Promise.resolve()
    .then(run)
    .catch((error) => [`not measured: ${String(error?.message ?? error).split('\n')[0]}`]);
  sections.push({ title, lines, seconds: (performance.now() - started) / 1000 });
  console.log(`\n## ${title}\n${lines.join('\n')}`);
}

console.log(
  `svc-sandbox bench, ${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length}× ${os.cpus()[0]?.model ?? 'cpu'}, ${quick ? 'quick' : 'full'} run`,
);
await section('Request overhead', () => requestOverhead(quick ? 1000 : 5000));
await section('Sandbox CPU per request', () => sandboxCpu({ quick }));
await section('Allocation per request', () => allocation({ quick }));
await section('Scale', async () => (await scale(quick ? [1_000, 10_000, 100_000] : [1_000, 100_000, 1_000_000])).lines);
await section('Memory', () => memoryPerItem(quick ? 20_000 : 100_000));
await section('Still reads', () => stillReads({ quick }));
await section('Virtual time', async () => [...(await lifecycles(quick ? 2_000 : 10_000)), ...(await idleAdvance())]);
await section('Start-up', () => startup(quick ? 100 : 300));
await section('Schema kit', () => schemaKit({ quick }));
await section('Server', () => serverBench({ quick }));
await section('Server scale', () => serverScale({ quick }));
await section('Server soak', () => serverSoak({ seconds: quick ? 20 : 60 }));
await section('Long work', () => longWork({ steps: quick ? 2_000 : 6_500 }));
await section('Hanging receiver', () => hangingReceiver20({ timeout: quick ? '1s' : '10s' }));
await section('Show', () => showBench({ quick }));
await section('Show limits', () => showLimits({ quick }));
await section('Single executable', () => binaryBench({ quick }));

const report = [
  '# Benchmark results',
  '',
  `Last run: ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}.`,
  `Command: \`npm run bench${quick ? ' -- --quick' : ''}\`. A shared, noisy machine: read the ratios, not the absolute numbers.`,
  '',
  ...sections.flatMap((s) => [`## ${s.title}`, '', '```', ...s.lines, '```', '']),
].join('\n');
// The hand-kept "Before and after" section (a comparison against an older build, made with
// bench/profile.mjs --dist and the section modules run from a worktree) survives a new run.
const resultsUrl = new URL('./RESULTS.md', import.meta.url);
const previous = existsSync(resultsUrl) ? readFileSync(resultsUrl, 'utf8') : '';
const kept = previous.indexOf('\n## Before and after');
if (!quick && !only) writeFileSync(resultsUrl, kept === -1 ? report : `${report}${previous.slice(kept)}`);
