import { SandboxError } from '../core/errors.js';
import { resolveBehavior, type CallBehavior, type ResolvedBehavior } from '../sim/carrier.js';
import type { MessageInput } from './messages.js';
import type { Network } from './network.js';
import type { NumberRecord, NumberService } from './numbers.js';

/**
 * Traffic from outside to the account's numbers: who receives an inbound call or message,
 * and how. The scripting API validates the shape of what a test asks for
 * (src/scripting/); the rules here depend on who holds which number.
 */

/** What an inbound call gets from the number it rings (see docs/numbers.md). */
export interface InboundCallRoute {
  account: string;
  aiReceptionist: boolean;
  behavior: ResolvedBehavior;
  extension: string | null;
}

/**
 * The number `to` as a destination of inbound traffic: its record when someone holds
 * it; a pool number nobody holds (never provisioned, or released) receives nothing.
 */
function holder(numbers: NumberService, to: string, where: string): NumberRecord | undefined {
  const record = numbers.holderOf(to);
  if (!record && numbers.inventory.lookup(to)) {
    throw new SandboxError(
      `${where}: ${to} is not provisioned by any account (never provisioned, or released), so nobody receives it. Provision it first with POST /v1/numbers.`,
      { code: 'conflict', param: 'to' },
    );
  }
  return record;
}

/**
 * Who receives an inbound call to `to` and how: a provisioned number's routing decides
 * (AI receptionist, agent, extension, or a forward: the call then rings, is answered or
 * not, as a call to the target would, scripted behaviour and magic numbers included);
 * the caller's explicit `aiReceptionist` and `behavior` win over it. A number outside
 * the pool keeps the older form: `account` (from `apiKey`) names the account.
 */
export function routeInboundCall(
  deps: { numbers: NumberService; network: Network },
  to: string,
  options: { account?: string; aiReceptionist?: boolean; behavior?: CallBehavior },
): InboundCallRoute {
  const where = 'calls.inbound';
  const record = holder(deps.numbers, to, where);
  const account = record?.account ?? options.account;
  if (account === undefined)
    throw new SandboxError(`${where}: ${to} is not a provisioned number, so give \`apiKey\` to say whose account receives the call.`, {
      code: 'missing_parameter',
      param: 'apiKey',
    });
  if (record && options.account !== undefined && options.account !== record.account)
    throw new SandboxError(
      `${where}: ${to} is provisioned in another account than \`apiKey\`'s; omit apiKey and the number's account receives the call.`,
      { param: 'apiKey' },
    );
  const routing = record?.routing ?? null;
  const forwardedTo = routing?.type === 'forward' ? routing.target : null;
  const behavior: ResolvedBehavior =
    options.behavior !== undefined
      ? resolveBehavior(options.behavior)
      : forwardedTo !== null
        ? deps.network.nextCall(forwardedTo)
        : resolveBehavior({});
  if (routing?.type === 'agent' && behavior.agent === null) behavior.agent = routing.target;
  return {
    account,
    aiReceptionist: options.aiReceptionist ?? routing?.type === 'ai_receptionist',
    behavior,
    extension: routing?.type === 'extension' ? routing.target : null,
  };
}

/** An inbound message to `to` (shape already validated): stored for the account holding the number. */
export function inboundMessage(
  numbers: NumberService,
  message: { from: string; to: string; body: string | null; mediaUrls: string[] },
): MessageInput {
  const where = 'messages.inbound';
  const { to } = message;
  const record = holder(numbers, to, where);
  if (!record)
    throw new SandboxError(`${where}: ${to} is not a provisioned number; send to one from POST /v1/numbers.`, {
      code: 'conflict',
      param: 'to',
    });
  if (!record.smsEnabled)
    throw new SandboxError(
      `${where}: ${to} has SMS disabled, so it receives no messages; enable it with PUT /v1/numbers/${record.id} {"sms": {"enabled": true}}.`,
      { code: 'conflict', param: 'to' },
    );
  if (message.mediaUrls.length > 0 && !record.capabilities.mms)
    throw new SandboxError(`${where}: ${to} (${record.country}) takes no MMS; send a body without mediaUrls.`, {
      code: 'conflict',
      param: 'mediaUrls',
    });
  return { account: record.account, ...message };
}
