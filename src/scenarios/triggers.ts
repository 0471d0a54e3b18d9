import type { SandboxBase } from '../root/sandbox-base.js';
import type { Schema } from '../core/schema.js';
import type { CallBehavior } from '../sim/carrier.js';
import { EVENT_TYPES, type EventType, type SandboxEvent, type TriggerOverrides, triggerOverrides } from '../state/events.js';
import { check, refuse } from '../scripting/context.js';

/**
 * Triggers (docs/scenarios.md, "Triggers"): one event of a type on demand, made by the
 * smallest real story that ends in it, told through the API (`/v1` requests with the
 * account's key) and the scripting namespaces, on the virtual clock. So the resource a
 * `GET` reads afterwards is the event's data, and the webhook is delivered and signed like
 * any other. A trigger moves virtual time as far as its story needs (a call.completed of
 * an answered call: about a minute; a transcript.ready: about 35 s after that), and the
 * events that lead to the one asked for (call.started before call.answered) are emitted
 * too, as they would be. Which fields each type's overrides take is defined with the event
 * (state/events.ts); the story that makes it is here, one `case` per type (the compiler names a
 * missing one).
 */

export type { TriggerOverrides };

/** A trigger drives the sandbox through its public members only. */
type TriggerHost = SandboxBase;

/** Options of `sandbox.trigger`. */
export interface TriggerOptions {
  /**
   * The account the event belongs to, by one of its keys. Default: the key of the latest
   * request the API accepted (the account the test has been using), else `SVC_TEST_trigger`.
   */
  apiKey?: string;
}

/** Any type's overrides: every field one of them takes (the type's schema has checked which it may hold). */
type AnyOverrides = TriggerOverrides['call.completed'] & TriggerOverrides['message.received'];

export const DEFAULT_TRIGGER_KEY = 'SVC_TEST_trigger';
const CALLED = '+14155550123';
const CALLER = '+14155550100';
const SENDER = '+14155550123';

/**
 * Makes one event of `type` through a real state change and resolves with it (see the file's
 * comment). Refuses an unknown type or override with a SandboxError naming it and the fix.
 *
 * @example
 * const busy = await trigger(sandbox, 'call.completed', { disposition: 'busy' });
 * (await sandbox.fetch(`/v1/calls/${busy.data.id}`, auth)).json(); // equals busy.data
 */
export async function trigger<K extends EventType>(
  host: TriggerHost,
  type: K,
  overrides: unknown = {},
  options: TriggerOptions = {},
): Promise<SandboxEvent<K>> {
  if (!(EVENT_TYPES as readonly unknown[]).includes(type)) {
    throw refuse('trigger', `${JSON.stringify(type)} is not an event type: pass one of ${EVENT_TYPES.join(', ')}.`, {
      param: 'type',
    });
  }
  const input = check(triggerOverrides(type) as Schema<AnyOverrides>, overrides ?? {}, 'trigger', 'overrides');
  const key = options.apiKey ?? lastAcceptedKey(host) ?? DEFAULT_TRIGGER_KEY;
  const story = new Story(host, key);
  return (await story.tell(type, input)) as SandboxEvent<K>;
}

/** The key of the latest request the API did not refuse for its key. */
function lastAcceptedKey(host: TriggerHost): string | undefined {
  const entry = host.requests.list().findLast((e) => e.apiKey !== null && e.status !== 401 && e.status !== 403);
  return entry?.apiKey ?? undefined;
}

/** One trigger's story: API requests with the account's key, and waits on the virtual clock. */
class Story {
  constructor(
    private readonly host: TriggerHost,
    private readonly key: string,
  ) {}

  async tell(type: EventType, o: AnyOverrides): Promise<SandboxEvent> {
    switch (type) {
      case 'call.started':
        return this.call(type, o, undefined);
      case 'call.answered':
        return this.call(type, o, {
          outcome: 'answered',
          ring: '1s',
          ...(o.answered_by ? { answeredBy: o.answered_by } : {}),
          ...(o.agent ? { agent: o.agent } : {}),
        });
      case 'call.completed': {
        const disposition = o.disposition ?? 'answered';
        if (disposition === 'canceled') return this.canceledCall(o);
        const behavior: CallBehavior =
          disposition === 'answered'
            ? {
                outcome: 'answered',
                ring: '1s',
                ...(o.duration ? { talk: `${o.duration}s` } : {}),
                ...(o.answered_by ? { answeredBy: o.answered_by } : {}),
                ...(o.agent ? { agent: o.agent } : {}),
              }
            : { outcome: disposition, ring: '1s' };
        return this.call(type, o, behavior);
      }
      case 'recording.ready':
      case 'transcript.ready': {
        const behavior: CallBehavior = {
          outcome: 'answered',
          ring: '1s',
          talk: `${o.duration ?? 10}s`,
          ...(o.agent ? { agent: o.agent } : {}),
        };
        const call = await this.placeCall(o, behavior);
        return this.until(type, (event) => event.type === type && (event.data as { call_id: string }).call_id === call.id);
      }
      case 'message.received': {
        const own = await this.ownNumber(o.to);
        const message = this.host.messages.inbound({ from: o.from ?? SENDER, to: own, body: o.body ?? 'Hello from the trigger' });
        return this.until(type, (event) => event.type === type && event.data.id === message.id, true);
      }
      case 'message.delivered': {
        const own = await this.ownNumber(o.from);
        const target = o.to ?? CALLED;
        this.host.network.queueMessageBehavior(target, { outcome: 'delivered' });
        const sent = { from: own, to: target, body: o.body ?? 'Hello from the trigger' };
        const message = (await this.api('POST', '/v1/messages', sent)) as { id: string };
        return this.until(type, (event) => event.type === type && event.data.id === message.id);
      }
    }
  }

  private async call(type: EventType, o: AnyOverrides, behavior: CallBehavior | undefined): Promise<SandboxEvent> {
    const call = await this.placeCall(o, behavior);
    return this.until(type, (event) => event.type === type && event.data.id === call.id, type === 'call.started');
  }

  /** A ringing call hung up by the caller: disposition canceled. */
  private async canceledCall(o: AnyOverrides): Promise<SandboxEvent> {
    const call = await this.placeCall(o, { ring: 'manual' });
    this.host.calls.hangUp(call.id);
    return this.until('call.completed', (event) => event.type === 'call.completed' && event.data.id === call.id, true);
  }

  private async placeCall(o: AnyOverrides, behavior: CallBehavior | undefined): Promise<{ id: string }> {
    const target = o.to ?? CALLED;
    if (behavior) this.host.network.queueBehavior(target, behavior);
    return this.api('POST', '/v1/calls', {
      to: target,
      from: o.from ?? CALLER,
      ...(o.ai_receptionist === undefined ? {} : { ai_receptionist: o.ai_receptionist }),
    }) as Promise<{ id: string }>;
  }

  /** A provisioned number of the account with SMS: `wanted` (provisioned if free), else its first, else a new one. */
  private async ownNumber(wanted: string | undefined): Promise<string> {
    const mine = (await this.api('GET', '/v1/numbers?provisioned=true&limit=100', undefined)) as {
      data: Array<{ number: string; sms?: { enabled: boolean } }>;
    };
    const usable = mine.data.filter((n) => n.sms?.enabled !== false);
    const found = wanted === undefined ? usable[0] : usable.find((n) => n.number === wanted);
    if (found) return found.number;
    const made = (await this.api('POST', '/v1/numbers', wanted === undefined ? { country: 'US' } : { number: wanted })) as {
      number: string;
    };
    return made.number;
  }

  /** A `/v1` request with the account's key; an error answer becomes a SandboxError quoting it. */
  private async api(method: string, path: string, body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await this.host.fetch(path, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      // An injected or chaos network fault: the story could not be told, which is no sandbox failure.
      throw refuse(
        'trigger',
        `${method} ${path.split('?')[0]} failed before an answer (${error instanceof Error ? error.message : String(error)}): an ` +
          `injected network fault, or chaos? Clear it and trigger again.`,
        { code: 'conflict' },
      );
    }
    const answer = (await response.json()) as { error?: { code: string; message: string; param?: string } };
    if (response.status >= 400) {
      const error = answer.error;
      throw refuse(
        'trigger',
        `${method} ${path.split('?')[0]} answered ${response.status}${error ? ` ${error.code}: ${error.message}` : ''}`,
        {
          code: response.status === 401 || response.status === 403 ? 'invalid_parameter' : 'conflict',
          param: error?.param === undefined ? undefined : `overrides.${error.param}`,
        },
      );
    }
    return answer;
  }

  /**
   * The event matching `match`: already emitted by the request (when `now` says it is emitted at
   * once), else the first to come on the virtual clock (at most a day away).
   */
  private async until(type: EventType, match: (event: SandboxEvent) => boolean, now = false): Promise<SandboxEvent> {
    if (now) {
      const emitted = this.host.events.list({ type, apiKey: this.key });
      const found = emitted.findLast(match);
      if (found) return found;
    }
    return this.host.advanceUntil(match, { max: '1d' });
  }
}
