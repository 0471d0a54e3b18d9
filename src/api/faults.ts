import { SandboxError } from '../core/errors.js';
import { ApiError, type ErrorCode } from './errors.js';
import { fitsPattern, segmentsOf, type Method } from './router.js';

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

/** What the pipeline answers a faulted request with. */
export type FaultAnswer = { network: true } | { network: false; error: ApiError };

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'DELETE'];
const KNOWN = new Set(['method', 'path', 'status', 'network', 'retryAfter', 'times']);

interface Rule extends ActiveFault {
  segments: string[] | null;
}

/**
 * Injected faults: the sandbox's stand-in for a server or network that fails. A faulted
 * request changes nothing (it is refused before authentication, validation and any state),
 * but like every request it counts against its key's rate-limit window, and its answer
 * carries the usual headers. Rules apply in the order they were injected; the first that
 * matches takes the request and uses up one of its hits.
 */
export class Faults {
  private rules: Rule[] = [];

  inject(rule: FaultRule): void {
    this.rules.push(checkRule(rule));
  }

  list(): ActiveFault[] {
    return this.rules.map(({ segments: _segments, ...shown }) => ({ ...shown }));
  }

  clear(): void {
    this.rules = [];
  }

  /** The answer for a request to `path` (relative to the base URL), if a rule takes it. */
  take(method: string, path: string): FaultAnswer | undefined {
    if (this.rules.length === 0) return undefined;
    const actual = segmentsOf(path);
    const index = this.rules.findIndex((rule) => (rule.method === null || rule.method === method) && (rule.segments === null || fitsPattern(rule.segments, actual)));
    if (index === -1) return undefined;
    const rule = this.rules[index]!;
    if (--rule.remaining === 0) this.rules.splice(index, 1);
    if (rule.network) return { network: true };
    return { network: false, error: faultError(rule.status!, rule.retryAfter) };
  }
}

function faultError(status: number, retryAfter: number | null): ApiError {
  const code: ErrorCode = status === 429 ? 'rate_limited' : status === 500 ? 'internal_error' : 'service_unavailable';
  const wait = retryAfter ?? (status === 429 ? 1 : null);
  const message =
    status === 429
      ? `Too many requests (an injected fault); retry after ${wait} second${wait === 1 ? '' : 's'}.`
      : `The service failed to answer (an injected ${status} fault)${wait === null ? '' : `; retry after ${wait} second${wait === 1 ? '' : 's'}`}.`;
  return new ApiError(status, code, message, undefined, wait === null ? {} : { 'retry-after': String(wait) });
}

function fail(message: string): never {
  throw new SandboxError(`faults.inject: ${message}`);
}

function checkRule(rule: FaultRule): Rule {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) fail('pass an object such as { path: "/v1/calls", status: 503 }.');
  for (const key of Object.keys(rule)) {
    if (!KNOWN.has(key)) fail(`unknown field ${JSON.stringify(key)}; the fields are ${[...KNOWN].join(', ')}.`);
  }
  const { method, path, status, network = false, retryAfter, times = 1 } = rule;
  if (method !== undefined && !METHODS.includes(method)) fail(`method must be one of ${METHODS.join(', ')} (upper case), got ${JSON.stringify(method)}.`);
  if (path !== undefined && (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path))) {
    fail(`path must start with / and hold no query, like "/v1/calls/{id}", got ${JSON.stringify(path)}.`);
  }
  if (typeof network !== 'boolean') fail(`network must be true or false, got ${JSON.stringify(network)}.`);
  if (network && (status !== undefined || retryAfter !== undefined)) fail('a network fault has no status or retryAfter: give network: true alone, or a status.');
  if (status !== undefined && !(Number.isInteger(status) && (status === 429 || (status >= 500 && status <= 599)))) {
    fail(`status must be 429 or an integer from 500 to 599, got ${JSON.stringify(status)}. (A 4xx of the API itself comes from a real request: send one.)`);
  }
  const finalStatus = network ? null : (status ?? 503);
  if (retryAfter !== undefined) {
    if (!(Number.isInteger(retryAfter) && retryAfter >= 0)) fail(`retryAfter must be whole seconds (0 or more), got ${JSON.stringify(retryAfter)}.`);
    if (finalStatus !== 503 && finalStatus !== 429) fail(`retryAfter goes with status 503 or 429, not ${finalStatus}.`);
    if (finalStatus === 429 && retryAfter < 1) fail('retryAfter of a 429 is at least 1 second, as the rate limiter sends it.');
  }
  if (!(times === Infinity || (Number.isInteger(times) && times >= 1))) fail(`times must be a whole number of 1 or more, or Infinity, got ${JSON.stringify(times)}.`);
  return {
    method: method ?? null,
    path: path ?? null,
    status: finalStatus,
    network,
    retryAfter: retryAfter ?? null,
    remaining: times,
    segments: path === undefined ? null : segmentsOf(path),
  };
}
