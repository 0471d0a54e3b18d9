import { SandboxError } from '../core/errors.js';
import { routeInboundCall } from '../state/inbound.js';
import { checkNumber, type CallBehavior, type Network } from '../state/network.js';
import type { AnsweredBy, CallMachineEvent } from '../state/call-machine.js';
import type { Call, CallService } from '../state/calls.js';
import type { NumberService } from '../state/numbers.js';

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

/** `sandbox.calls`: live calls, scripted (docs/scripting.md). */
export interface CallScripting {
  /** The call as the API would show it, or undefined. Any account. */
  get(id: string): Call | undefined;
  /** Answers a ringing call now (by a human unless `by` says otherwise). */
  answer(id: string, options?: { by?: Exclude<AnsweredBy, 'ai_receptionist'> }): Call;
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
  accountOf: (apiKey: string, where: string) => string;
  assertOpen: (what: string) => void;
}

/**
 * Builds `sandbox.calls`. A call in the wrong state for an action throws `SandboxError`:
 * the machine refused the event.
 *
 * @example
 * sandbox.network.setBehavior('+14155550123', { ring: 'manual' });
 * const { id } = await (await fetch(...POST /v1/calls...)).json();
 * sandbox.calls.answer(id);        // answered now
 * await sandbox.advance('42s');
 * sandbox.calls.hangUp(id);        // completed, disposition answered, duration 42
 */
export function callScripting(deps: CallScriptingDeps): CallScripting {
  const { calls } = deps;
  const act = (id: string, verb: string, event: CallMachineEvent, expected: string): Call => {
    deps.assertOpen(`${verb} a call`);
    const call = calls.store.find(id);
    if (!call) throw new SandboxError(`Failed to ${verb} ${id}: no such call in this sandbox. Use the id from POST /v1/calls or calls.inbound().`);
    if (!calls.send(call, event)) {
      throw new SandboxError(`Failed to ${verb} ${id}: the call is ${call.status}, and only a ${expected} call can be.`);
    }
    return calls.toJson(call);
  };
  return {
    get: (id) => {
      const call = calls.store.find(id);
      return call && calls.toJson(call);
    },
    answer: (id, options = {}) => act(id, 'answer', { type: 'ANSWERED', ...(options.by ? { by: options.by } : {}) }, 'ringing'),
    hangUp: (id) => act(id, 'hang up', { type: 'HUNG_UP' }, 'ringing or answered'),
    inbound: (options) => {
      deps.assertOpen('place an inbound call');
      const from = checkNumber(options.from, 'calls.inbound: from');
      const to = checkNumber(options.to, 'calls.inbound: to');
      const route = routeInboundCall({ numbers: deps.numbers, network: deps.network }, to, {
        account: options.apiKey === undefined ? undefined : deps.accountOf(options.apiKey, 'calls.inbound'),
        aiReceptionist: options.aiReceptionist,
        behavior: options.behavior,
      });
      return calls.toJson(calls.place({ ...route, from, to, direction: 'inbound', campaignId: null }));
    },
  };
}
