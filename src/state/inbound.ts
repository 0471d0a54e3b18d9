import { SandboxError } from '../core/errors.js';
import type { NumberRecord, NumberService } from './numbers.js';
import { MAX_BODY_CHARS } from './templates.js';
import type { MessageInput } from './messages.js';
import { checkBehavior, checkNumber, resolveBehavior, type CallBehavior, type Network, type ResolvedBehavior } from './network.js';

/** Options of `sandbox.messages.inbound`. */
export interface InboundMessageOptions {
  /** The sender: any E.164 number. */
  from: string;
  /** A provisioned number with SMS enabled; its account receives the message. */
  to: string;
  /** The text. A message needs `body` and/or `mediaUrls`. */
  body?: string;
  /** https URLs of attachments (at most 10); any makes it an MMS. */
  mediaUrls?: string[];
}

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
    throw new SandboxError(`${where}: ${to} is not provisioned by any account (never provisioned, or released), so nobody receives it. Provision it first with POST /v1/numbers.`);
  }
  return record;
}

/**
 * Who receives an inbound call to `to` and how: a provisioned number's routing decides
 * (AI receptionist, agent, extension, or a forward: the call then rings, is answered or
 * not, as a call to the target would, scripted behaviour and magic numbers included);
 * the caller's explicit `aiReceptionist` and `behavior` win over it. A number outside
 * the pool keeps the older form: `apiKey` names the account. See docs/numbers.md.
 */
export function routeInboundCall(
  deps: { numbers: NumberService; network: Network },
  to: string,
  options: { account?: string; aiReceptionist?: boolean; behavior?: CallBehavior },
): InboundCallRoute {
  const where = 'calls.inbound';
  const record = holder(deps.numbers, to, where);
  if (!record && options.account === undefined)
    throw new SandboxError(`${where}: ${to} is not a provisioned number, so give \`apiKey\` to say whose account receives the call.`);
  if (record && options.account !== undefined && options.account !== record.account)
    throw new SandboxError(`${where}: ${to} is provisioned in another account than \`apiKey\`'s; omit apiKey and the number's account receives the call.`);
  const routing = record?.routing ?? null;
  const explicit = options.behavior === undefined ? undefined : checkBehavior(options.behavior, `${where}: behavior`);
  const forwardedTo = routing?.type === 'forward' ? routing.target : null;
  const behavior: ResolvedBehavior =
    explicit !== undefined ? resolveBehavior(explicit) : forwardedTo !== null ? deps.network.nextCall(forwardedTo) : resolveBehavior({});
  if (routing?.type === 'agent' && behavior.agent === null) behavior.agent = routing.target;
  return {
    account: record?.account ?? options.account!,
    aiReceptionist: options.aiReceptionist ?? routing?.type === 'ai_receptionist',
    behavior,
    extension: routing?.type === 'extension' ? routing.target : null,
  };
}

/** Validates `sandbox.messages.inbound` options into a message to store for the number's account. */
export function inboundMessage(numbers: NumberService, options: InboundMessageOptions): MessageInput {
  const where = 'messages.inbound';
  if (options === null || typeof options !== 'object')
    throw new SandboxError(`${where}: pass an object such as { from: '+14155550123', to: '<your number>', body: 'hi' }.`);
  const known = ['from', 'to', 'body', 'mediaUrls'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new SandboxError(`${where}: unknown option '${key}'; use ${known.join(', ')}.`);
  }
  const from = checkNumber(options.from, `${where}: from`);
  const to = checkNumber(options.to, `${where}: to`);
  const { body, mediaUrls = [] } = options;
  if (body !== undefined && (typeof body !== 'string' || body.length === 0 || body.length > MAX_BODY_CHARS))
    throw new SandboxError(`${where}: body must be a text of 1 to ${MAX_BODY_CHARS} characters.`);
  if (!Array.isArray(mediaUrls) || mediaUrls.length > 10)
    throw new SandboxError(`${where}: mediaUrls must be an array of at most 10 https URLs.`);
  for (const url of mediaUrls) {
    if (typeof url !== 'string' || !URL.canParse(url) || new URL(url).protocol !== 'https:')
      throw new SandboxError(`${where}: mediaUrls: ${JSON.stringify(url)} is not an https URL; write e.g. 'https://example.com/cat.jpg'.`);
  }
  if (body === undefined && mediaUrls.length === 0) throw new SandboxError(`${where}: give a body and/or mediaUrls.`);
  const record = holder(numbers, to, where);
  if (!record) throw new SandboxError(`${where}: ${to} is not a provisioned number; send to one from POST /v1/numbers.`);
  if (!record.smsEnabled)
    throw new SandboxError(`${where}: ${to} has SMS disabled, so it receives no messages; enable it with PUT /v1/numbers/${record.id} {"sms": {"enabled": true}}.`);
  if (mediaUrls.length > 0 && !record.capabilities.mms)
    throw new SandboxError(`${where}: ${to} (${record.country}) takes no MMS; send a body without mediaUrls.`);
  return { account: record.account, from, to, body: body ?? null, mediaUrls };
}
