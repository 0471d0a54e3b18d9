import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type SandboxServer } from '../../src/index.js';
import { soakSize } from '../support/soak.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: SandboxServer;
beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(() => server.close());

/** One session's whole life over HTTP: made, (every tenth) used and advanced, deleted. */
async function cycle(i: number): Promise<void> {
  const made = await fetch(`${server.url}/__sandbox/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const { id, apiKey } = await made.json();
  if (i % 10 === 0) await use(id, apiKey);
  const deleted = await fetch(`${server.url}/__sandbox/sessions/${id}`, { method: 'DELETE' });
  if (deleted.status !== 204) throw new Error(`delete: ${deleted.status}`);
}

async function use(id: string, apiKey: string): Promise<void> {
  const placed = await fetch(`${server.url}/v1/calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
  });
  await placed.arrayBuffer();
  if (placed.status !== 201) throw new Error(`place: ${placed.status}`);
  const advanced = await fetch(`${server.url}/__sandbox/sessions/${id}/advance`, { method: 'POST', body: '{"duration":"3s"}' });
  await advanced.arrayBuffer();
}

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * 10,000 cycles in the soak run; 400 in `npm test`. A session holds about 20 KB while it lives,
 * so 400 kept would hold some 8 MB, twice the light run's bound; the soak run's bound is 8 MB
 * for 10,000 (0.8 KB a session).
 */
const CYCLES = soakSize(400, 10_000);
const WARM = soakSize(200, 500);
const BOUND = soakSize(4e6, 8e6);

it(`nothing leaks over ${CYCLES.toLocaleString('en-US')} session create/delete cycles: the heap returns to where it was`, async () => {
  for (let i = 0; i < WARM; i++) await cycle(i); // warm: code, caches, connection pool
  const before = heapAfterGc();
  for (let i = 0; i < CYCLES; i++) await cycle(i);
  const after = heapAfterGc();
  const sessions = await (await fetch(`${server.url}/__sandbox/sessions`)).json();
  expect(sessions.data).toEqual([expect.objectContaining({ id: 'default' })]);
  expect(after - before, `heap grew by ${((after - before) / 1e6).toFixed(1)} MB`).toBeLessThan(BOUND);
}, 300_000);
