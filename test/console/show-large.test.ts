// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { type ShowServer, startShow } from '../../src/server/show.js';
import { openShowPage } from './show-page.js';

/**
 * The console's time axis over a session with more events than it draws marks (2,000): 450
 * calls, a few a second, each run to its end (some 2,250 events). The axis holds at most 2,000
 * marks, every one titled with the events it stands for, and stepping still goes event by event.
 */

let show: ShowServer;
let events = 0;

beforeAll(async () => {
  const sandbox = createSandbox({ seed: 11 });
  for (let i = 0; i < 450; i++) {
    await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: 'Bearer SVC_TEST_me', 'content-type': 'application/json' },
        body: JSON.stringify({ to: `+1415${String(5_000_000 + i).padStart(7, '0')}`, from: '+14155550100' }),
      }),
    );
    if (i % 3 === 2) await sandbox.advance('1s');
  }
  await sandbox.advance('10m');
  events = sandbox.events.list().length;
  show = await startShow({ file: 'snapshots/large.json', snapshot: JSON.parse(JSON.stringify(sandbox.snapshot())), port: 0 });
  sandbox.close();
  openShowPage(show, '2026-01-01T00:01:00Z');
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await show.close();
});

const shownAt = () => new URL(location.href).searchParams.get('at');

describe('the time axis of a long session', () => {
  it('draws at most 2,000 marks for its events, each saying how many it stands for', async () => {
    await vi.waitFor(() => expect(shownAt()).toBe('2026-01-01T00:01:00.000Z'), { timeout: 5000, interval: 10 });
    expect(events).toBeGreaterThan(2000);
    const marks = [...document.querySelectorAll('.axis-mark')];
    expect(marks.length).toBeLessThanOrEqual(2001);
    const stood = marks.map((m) => {
      const many = /^(\d+) events, /.exec(m.getAttribute('title') ?? '');
      return many ? Number(many[1]) : 1;
    });
    expect(stood.reduce((a, b) => a + b, 0)).toBe(events);
    expect(stood.some((n) => n > 1)).toBe(true);
    // Those holding an event after the instant are faint; the one holding the last before it is ringed.
    const current = document.querySelector('.axis-mark.current')!;
    expect(current.classList.contains('after')).toBe(false);
    expect(marks.indexOf(current)).toBe(document.querySelectorAll('.axis-mark:not(.after)').length - 1);
  });

  it('steps event by event as before', async () => {
    const before = shownAt()!;
    document.dispatchEvent(new KeyboardEvent('keydown', { key: ']', bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(shownAt()).not.toBe(before), { timeout: 5000, interval: 10 });
    const next = Date.parse(shownAt()!);
    expect(next).toBeGreaterThan(Date.parse(before));
    expect(next - Date.parse(before)).toBeLessThanOrEqual(1000);
    expect(document.getElementById('at-status')!.textContent).toMatch(/Last event: \d+ of \d+/);
  });
});
