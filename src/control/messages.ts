import { inboundMessage, type InboundMessageOptions } from '../state/inbound.js';
import type { Message, MessageService } from '../state/messages.js';
import type { NumberService } from '../state/numbers.js';

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
export function messageScripting(messages: MessageService, numbers: NumberService, assertOpen: (what: string) => void): MessageScripting {
  return {
    inbound: (options) => {
      assertOpen('deliver an inbound message');
      return messages.toJson(messages.receive(inboundMessage(numbers, options)));
    },
    get: (id) => {
      const message = messages.store.find(id);
      return message && messages.toJson(message);
    },
  };
}
