import FakeTimers from '@sinonjs/fake-timers';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

/**
 * The one internal of @sinonjs/fake-timers the clock reads (core/clock.ts `earliestTimer`):
 * the pending timers' heap and its `peek()`, which tell a realtime sandbox when work is next
 * due. Without it the realtime pump polls every 10 ms instead of sleeping until then: still
 * right, but wasteful. This fails, naming the member and the version, when an upgrade moves it.
 */
it('fake-timers keeps its timer heap with peek() (what core/clock.ts reads in realtime mode)', () => {
  const version = (createRequire(import.meta.url)('@sinonjs/fake-timers/package.json') as { version: string }).version;
  const clock = FakeTimers.createClock(0, 1000);
  clock.setTimeout(() => undefined, 50);
  clock.setTimeout(() => undefined, 20);
  const heap: unknown = Reflect.get(clock, 'timerHeap');
  expect(
    typeof (heap as { peek?: unknown } | undefined)?.peek,
    `@sinonjs/fake-timers ${version} has no timerHeap.peek(): update earliestTimer in src/core/clock.ts`,
  ).toBe('function');
  expect(
    (heap as { peek(): { callAt: number } }).peek().callAt,
    `@sinonjs/fake-timers ${version}: timerHeap.peek() no longer gives the earliest timer's callAt`,
  ).toBe(20);
});
