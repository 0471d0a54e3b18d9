import { callRef, SandboxError, said } from '../core/errors.js';
import { boolean, object, oneOf, optional, phoneNumber, string, type Schema } from '../core/schema.js';
import { ANSWERERS, type Answerer, type CallBehavior } from '../sim/carrier.js';
import type { CallMachineEvent } from '../state/call-events.js';
import type { CallService } from '../state/calls.js';
import { routeInboundCall } from '../state/inbound.js';
import type { Network } from '../state/network.js';
import type { NumberService } from '../state/numbers.js';
import type { Call } from '../state/resources.js';
import { accountOf, act, check, type ControlContext, change, read } from './context.js';
import { callBehavior } from './network.js';

/** Options of `sandbox.calls.inbound`. */
export interface InboundCallOptions {
  /** The caller (any E.164 number). */
  from: string;
  /** The number called: a provisioned number (its routing decides who answers), or any number of the account of `apiKey`. */
  to: string;
  /** Whose account receives the call: one of its API keys. Optional when `to` is a provisioned number (its account receives it). */
  apiKey?: string;
  /** Let the AI receptionist answer. Default: true when the number is routed to `ai_receptionist`, else false. */
  aiReceptionist?: boolean;
  /** How the call goes; defaults as for outbound calls (a number routed `forward` rings as its target would). */
  behavior?: CallBehavior;
}

/** Options of `sandbox.calls.answer`. */
export interface AnswerOptions {
  /** Who picks up. Default `human`. */
  by?: Answerer;
}

export const inboundCallOptions = object(
  {
    from: phoneNumber('The caller.'),
    to: phoneNumber('The number called.'),
    apiKey: optional(string({ description: 'An API key of the receiving account', max: 200 })),
    aiReceptionist: optional(boolean('Let the AI receptionist answer.')),
    behavior: optional(callBehavior),
  },
  { description: 'An inbound call to a number of an account.', label: 'option' },
) satisfies Schema<InboundCallOptions>;

export const answerOptions = object(
  { by: optional(oneOf(ANSWERERS, 'Who picks up.')) },
  { description: 'How the call is answered.', label: 'option' },
) satisfies Schema<AnswerOptions>;

/** `sandbox.calls`: live calls, scripted (docs/scripting.md). */
export interface CallScripting {
  /** The call as the API would show it, or undefined. Any account. */
  get(id: string): Call | undefined;
  /** Every call of the sandbox (every account), newest first. */
  list(): Call[];
  /** Answers a ringing call now (by a human unless `by` says otherwise). */
  answer(id: string, options?: AnswerOptions): Call;
  /** Ends a live call now: an answered one completes `answered`, a ringing one `canceled`. */
  hangUp(id: string): Call;
  /**
   * Rings a number of an account from outside: an inbound call, through the same
   * lifecycle (and events) as an outbound one. To a provisioned number, `apiKey` may be
   * left out and the number's routing decides who answers (docs/numbers.md); a pool
   * number nobody holds (e.g. released) receives nothing: SandboxError.
   */
  inbound(options: InboundCallOptions): Call;
}

interface CallScriptingDeps {
  calls: CallService;
  numbers: NumberService;
  network: Network;
}

/**
 * Builds `sandbox.calls`. A call in the wrong state for an action throws `SandboxError`
 * (code `conflict`): the machine refused the event.
 *
 * @example
 * sandbox.network.setBehavior('+14155550123', { ring: 'manual' });
 * const { id } = await (await fetch(...POST /v1/calls...)).json();
 * sandbox.calls.answer(id);        // answered now
 * await sandbox.advance('42s');
 * sandbox.calls.hangUp(id);        // completed, disposition answered, duration 42
 */
export function callScripting(ctx: ControlContext, deps: CallScriptingDeps): CallScripting {
  const { calls } = deps;
  const act_ = (id: unknown, verb: string, event: CallMachineEvent, expected: string): Call =>
    act(ctx, `${verb} a call`, () => {
      const call = typeof id === 'string' ? calls.store.find(id) : undefined;
      if (!call) {
        throw new SandboxError(
          said`Failed to ${verb} ${String(id)}: no such call in this sandbox. Use the id from POST /v1/calls or ${callRef('calls.inbound')}.`,
          { code: 'not_found', param: 'id' },
        );
      }
      if (!calls.send(call, event)) {
        throw new SandboxError(`Failed to ${verb} ${call.id}: the call is ${call.status}, and only a ${expected} call can be.`, {
          code: 'conflict',
          param: 'id',
        });
      }
      return calls.toJson(call);
    });
  return {
    get: read((id) => {
      const call = calls.store.find(id);
      return call && calls.toJson(call);
    }),
    list: read(() => calls.store.all().map((call) => calls.toJson(call))),
    answer: change(ctx, 'calls.answer', (id, options = {}) => {
      const { by } = check(answerOptions, options, 'calls.answer', '');
      return act_(id, 'answer', { type: 'ANSWERED', ...(by ? { by } : {}) }, 'ringing');
    }),
    hangUp: change(ctx, 'calls.hangUp', (id) => act_(id, 'hang up', { type: 'HUNG_UP' }, 'ringing or answered')),
    inbound: change(ctx, 'calls.inbound', (options) =>
      act(ctx, 'place an inbound call', () => {
        const input = check(inboundCallOptions, options, 'calls.inbound');
        const route = routeInboundCall({ numbers: deps.numbers, network: deps.network }, input.to, {
          account: input.apiKey === undefined ? undefined : accountOf(ctx, input.apiKey, 'calls.inbound'),
          aiReceptionist: input.aiReceptionist,
          behavior: input.behavior,
        });
        return calls.toJson(calls.place({ ...route, from: input.from, to: input.to, direction: 'inbound', campaignId: null }));
      }),
    ),
  };
}
