import { METHODS } from '../core/path-pattern.js';
import {
  annotated,
  boolean,
  custom,
  either,
  integer,
  invalid,
  literal,
  name,
  object,
  oneOf,
  optional,
  show,
  string,
  type Schema,
  said,
} from '../core/schema.js';
import type { ActiveFault, FaultRule, Faults } from '../state/faults.js';
import { act, check, type ControlContext, change, read } from './context.js';

const times = custom<number>({
  hint: 'a whole number of 1 or more, or Infinity',
  parse(value, path) {
    if (value === Infinity || value === 'Infinity' || (Number.isInteger(value) && (value as number) >= 1)) return Number(value);
    throw invalid(said`${name(path)} must be a whole number of 1 or more, or Infinity, got ${show(value)}.`, path);
  },
  // JSON has no Infinity: the document offers the string, the library takes the number too.
  like: annotated(
    either(
      integer({ description: 'Matching requests it hits.', min: 1, max: Number.MAX_SAFE_INTEGER }),
      literal('Infinity', 'Until cleared.'),
      'a whole number of 1 or more, or Infinity',
    ),
    { description: 'Matching requests it hits; "Infinity" until cleared.' },
  ),
});

const faultStatus = custom<number>({
  hint: '429 or an integer from 500 to 599',
  parse(value, path) {
    if (Number.isInteger(value) && (value === 429 || ((value as number) >= 500 && (value as number) <= 599))) return value as number;
    throw invalid(
      said`${name(path)} must be 429 or an integer from 500 to 599, got ${show(value)}. (A 4xx of the API itself comes from a real request: send one.)`,
      path,
    );
  },
  like: annotated(
    either(
      integer({ description: 'Too many requests.', min: 429, max: 429 }),
      integer({ description: 'A server error.', min: 500, max: 599 }),
      '429 or an integer from 500 to 599',
    ),
    { description: 'The status of the error answer.' },
  ),
});

/** The method a fault takes: any when absent (null in `faults.list()`). */
export const faultMethod = oneOf(METHODS, 'Only requests with this method (upper case).');
/** The path a fault takes, with `{name}` for a segment: any when absent. */
export const faultPath = string({
  description: 'Only requests to this path, with {name} for a segment',
  pattern: /^\/[^?#\s]*$/,
  patternHint: 'a path that starts with / and holds no query, like "/v1/calls/{id}"',
  max: 500,
});
/** Seconds of a fault's `Retry-After`. */
export const faultRetryAfter = integer({ description: 'Seconds for a Retry-After header', min: 0, max: 86_400 });

export const faultRule = object(
  {
    method: optional(faultMethod),
    path: optional(faultPath),
    status: optional(faultStatus),
    network: optional(boolean('A connection failure instead of an answer.')),
    retryAfter: optional(faultRetryAfter),
    times: optional(times),
  },
  {
    description: 'A fault to inject (docs/scripting.md, "Faults").',
    label: 'option',
    check: (rule) => {
      const { status, network = false, retryAfter } = rule;
      if (network && (status !== undefined || retryAfter !== undefined)) {
        throw invalid('a network fault has no status or retryAfter: give network: true alone, or a status.', 'network');
      }
      const finalStatus = network ? null : (status ?? 503);
      if (retryAfter !== undefined) {
        if (finalStatus !== 503 && finalStatus !== 429)
          throw invalid(`\`retryAfter\` goes with status 503 or 429, not ${finalStatus}.`, 'retryAfter');
        if (finalStatus === 429 && retryAfter < 1)
          throw invalid('`retryAfter` of a 429 is at least 1 second, as the rate limiter sends it.', 'retryAfter');
      }
    },
  },
) satisfies Schema<FaultRule>;

/** `sandbox.faults`: injected faults (docs/scripting.md). */
export interface FaultScripting {
  /** Adds a rule; rules apply in the order they were injected. Throws SandboxError on a malformed rule. */
  inject(rule?: FaultRule): void;
  /** The rules with hits left, in order. */
  list(): ActiveFault[];
  /** Forgets every rule. */
  clear(): void;
}

/**
 * Builds `sandbox.faults`: the next matching requests fail as a broken server or network
 * would, and change nothing.
 *
 * @example
 * sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503, retryAfter: 1 }); // the next POST /v1/calls only
 * sandbox.faults.inject({ path: '/v1/calls/{id}', network: true, times: 2 });               // fetch rejects twice
 */
export function faultScripting(ctx: ControlContext, faults: Faults): FaultScripting {
  return {
    inject: change(ctx, 'faults.inject', (rule = {}) =>
      act(ctx, 'inject a fault', () => {
        const r = check(faultRule, rule, 'faults.inject');
        const network = r.network ?? false;
        faults.add({
          method: r.method ?? null,
          path: r.path ?? null,
          status: network ? null : (r.status ?? 503),
          network,
          retryAfter: r.retryAfter ?? null,
          remaining: r.times ?? 1,
        });
      }),
    ),
    list: read(() => faults.list()),
    clear: change(ctx, 'faults.clear', () => act(ctx, 'clear faults', () => faults.reset())),
  };
}
