import { realDelay, type WallClock } from '../core/clock.js';
import { checkedMs, type Duration } from '../core/duration.js';
import type { Service } from '../core/lifecycle.js';
import { fitsPattern, segmentsOf } from '../core/path-pattern.js';
import type { SeededRandom } from '../core/random.js';
import { nearest } from '../core/suggest.js';
import type { CallBehavior, MessageOutcome } from '../sim/carrier.js';
import type { ActiveFault } from './faults.js';

/**
 * A chaos profile: how often, at random but seeded, the sandbox fails the way a real service
 * and carrier do (docs/chaos.md). Every field is optional; a probability is a number from 0
 * to 1. The same seed, profile and workload give the same failures, byte for byte.
 *
 * @example
 * createSandbox({
 *   seed: 7,
 *   chaos: {
 *     requests: { default: { serverError: 0.01 }, 'POST /v1/calls': { rateLimited: 0.05, latency: { rate: 0.2, delay: '300ms' } } },
 *     calls: { failed: 0.1, no_answer: 0.2, busy: 0.05, voicemail: 0.1 },
 *     messages: { failed: 0.05 },
 *     webhooks: { duplicate: 0.1, reorder: 0.1 },
 *   },
 * });
 */
export interface ChaosProfile {
  /**
   * Faults and latency of API requests, by route: a key is `'default'` (every request no
   * other key takes), a path relative to the base URL with `{name}` for any one segment
   * (`'/v1/calls/{id}'`), or a method and a path (`'POST /v1/calls'`). A request takes the
   * rule of the most specific key that fits it (method and path, then path, then `default`);
   * rules are not merged.
   */
  requests?: Record<string, RequestChaos>;
  /** The carrier's mix for outbound calls nothing scripted (magic numbers and `network.setBehavior` win). */
  calls?: CallMix;
  /** The messaging network's mix for outbound messages nothing scripted. */
  messages?: MessageMix;
  /** Webhook delivery that duplicates and reorders, as an at-least-once sender does. */
  webhooks?: WebhookChaos;
}

/** What one route's requests suffer. The three faults share one draw: their sum is at most 1. */
export interface RequestChaos {
  /** Probability of a 5xx answer (`status`), which changes nothing, as an injected fault. */
  serverError?: number;
  /** The status of a `serverError`: 500 to 599. Default 503. */
  status?: number;
  /** Probability of a 429 `rate_limited` with `Retry-After: 1`, which changes nothing. */
  rateLimited?: number;
  /** Probability the connection drops before the request is handled: `fetch` rejects, `node:http` emits `error`. */
  network?: number;
  /** Added latency: real (wall-clock) time before the answer leaves; see {@link LatencyChaos}. */
  latency?: LatencyChaos;
}

/**
 * Added latency. It is real time (up to 60 s), spent after the request was handled, so a
 * client that gives up first has still changed what it asked to change; the virtual clock
 * does not move for it (with `clock: 'realtime'` it moves as the wall clock does).
 */
export interface LatencyChaos {
  /** Probability a request is delayed. */
  rate: number;
  /** How long: a duration from 1 ms to 60 s. */
  delay: Duration;
  /** With it, each delay is drawn evenly from `delay` to `max` (whole ms). */
  max?: Duration;
}

/** How outbound calls end; they share one draw (sum at most 1), the rest are answered by a human. */
export interface CallMix {
  failed?: number;
  busy?: number;
  no_answer?: number;
  /** Answered, by voicemail (`answered_by: 'voicemail'`). */
  voicemail?: number;
}

/** How outbound messages end; the rest are delivered. */
export interface MessageMix {
  failed?: number;
}

/** Webhook delivery chaos: the same event (same id, body and signature) arrives twice, or late. */
export interface WebhookChaos {
  /** Probability a delivery is sent twice: a second delivery of the same event to the same subscription, at the same instant. */
  duplicate?: number;
  /** Probability a delivery is held back by `reorderDelay`, so deliveries of later events overtake it. */
  reorder?: number;
  /** How long a reordered delivery is held back, in virtual time. Default `'30s'`. */
  reorderDelay?: Duration;
}

/** The upper bound of an added latency: a chaos profile tests a client's timeouts, not the test runner's. */
export const MAX_LATENCY_MS = 60_000;
/** Default {@link WebhookChaos.reorderDelay}. */
const REORDER_DELAY_MS = 30_000;

interface RouteRule {
  key: string;
  method: string | null;
  segments: string[] | null;
  serverError: number;
  status: number;
  rateLimited: number;
  network: number;
  latency: number;
  delayMs: number;
  maxMs: number;
}

/** What chaos did to one request: its fault (answered as an injected fault is), and its added latency. */
export interface RequestDraw {
  fault: ActiveFault | null;
  latencyMs: number;
}

/** What chaos does to one webhook delivery. */
export interface DeliveryDraw {
  duplicate: boolean;
  /** Virtual ms its first attempt is held back; 0 when it is not. */
  holdMs: number;
}

/** A key of `requests`: `default`, a path, or a method and a path. */
export const ROUTE_KEY = /^(default|((GET|POST|PUT|DELETE) )?\/[^?#\s]*)$/;

/** A method and path pattern as the router knows them, to check the profile's keys against. */
export interface KnownRoute {
  method: string;
  path: string;
}

/**
 * A sandbox's chaos: the profile, resolved, and its draws. Each kind draws from a seeded
 * stream of its own (`chaos:requests`, `chaos:calls`, `chaos:messages`, `chaos:webhooks`),
 * never from the streams ids come from, so a run where no chaos fired has the ids, answers
 * and events of the same run without a profile; and one kind's draws never shift another's.
 */
export class Chaos implements Service {
  private readonly routes: RouteRule[];
  private readonly calls: Required<CallMix> | null;
  private readonly messageFailed: number;
  private readonly webhooks: { duplicate: number; reorder: number; holdMs: number } | null;
  /** Cuts added latency short when the sandbox resets or closes; made by the first delay. */
  private abort: AbortController | null = null;

  constructor(
    profile: ChaosProfile | null,
    private readonly random: SeededRandom,
    /** Where latency is spent: the real wall clock unless the sandbox was given another (the tests' fake one). */
    private readonly wall?: WallClock,
  ) {
    const routes = Object.entries(profile?.requests ?? {}).map(([key, rule]) => resolveRoute(key, rule));
    // Most specific first: method and path, then path, then default; in the order given within each.
    const rank = (r: RouteRule) => (r.segments === null ? 2 : r.method === null ? 1 : 0);
    this.routes = routes
      .map((r, i) => [r, i] as const)
      .sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j)
      .map(([r]) => r);
    this.calls = profile?.calls ? { failed: 0, busy: 0, no_answer: 0, voicemail: 0, ...profile.calls } : null;
    this.messageFailed = profile?.messages?.failed ?? 0;
    const w = profile?.webhooks;
    this.webhooks = w
      ? {
          duplicate: w.duplicate ?? 0,
          reorder: w.reorder ?? 0,
          holdMs: w.reorderDelay === undefined ? REORDER_DELAY_MS : checkedMs(w.reorderDelay),
        }
      : null;
  }

  /** The first route key that fits no route of the API (a typo would otherwise go unnoticed), with a near one. */
  unknownRoute(known: readonly KnownRoute[]): { key: string; near: string | undefined } | null {
    for (const rule of this.routes) {
      const segments = rule.segments;
      if (segments === null) continue;
      const fits = known.some(
        (route) => (rule.method === null || rule.method === route.method) && sameShape(segments, segmentsOf(route.path)),
      );
      if (!fits)
        return {
          key: rule.key,
          near: nearest(
            rule.key,
            known.map((r) => (rule.method === null ? r.path : `${r.method} ${r.path}`)),
          ),
        };
    }
    return null;
  }

  /** The fault and latency of a request to `path` (relative to the base URL); null when no rule takes it. */
  request(method: string, path: string): RequestDraw | null {
    if (this.routes.length === 0) return null;
    const actual = segmentsOf(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    const rule = this.routes.find(
      (r) => (r.method === null || r.method === wanted) && (r.segments === null || fitsPattern(r.segments, actual)),
    );
    if (!rule) return null;
    const draw = this.uniform('requests');
    const late = this.uniform('requests') < rule.latency;
    const latencyMs = !late
      ? 0
      : rule.maxMs > rule.delayMs
        ? rule.delayMs + Math.floor(this.uniform('requests') * (rule.maxMs - rule.delayMs + 1))
        : rule.delayMs;
    let fault: ActiveFault | null = null;
    if (draw < rule.network) fault = { method: null, path: null, status: null, network: true, retryAfter: null, remaining: 0 };
    else if (draw < rule.network + rule.rateLimited)
      fault = { method: null, path: null, status: 429, network: false, retryAfter: 1, remaining: 0 };
    else if (draw < rule.network + rule.rateLimited + rule.serverError)
      fault = { method: null, path: null, status: rule.status, network: false, retryAfter: null, remaining: 0 };
    return { fault, latencyMs };
  }

  /** A behaviour from the call mix for an outbound call nothing scripted, or null: the carrier's default. */
  call(): CallBehavior | null {
    if (!this.calls) return null;
    const u = this.uniform('calls');
    const { failed, busy, no_answer, voicemail } = this.calls;
    if (u < failed) return { outcome: 'failed' };
    if (u < failed + busy) return { outcome: 'busy' };
    if (u < failed + busy + no_answer) return { outcome: 'no_answer' };
    if (u < failed + busy + no_answer + voicemail) return { outcome: 'answered', answeredBy: 'voicemail' };
    return null;
  }

  /** `failed` from the message mix for an outbound message nothing scripted, or null: delivered. */
  message(): MessageOutcome | null {
    if (this.messageFailed === 0) return null;
    return this.uniform('messages') < this.messageFailed ? 'failed' : null;
  }

  /** Whether a new delivery is sent twice, and how long it is held back. */
  delivery(): DeliveryDraw | null {
    if (!this.webhooks) return null;
    const duplicate = this.uniform('webhooks') < this.webhooks.duplicate;
    const held = this.uniform('webhooks') < this.webhooks.reorder;
    return { duplicate, holdMs: held ? this.webhooks.holdMs : 0 };
  }

  /** Spends an added latency in real time; cut short by reset and close, and when `client` aborts (it gave up waiting). */
  delay(ms: number, client: AbortSignal): Promise<void> {
    return realDelay(ms, [(this.abort ??= new AbortController()).signal, client], this.wall);
  }

  stop(): void {
    this.abort?.abort();
    this.abort = null;
  }

  /**
   * A number in [0, 1) from the kind's stream. Looked up at every draw, not kept: reset()
   * starts the random source's streams over, and chaos with them.
   */
  private uniform(kind: 'requests' | 'calls' | 'messages' | 'webhooks'): number {
    return this.random.stream(`chaos:${kind}`)() / 2 ** 32;
  }
}

function resolveRoute(key: string, rule: RequestChaos): RouteRule {
  const space = key.indexOf(' ');
  const method = space === -1 ? null : key.slice(0, space);
  const path = space === -1 ? key : key.slice(space + 1);
  const delayMs = rule.latency ? checkedMs(rule.latency.delay) : 0;
  return {
    key,
    method,
    segments: key === 'default' ? null : segmentsOf(path),
    serverError: rule.serverError ?? 0,
    status: rule.status ?? 503,
    rateLimited: rule.rateLimited ?? 0,
    network: rule.network ?? 0,
    latency: rule.latency?.rate ?? 0,
    delayMs,
    maxMs: rule.latency?.max === undefined ? delayMs : checkedMs(rule.latency.max),
  };
}

/** Whether a key's pattern and a route's can meet: the same length, and each segment equal or a `{name}` on either side. */
function sameShape(key: readonly string[], route: readonly string[]): boolean {
  return (
    key.length === route.length &&
    key.every((segment, i) => {
      const other = route[i] ?? '';
      return segment === other || segment.startsWith('{') || other.startsWith('{');
    })
  );
}
