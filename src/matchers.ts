/**
 * The sandbox's matchers, `toHaveEmitted` and `toHaveReceived`, written once for every runner
 * whose `expect.extend` gives a matcher `this.equals` and `this.utils` (vitest and Jest alike):
 * `svc-sandbox/vitest` registers them, `svc-sandbox/jest` exports them for `expect.extend`
 * (docs/test-runners.md). Only types come from the package's face: at run time this file needs
 * nothing, so the Jest entry stays a few lines and never loads a second copy of the sandbox.
 */
import type { EventType, JournalEntry, Sandbox, SandboxEvent } from './index.js';

/** What the matchers use of the runner's matcher context (vitest's `MatcherState`, Jest's `MatcherContext`). */
export interface MatcherContext {
  equals(a: unknown, b: unknown): boolean;
  utils: { printReceived(value: unknown): string; printExpected(value: unknown): string };
}

/** A matcher's answer, as both runners read it. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/**
 * What `toHaveEmitted` matches an event against: any subset of its fields, at any depth
 * (arrays element by element, as `toMatchObject` compares them). Asymmetric matchers
 * (`expect.any(String)`, `expect.stringMatching(...)`) fit anywhere.
 */
export type EventMatch<T> = T extends readonly (infer U)[]
  ? ReadonlyArray<EventMatch<U>>
  : T extends object
    ? { [K in keyof T]?: EventMatch<T[K]> }
    : T;

/**
 * The matchers as an `expect` augmentation declares them, `R` being what the runner's matchers
 * return. `svc-sandbox/vitest` and `svc-sandbox/jest` add it to their runner's `Matchers`.
 */
export interface SandboxMatchers<R> {
  /**
   * The sandbox emitted an event of `type` holding `partial`.
   *
   * @example
   * expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
   */
  toHaveEmitted<K extends EventType>(type: K, partial?: EventMatch<SandboxEvent<K>>): R;
  /**
   * The sandbox answered a request holding `partial` (an entry of `sandbox.requests.list()`).
   *
   * @example
   * expect(sandbox).toHaveReceived({ method: 'POST', path: '/v1/calls', status: 429 });
   */
  toHaveReceived(partial?: EventMatch<JournalEntry>): R;
}

/** Whether `actual` holds everything `expected` holds (as `toMatchObject` reads it). */
function contains(actual: unknown, expected: unknown, equals: (a: unknown, b: unknown) => boolean): boolean {
  if (
    expected !== null &&
    typeof expected === 'object' &&
    typeof (expected as { asymmetricMatch?: unknown }).asymmetricMatch === 'function'
  )
    return equals(actual, expected);
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e, equals));
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value, equals));
  }
  return Object.is(actual, expected);
}

/** A refusal naming what was received, unless it is a sandbox. */
function notASandbox(received: unknown, print: (value: unknown) => string): MatcherResult | null {
  if (received !== null && typeof received === 'object' && typeof (received as Partial<Sandbox>).events?.list === 'function') return null;
  return { pass: false, message: () => `expected a sandbox (from createSandbox), got ${print(received)}` };
}

/**
 * Passes when the sandbox emitted an event of `type` that holds `partial` (compared as
 * `toMatchObject` does, asymmetric matchers included).
 *
 * @example
 * expect.extend({ toHaveEmitted });
 * expect(sandbox).toHaveEmitted('call.completed', { data: { disposition: 'busy' } });
 */
export function toHaveEmitted(
  this: MatcherContext,
  received: Sandbox,
  type: EventType,
  partial: Record<string, unknown> = {},
): MatcherResult {
  const refused = notASandbox(received, (value) => this.utils.printReceived(value));
  if (refused) return refused;
  const events = received.events.list({ type }) as SandboxEvent[];
  const pass = events.some((event) => contains(event, partial, (a, b) => this.equals(a, b)));
  return {
    pass,
    message: () =>
      pass
        ? `expected the sandbox not to have emitted ${type} matching ${this.utils.printExpected(partial)}`
        : `expected the sandbox to have emitted ${type} matching ${this.utils.printExpected(partial)}; ` +
          `it emitted ${events.length} ${type} event${events.length === 1 ? '' : 's'}${
            events.length
              ? `:\n${events.map((e) => this.utils.printReceived(e)).join('\n')}`
              : ` (all its events: ${
                  received.events
                    .list()
                    .map((e) => e.type)
                    .join(', ') || 'none'
                })`
          }`,
  };
}

/**
 * Passes when the sandbox answered a request holding `partial` (its journal entry, as
 * `sandbox.requests.list()` gives it: method, documented path, status, errorCode, apiKey, ...).
 *
 * @example
 * expect.extend({ toHaveReceived });
 * expect(sandbox).toHaveReceived({ method: 'POST', path: '/v1/calls', status: 201 });
 */
export function toHaveReceived(this: MatcherContext, received: Sandbox, partial: Record<string, unknown> = {}): MatcherResult {
  const refused = notASandbox(received, (value) => this.utils.printReceived(value));
  if (refused) return refused;
  const requests = received.requests.list();
  const pass = requests.some((request) => contains(request, partial, (a, b) => this.equals(a, b)));
  const seen = requests.slice(-20).map((r) => `${r.method} ${r.path} ${r.status}${r.errorCode ? ` ${r.errorCode}` : ''}`);
  return {
    pass,
    message: () =>
      pass
        ? `expected the sandbox not to have received a request matching ${this.utils.printExpected(partial)}`
        : `expected the sandbox to have received a request matching ${this.utils.printExpected(partial)}; it received ` +
          `${seen.length ? `(the last ${seen.length}):\n${seen.join('\n')}` : 'none'}`,
  };
}
