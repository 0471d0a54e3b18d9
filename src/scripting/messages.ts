import { missing, object, optional, phoneNumber, type Schema } from '../core/schema.js';
import { inboundMessage } from '../state/inbound.js';
import { mediaUrls, messageText } from '../state/message-content.js';
import type { MessageService } from '../state/messages.js';
import type { NumberService } from '../state/numbers.js';
import type { Message } from '../state/resources.js';
import { act, check, type ControlContext, change, read } from './context.js';

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

/** The same content rules as POST /v1/messages (src/state/message-content.ts). */
export const inboundMessageOptions = object(
  {
    from: phoneNumber('The sender.'),
    to: phoneNumber('A provisioned number with SMS enabled.'),
    body: optional(messageText),
    mediaUrls: optional(mediaUrls),
  },
  {
    description: 'An inbound SMS or MMS.',
    label: 'option',
    check: (value) => {
      if (value.body === undefined && !value.mediaUrls?.length) throw missing('give a body and/or mediaUrls.', 'body');
    },
  },
) satisfies Schema<InboundMessageOptions>;

/** `sandbox.messages`: messaging traffic, scripted (docs/messaging.md). */
export interface MessageScripting {
  /**
   * Delivers an SMS (or, with `mediaUrls`, an MMS) from any number to a provisioned,
   * SMS-enabled number now: stored as inbound, `received`, in the conversation of the
   * two numbers, and `message.received` is emitted for the number's account.
   */
  inbound(options: InboundMessageOptions): Message;
  /** The message as the API would show it, or undefined. Any account. */
  get(id: string): Message | undefined;
}

/**
 * Builds `sandbox.messages`.
 *
 * @example
 * const msg = sandbox.messages.inbound({ from: '+14155550123', to: myNumber, body: 'STOP' });
 * msg.status;                     // 'received'; message.received was emitted for the number's account
 * sandbox.messages.get(msg.id);   // the message as the API shows it
 */
export function messageScripting(ctx: ControlContext, messages: MessageService, numbers: NumberService): MessageScripting {
  return {
    inbound: change(ctx, 'messages.inbound', (options) =>
      act(ctx, 'deliver an inbound message', () => {
        const input = check(inboundMessageOptions, options, 'messages.inbound');
        const message = inboundMessage(numbers, {
          from: input.from,
          to: input.to,
          body: input.body ?? null,
          mediaUrls: input.mediaUrls ?? [],
        });
        return messages.toJson(messages.receive(message));
      }),
    ),
    get: read((id) => {
      const message = messages.store.find(id);
      return message && messages.toJson(message);
    }),
  };
}
