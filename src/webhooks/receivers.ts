import type { Service } from '../core/lifecycle.js';
import type { PostResult } from './transport.js';

/** What a simulated receiver answers every attempt: an HTTP status, or `'down'` (no answer: the connection is refused). */
export type ReceiverAnswer = number | 'down';

/**
 * Webhook receivers simulated inside the sandbox, by URL (docs/scenarios.md, "Webhooks"): a
 * scenario file's subscriptions get their answers here instead of over HTTP, so a receiver
 * can be down for a day and come back without a server. A URL not set here is posted to for
 * real. Set by the scenario runner only; `reset()` forgets them all.
 */
export class SimulatedReceivers implements Service {
  private readonly byUrl = new Map<string, ReceiverAnswer>();

  /** From now on every attempt to `url` gets `answer`; null posts for real again. */
  set(url: string, answer: ReceiverAnswer | null): void {
    if (answer === null) this.byUrl.delete(url);
    else this.byUrl.set(url, answer);
  }

  /** The simulated result of an attempt to `url`, or undefined when it is posted for real. */
  answer(url: string): PostResult | undefined {
    const answer = this.byUrl.get(url);
    if (answer === undefined) return undefined;
    if (answer === 'down') return { status: null, ok: false, error: 'the receiver is down (simulated: connection refused)', durationMs: 0 };
    const ok = answer >= 200 && answer < 300;
    return { status: answer, ok, error: ok ? null : `the receiver answered HTTP ${answer}`, durationMs: 0 };
  }

  reset(): void {
    this.byUrl.clear();
  }
}
