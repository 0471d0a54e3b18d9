import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso, isoOrNull } from '../core/time.js';
import { REPORT_AFTER_MS, SENT_AFTER_MS, type MessageOutcome } from '../sim/carrier.js';
import { countSegments } from '../sim/segments.js';
import type { EventBus } from './event-bus.js';
import type { Message, MessageChannel, MessageDirection, MessageStatus } from './resources.js';

export interface MessageRecord extends StoredItem {
  direction: MessageDirection;
  channel: MessageChannel;
  from: string;
  to: string;
  body: string | null;
  mediaUrls: string[];
  template: { id: string; variables: Record<string, string> } | null;
  conversationId: string;
  status: MessageStatus;
  segments: number;
  sentMs: number | null;
  deliveredMs: number | null;
  failedMs: number | null;
}

/** A message to store, already validated. */
export interface MessageInput {
  account: string;
  from: string;
  to: string;
  body: string | null;
  mediaUrls: string[];
  template?: { id: string; variables: Record<string, string> } | null;
}

interface MessageServiceDeps {
  clock: VirtualClock;
  random: SeededRandom;
  bus: EventBus;
}

const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  vcf: 'text/vcard',
  txt: 'text/plain',
};

function contentType(url: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return (extension && CONTENT_TYPES[extension]) ?? 'application/octet-stream';
}

/**
 * Every message of one sandbox, and the conversations they form. An outbound message
 * moves through its lifecycle on plain clock timers rather than a state machine: the
 * path is linear, nothing outside can act on a message once accepted, and so no API
 * request is ever refused by its state (docs/messaging.md).
 */
export class MessageService implements Service {
  readonly store = new Collection<MessageRecord>();
  /** Conversation id by account, account number and remote number. */
  private readonly conversations = new Map<string, string>();

  constructor(private readonly deps: MessageServiceDeps) {}

  /**
   * Stores an outbound message, `queued`, and starts its delivery on the clock; the
   * carrier's report will say `outcome` (taken from the network when the message was accepted).
   */
  send(input: MessageInput, outcome: MessageOutcome): MessageRecord {
    const message = this.insert(input, 'outbound', 'queued', input.from, input.to);
    const { clock } = this.deps;
    clock.setTimeout(() => {
      message.status = 'sent';
      message.sentMs = clock.now();
      // No event tells of `sent` (nor of `failed`, below): the change feed must, or a console keeps it queued.
      this.store.touched(message);
      clock.setTimeout(() => this.report(message, outcome), REPORT_AFTER_MS);
    }, SENT_AFTER_MS);
    return message;
  }

  /** Stores an inbound message, `received`, and emits `message.received` for the account. */
  receive(input: MessageInput): MessageRecord {
    const message = this.insert(input, 'inbound', 'received', input.to, input.from);
    this.deps.bus.publish(message.account, 'message.received', this.toJson(message));
    return message;
  }

  toJson(message: MessageRecord): Message {
    return {
      id: message.id,
      direction: message.direction,
      channel: message.channel,
      from: message.from,
      to: message.to,
      body: message.body,
      media: message.mediaUrls.map((url) => ({ url, content_type: contentType(url) })),
      template: message.template && { id: message.template.id, variables: { ...message.template.variables } },
      conversation_id: message.conversationId,
      status: message.status,
      segments: message.segments,
      created_at: message.createdAt,
      sent_at: isoOrNull(message.sentMs),
      delivered_at: isoOrNull(message.deliveredMs),
      failed_at: isoOrNull(message.failedMs),
    };
  }

  /** Forgets every message and conversation (pending timers belong to the clock, which stops too). */
  reset(): void {
    this.store.clear();
    this.conversations.clear();
  }

  private insert(input: MessageInput, direction: MessageDirection, status: MessageStatus, own: string, remote: string): MessageRecord {
    const { clock, random } = this.deps;
    const channel: MessageChannel = input.mediaUrls.length > 0 ? 'mms' : 'sms';
    const key = `${input.account}\n${own}\n${remote}`;
    let conversationId = this.conversations.get(key);
    if (conversationId === undefined) this.conversations.set(key, (conversationId = random.id('conv')));
    return this.store.insert({
      id: random.id('msg'),
      account: input.account,
      seq: this.store.allocateSeq(),
      createdMs: clock.now(),
      createdAt: iso(clock.now()),
      direction,
      channel,
      from: input.from,
      to: input.to,
      body: input.body,
      mediaUrls: [...input.mediaUrls],
      template: input.template ?? null,
      conversationId,
      status,
      segments: channel === 'mms' ? 1 : countSegments(input.body ?? ''),
      sentMs: null,
      deliveredMs: null,
      failedMs: null,
    });
  }

  private report(message: MessageRecord, outcome: MessageOutcome): void {
    const now = this.deps.clock.now();
    if (outcome === 'failed') {
      message.status = 'failed';
      message.failedMs = now;
      this.store.touched(message);
      return;
    }
    message.status = 'delivered';
    message.deliveredMs = now;
    this.deps.bus.publish(message.account, 'message.delivered', this.toJson(message));
  }
}
