import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxSnapshot } from '../../src/index.js';
import { closedAfterEach } from '../support/made.js';
import { memberKind } from '../../src/scripting/context.js';

/**
 * The one recorder (src/scripting/recorder.ts): every scripting member is declared a change
 * (recorded under its public name) or a read where its namespace is written, and snapshots
 * written before the recorder was one still load.
 */

const make = closedAfterEach();

/** What a sandbox shows, as JSON text (an attempt's real duration, the one non-deterministic field, left out). */
function observed(sandbox: Sandbox): unknown {
  return JSON.parse(
    JSON.stringify({
      now: sandbox.now(),
      events: sandbox.events.list(),
      deliveries: sandbox.webhooks.deliveries().map((d) => ({ ...d, attempts: d.attempts.map(({ durationMs: _d, ...a }) => a) })),
      // The journal's errorMessage came after that commit: the fixture's entries have none.
      requests: sandbox.requests.list().map(({ errorMessage: _message, ...entry }) => entry),
      calls: sandbox.calls.list(),
      keys: sandbox.keys.list(),
    }),
  );
}

describe('the recorder', () => {
  it('every public scripting member is declared a change (recorded under its own name) or a read', () => {
    const sandbox = make({ seed: 1 });
    const undeclared: string[] = [];
    const misnamed: string[] = [];
    let changes = 0;
    for (const [space, value] of Object.entries(sandbox)) {
      // A namespace: a plain object of functions (the sandbox's private parts hold data too).
      if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) continue;
      if (!Object.values(value).every((v) => typeof v === 'function')) continue;
      for (const [member, fn] of Object.entries(value)) {
        if (typeof fn !== 'function') continue;
        const kind = memberKind(fn);
        if (!kind) undeclared.push(`${space}.${member}`);
        else if (kind.kind === 'change') {
          changes++;
          if (kind.name !== `${space}.${member}`) misnamed.push(`${space}.${member} (recorded as ${kind.name})`);
        }
      }
    }
    expect(undeclared, 'declare each with change() or read() (src/scripting/context.ts)').toEqual([]);
    expect(misnamed).toEqual([]);
    expect(changes).toBeGreaterThanOrEqual(16); // calls 3, network 5, messages 1, faults 2, webhooks 2, recordings 1, transcripts 1, keys 2
  });

  it('a change is recorded as it runs, and kept only when it did not throw; a read is not', () => {
    const sandbox = make({ seed: 2 });
    sandbox.network.setBehavior('+14155550123', { outcome: 'busy' });
    sandbox.calls.list();
    sandbox.faults.list();
    expect(() => sandbox.calls.answer('call_nope')).toThrow(/no such call/);
    expect(sandbox.snapshot().inputs.map((input) => (input.kind === 'call' ? input.name : input.kind))).toEqual(['network.setBehavior']);
  });

  it('a snapshot written by svc-sandbox before the recorder was one (commit b704c83) loads, and shows what the original showed', () => {
    const { snapshot, observed: expected } = JSON.parse(
      readFileSync(new URL('./fixtures/snapshot-at-b704c83.json', import.meta.url), 'utf8'),
    ) as { snapshot: SandboxSnapshot; observed: unknown };
    // Its tape holds the 13th attempt (HTTP 500, as every attempt to that receiver) of the two deliveries that
    // reach it: the retry schedule gained its last attempt, at 24 h, after that commit.
    const names = snapshot.inputs.flatMap((input) => (input.kind === 'call' ? [input.name] : []));
    expect(names).toContain('webhooks.replay');
    expect(names).toContain('calls.inbound');
    const copy = make({ snapshot });
    expect(observed(copy)).toEqual(expected);
    expect(copy.snapshot()).toEqual(snapshot);
  });

  it('regression: a call at the instant an advanceUntil stopped is replayed there, and the clock does not run on to the next timer', async () => {
    const original = make({ seed: 5 });
    original.network.setBehavior('+14155550125', { ring: 'manual', talk: 'manual' });
    const res = await original.fetch('/v1/calls', {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_a', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550125', from: '+14155550100' }),
    });
    const { id } = (await res.json()) as { id: string };
    await original.fetch('/v1/calls', {
      method: 'POST',
      headers: { authorization: 'Bearer SVC_TEST_a', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    });
    await original.advanceUntil('call.answered');
    original.calls.answer(id); // at the instant advanceUntil stopped, after it
    await original.advance('3s');
    // A request 3 s later, then time runs on: the replay must make it at that instant, not at the next timer's.
    await original.fetch('/v1/calls', { headers: { authorization: 'Bearer SVC_TEST_a' } });
    await original.advance('2m');
    const copy = make({ snapshot: JSON.parse(JSON.stringify(original.snapshot())) });
    expect(observed(copy)).toEqual(observed(original));
  });
});
