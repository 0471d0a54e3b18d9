import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { client } from '../helpers.js';

/** A fixed script of requests and clock moves; returns everything observable. */
async function run(seed: number) {
  const sandbox = createSandbox({ seed }).listen();
  try {
    const api = client(sandbox);
    const bodies: unknown[] = [];
    sandbox.network.setBehavior('+14155550111', { outcome: 'busy' });
    bodies.push((await api.placeCall()).body);
    bodies.push((await api.get('/v1/nope')).body); // an error response in between
    bodies.push((await api.placeCall({ to: '+14155550111', ai_receptionist: true })).body);
    await sandbox.advance('3s');
    bodies.push((await api.post('/v1/calls', { campaign: { to: ['+14155550123', '+15005550003'], from: '+14155550100' } })).body);
    await sandbox.advance('2m');
    bodies.push((await api.get('/v1/calls?limit=2')).body);
    return { bodies, events: sandbox.events.list() };
  } finally {
    sandbox.close();
  }
}

describe('determinism', () => {
  it('the same seed and requests give the same ids, bodies and event log', async () => {
    const a = await run(42);
    const b = await run(42);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.events.length).toBeGreaterThan(6);
  });

  it('another seed gives other ids', async () => {
    const a = await run(42);
    const c = await run(43);
    expect((c.bodies[0] as { id: string }).id).not.toBe((a.bodies[0] as { id: string }).id);
  });

  it('reads do not shift the ids of later resources', async () => {
    const first = createSandbox({ seed: 9 });
    const second = createSandbox({ seed: 9 });
    const post = (s: typeof first) =>
      s
        .handle(
          new Request(`${s.baseUrl}/v1/calls`, {
            method: 'POST',
            headers: { authorization: 'Bearer SVC_TEST_k', 'content-type': 'application/json' },
            body: '{"to":"+14155550123","from":"+14155550100"}',
          }),
        )
        .then((r) => r.json());
    for (let i = 0; i < 5; i++)
      await second.handle(new Request(`${second.baseUrl}/v1/calls`, { headers: { authorization: 'Bearer SVC_TEST_k' } }));
    expect((await post(second)).id).toBe((await post(first)).id);
  });

  it('reset() starts over as a new sandbox with the same seed would', async () => {
    const a = await run(5);
    const sandbox = createSandbox({ seed: 5 }).listen();
    try {
      await client(sandbox).placeCall();
      await sandbox.advance('10m');
      sandbox.reset();
      expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
      expect(sandbox.events.list()).toEqual([]);
      expect((await client(sandbox).get('/v1/calls')).body.data).toEqual([]);
      const placed = (await client(sandbox).placeCall()).body;
      expect(placed.id).toBe((a.bodies[0] as { id: string }).id);
    } finally {
      sandbox.close();
    }
  });
});
