import { describe } from 'vitest';
import { expect, test } from '../../src/vitest.js';
import { SandboxError } from '../../src/index.js';

/** `svc-sandbox/vitest` and `sandbox.advanceUntil`, used as a user's suite uses them. */
const headers = { authorization: 'Bearer SVC_TEST_me', 'content-type': 'application/json' };
const place = (baseUrl: string, to: string) =>
  fetch(`${baseUrl}/v1/calls`, { method: 'POST', headers, body: JSON.stringify({ to, from: '+14155550100' }) }).then((r) => r.json());

describe('svc-sandbox/vitest', () => {
  test('gives each test a listening sandbox, and toHaveEmitted matches events by type and partial shape', async ({ sandbox }) => {
    const call = await place(sandbox.baseUrl, '+15005550002');
    const done = await sandbox.advanceUntil('call.completed');
    expect(done.data).toMatchObject({ id: call.id, disposition: 'busy' });
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:01.000Z'); // stopped at the event's instant
    expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy', id: call.id } });
    expect(sandbox).toHaveEmitted('call.started');
    expect(sandbox).toHaveEmitted('call.completed', { data: { duration: expect.any(Number) } });
    expect(sandbox).not.toHaveEmitted('call.answered');
    expect(sandbox).not.toHaveEmitted('call.completed', { data: { disposition: 'answered' } });
    expect(() => expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'no_answer' } })).toThrow(
      /expected the sandbox to have emitted call.completed matching .*it emitted 1 call.completed event/s,
    );
  });

  test('type-checks the partial against the event (npm run typecheck fails if it stops)', async ({ sandbox }) => {
    await place(sandbox.baseUrl, '+15005550002');
    await sandbox.advanceUntil('call.completed');
    expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy', from: expect.stringMatching(/^\+1/) } });
    // @ts-expect-error a disposition the spec does not have
    expect(() => expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'bussy' } })).toThrow(/matching/);
    // @ts-expect-error a field call.completed does not carry
    expect(() => expect(sandbox).toHaveEmitted('call.completed', { data: { dispositon: 'busy' } })).toThrow(/matching/);
  });
});

describe('svc-sandbox/vitest options', () => {
  // Holds for this describe (or, at top level, the file).
  test.override({ sandboxOptions: { seed: 99, startTime: '2030-01-01T00:00:00Z' } });
  test('takes options per file or describe', ({ sandbox }) => {
    expect(sandbox.seed).toBe(99);
    expect(sandbox.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });
});

describe('sandbox.advanceUntil', () => {
  test('waits for a predicate, stops at its instant and resolves with the event', async ({ sandbox }) => {
    await place(sandbox.baseUrl, '+14155550123');
    const answered = await sandbox.advanceUntil((event) => event.type === 'call.answered');
    expect(answered.type).toBe('call.answered');
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:05.000Z');
    const ready = await sandbox.advanceUntil('transcript.ready');
    expect(ready.created_at).toBe('2026-01-01T00:01:35.000Z');
  });

  test('refuses with a clear error at max, having moved time by max; a non-event is refused at once', async ({ sandbox }) => {
    await place(sandbox.baseUrl, '+15005550003'); // no answer after 30 s
    await expect(sandbox.advanceUntil('call.answered', { max: '2m' })).rejects.toThrow(
      /no call.answered within 2m of virtual time \(from 2026-01-01T00:00:00.000Z to 2026-01-01T00:02:00.000Z\)/,
    );
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:02:00.000Z');
    await expect(sandbox.advanceUntil('call.ended' as never)).rejects.toThrow(SandboxError);
    await expect(sandbox.advanceUntil('call.completed', { max: 'soon' })).rejects.toThrow(/not a duration/);
  });
});
