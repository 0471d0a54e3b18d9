import { fitsPattern, segmentsOf, type Method } from '../core/path-pattern.js';
import type { Service } from '../core/lifecycle.js';

/**
 * A fault to inject: which requests it hits, what they get instead of an answer, and how
 * many times. Every field is optional; `{}` makes the next request of any kind a 503.
 *
 * @example
 * sandbox.faults.inject({ method: 'POST', path: '/v1/calls', status: 503, retryAfter: 2 });
 * sandbox.faults.inject({ path: '/v1/calls/{id}', network: true, times: 2 });
 */
export interface FaultRule {
  /** Only requests with this method. Default: any. */
  method?: Method;
  /**
   * Only requests to this path, relative to the base URL, with `{name}` for any one
   * segment: `/v1/calls/{id}`. Default: any path.
   */
  path?: string;
  /** The status of the error answer: 429 or 500–599. Default 503. */
  status?: number;
  /** A connection failure instead of an answer: `fetch` rejects, `node:http` emits `error`. */
  network?: boolean;
  /** Seconds for a `Retry-After` header (503 and 429 only). Default: none (429: 1). */
  retryAfter?: number;
  /** How many matching requests it hits before it is used up; `Infinity` until cleared. Default 1. */
  times?: number;
}

/** A rule as `faults.list()` shows it: every default applied, and the hits it has left. */
export interface ActiveFault {
  method: Method | null;
  path: string | null;
  status: number | null;
  network: boolean;
  retryAfter: number | null;
  remaining: number;
}

interface Rule extends ActiveFault {
  segments: string[] | null;
}

/**
 * Injected faults: the sandbox's stand-in for a server or network that fails. Rules arrive
 * validated (src/scripting/faults.ts) and apply in the order they were injected; the first that
 * matches a request takes it and uses up one of its hits. What the request is answered with
 * is the API's business (src/api/pipeline.ts).
 */
export class Faults implements Service {
  private rules: Rule[] = [];

  add(rule: ActiveFault): void {
    this.rules.push({ ...rule, segments: rule.path === null ? null : segmentsOf(rule.path) });
  }

  list(): ActiveFault[] {
    return this.rules.map(({ segments: _segments, ...shown }) => ({ ...shown }));
  }

  /** The rule that takes a request to `path` (relative to the base URL), if any; uses up one hit. */
  take(method: string, path: string): ActiveFault | undefined {
    if (this.rules.length === 0) return undefined;
    const actual = segmentsOf(path);
    const index = this.rules.findIndex(
      (rule) => (rule.method === null || rule.method === method) && (rule.segments === null || fitsPattern(rule.segments, actual)),
    );
    const rule = this.rules[index];
    if (rule === undefined) return undefined;
    if (--rule.remaining === 0) this.rules.splice(index, 1);
    return rule;
  }

  reset(): void {
    this.rules = [];
  }
}
