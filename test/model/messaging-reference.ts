import { expect } from 'vitest';
import type { Driver } from './driver.js';

/**
 * The reference model of numbers and messages for messaging-model.test.ts: the pool as a
 * fresh search shows it, who holds which number, each message's status by virtual time
 * (queued → sent at +1 s → delivered or failed at +3 s; inbound `received`), conversations
 * as (account, account number, remote number), and inbound calls by the number's routing.
 * The tables list the inputs the steps draw from, each with what the API must answer.
 */

export interface PoolEntry {
  number: string;
  kind: string;
  country: string;
  area_code: string;
  capabilities: { voice: boolean; sms: boolean; mms: boolean };
  status: 'available';
  /** Place in the pool's order. */
  index: number;
}

type Query = Record<string, string>;

/** Search filters (GET /v1/numbers); `refused` ones are 400. */
export const SEARCHES: Array<{ query: Query; refused?: true }> = [
  { query: {} },
  { query: { kind: 'local' } },
  { query: { kind: 'toll_free', area_code: '888' } },
  { query: { country: 'de' } },
  { query: { country: 'FR' } },
  { query: { contains: '77' } },
  { query: { contains: 'CAFE' } },
  { query: { kind: 'international', contains: '2*2' } },
  { query: { kind: 'mobile' }, refused: true },
  { query: { contains: '5-5' }, refused: true },
  { query: { created_after: '2026-01-01T00:00:00Z' }, refused: true },
];

/** Provisioning criteria (POST /v1/numbers without `number`); `refused` ones are 400. */
export const CRITERIA: Array<{ query: Query; refused?: true }> = [
  { query: { kind: 'local' } },
  { query: { kind: 'toll_free' } },
  { query: { kind: 'international' } },
  { query: { country: 'CA' } },
  { query: { country: 'gb' } },
  { query: { kind: 'local', country: 'US', area_code: '415' } },
  { query: { area_code: '800' } },
  { query: { contains: '77' } },
  { query: { contains: '2*2*2' } },
  { query: { country: 'FR' } },
  { query: { kind: 'toll_free', country: 'GB' } },
  { query: { kind: 'mobile' }, refused: true },
  { query: { area_code: '41a' }, refused: true },
];

type Refusal = { status: number; code: string; stage: 'schema' | 'semantic' };

/**
 * Configurations for POST (beside the number) and PUT. "SELF" stands for the number being
 * configured. A `schema` refusal comes before the number is looked up (PUT: before 404),
 * a `semantic` one after. A routing's target is checked by its type in the schema (the OpenAPI
 * document says so with `if`/`then`); only what depends on the number itself or the network
 * (forwarding to itself, to an unreachable number) is semantic.
 */
export const CONFIGS: Array<{ body: Record<string, unknown>; refused?: Refusal }> = [
  { body: { routing: { type: 'agent', target: 'maria' } } },
  { body: { routing: { type: 'extension', target: '204' } } },
  { body: { routing: { type: 'forward', target: '+14155550123' } } },
  { body: { routing: { type: 'forward', target: '+15005550002' } } },
  { body: { routing: { type: 'ai_receptionist' } } },
  { body: { routing: null, caller_id: null } },
  { body: { caller_id: { name: 'Acme Dental' } } },
  { body: { sms: { enabled: false } } },
  { body: { sms: { enabled: true } } },
  { body: { routing: { type: 'agent', target: 'li' }, caller_id: { name: 'Front desk' }, sms: { enabled: true } } },
  { body: {}, refused: { status: 400, code: 'missing_parameter', stage: 'schema' } }, // PUT refuses an empty body; for POST it is no configuration
  { body: { routing: { type: 'voicemail' } }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { body: { caller_id: { name: 'A name far too long' } }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { body: { sms: { enabled: 'yes' } }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { body: { sms: null }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { body: { routing: { type: 'agent', target: 'maria', extra: 1 } }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { body: { routing: { type: 'agent' } }, refused: { status: 400, code: 'missing_parameter', stage: 'schema' } },
  { body: { routing: { type: 'extension', target: 'front' } }, refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  {
    body: { sms: { enabled: false }, caller_id: { name: 'Half applied' }, routing: { type: 'extension', target: 'front' } },
    refused: { status: 400, code: 'invalid_parameter', stage: 'schema' },
  },
  {
    body: { routing: { type: 'forward', target: '+15005550001' } },
    refused: { status: 422, code: 'unreachable_destination', stage: 'semantic' },
  },
  { body: { routing: { type: 'forward', target: 'SELF' } }, refused: { status: 400, code: 'invalid_parameter', stage: 'semantic' } },
];

/** `to` of POST /v1/messages: "SELF" is `from`, "HELD" a number some account holds. */
export const DESTINATIONS: Array<{ to: string; refused?: Refusal; failed?: true }> = [
  { to: '+14155550123' },
  { to: '+447700900123' },
  { to: 'HELD' },
  { to: '+15005550009', failed: true },
  { to: '+15005550001', refused: { status: 422, code: 'unreachable_destination', stage: 'semantic' } },
  { to: '+9995550100', refused: { status: 422, code: 'unreachable_destination', stage: 'semantic' } },
  { to: '4155550123', refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
  { to: 'SELF', refused: { status: 400, code: 'invalid_parameter', stage: 'schema' } },
];

const CAT = 'https://example.com/cat.jpg';
const MENU = 'https://example.com/menu.pdf';
export const CONTENT_TYPES: Record<string, string> = {
  [CAT]: 'image/jpeg',
  [MENU]: 'application/pdf',
  'https://example.com/pic.png': 'image/png',
};

/** What a message carries, and what it becomes: its text (templates rendered), media and segments. */
export interface Content {
  body: Record<string, unknown>;
  refused?: true;
  text?: string | null;
  media?: string[];
  template?: { id: string; variables: Record<string, string> } | null;
  segments?: number;
}

/** Contents of POST /v1/messages; `refused` ones are 400 before anything else is looked at. */
export const CONTENTS: Content[] = [
  { body: { body: 'Hi there' }, text: 'Hi there', segments: 1 },
  { body: { body: 'a'.repeat(200) }, text: 'a'.repeat(200), segments: 2 },
  { body: { body: 'Olá 👋' }, text: 'Olá 👋', segments: 1 },
  { body: { media_urls: [CAT] }, text: null, media: [CAT], segments: 1 },
  { body: { body: 'Look', media_urls: [CAT, MENU] }, text: 'Look', media: [CAT, MENU], segments: 1 },
  {
    body: { template: { id: 'verification_code', variables: { code: 123456 } } },
    text: 'Your verification code is 123456. It expires in 10 minutes.',
    template: { id: 'verification_code', variables: { code: '123456' } },
    segments: 1,
  },
  {
    body: { template: { id: 'missed_call', variables: { name: 'Ada' } }, media_urls: [CAT] },
    text: 'Sorry we missed your call, Ada. We will call you back shortly.',
    media: [CAT],
    template: { id: 'missed_call', variables: { name: 'Ada' } },
    segments: 1,
  },
  { body: {}, refused: true },
  { body: { media_urls: [] }, refused: true },
  { body: { body: '' }, refused: true },
  { body: { body: 'x', template: { id: 'verification_code', variables: { code: '1' } } }, refused: true },
  { body: { template: { id: 'verifcation_code', variables: { code: '1' } } }, refused: true },
  { body: { template: { id: 'verification_code' } }, refused: true },
  { body: { template: { id: 'verification_code', variables: { code: '1', name: 'x' } } }, refused: true },
  { body: { media_urls: ['http://example.com/a.jpg'] }, refused: true },
];

/** Options of `sandbox.messages.inbound` besides from and to. */
export const INBOUND_CONTENTS: Array<{ options: { body?: string; mediaUrls?: string[] }; text: string | null; media: string[] }> = [
  { options: { body: 'Running late' }, text: 'Running late', media: [] },
  { options: { mediaUrls: ['https://example.com/pic.png'] }, text: null, media: ['https://example.com/pic.png'] },
  { options: { body: 'See pic', mediaUrls: ['https://example.com/pic.png'] }, text: 'See pic', media: ['https://example.com/pic.png'] },
];
/** Senders of inbound traffic; "HELD" is a number some account holds. */
export const REMOTES = ['+14155550123', '+447700900123', 'HELD'];
/** A number outside the pool (US exchange 555 never is in it). */
export const OUTSIDE = '+14155550100';

const KEYPAD: Record<string, string> = Object.fromEntries(
  ['ABC', 'DEF', 'GHI', 'JKL', 'MNO', 'PQRS', 'TUV', 'WXYZ'].flatMap((letters, i) => [...letters].map((l) => [l, String(i + 2)])),
);

/** Whether a pool entry passes search filters or provisioning criteria (docs/numbers.md). */
export function matches(query: Query, entry: PoolEntry): boolean {
  if (query.kind !== undefined && entry.kind !== query.kind) return false;
  if (query.country !== undefined && entry.country !== query.country.toUpperCase()) return false;
  if (query.area_code !== undefined && entry.area_code !== query.area_code) return false;
  if (query.contains === undefined) return true;
  const digits = [...query.contains.toUpperCase()].map((c) => (c === '*' ? '\\d' : (KEYPAD[c] ?? c))).join('');
  return new RegExp(digits).test(entry.number.slice(1));
}

export interface ModelNumber {
  id: string;
  account: number;
  entry: PoolEntry;
  created: number;
  routing: { type: string; target: string | null } | null;
  callerId: string | null;
  sms: boolean;
  released: boolean;
}

export interface ModelMessage {
  id: string;
  account: number;
  direction: 'outbound' | 'inbound';
  from: string;
  to: string;
  text: string | null;
  media: string[];
  template: { id: string; variables: Record<string, string> } | null;
  conversationId: string;
  segments: number;
  created: number;
  /** How an outbound message ends. */
  outcome: 'delivered' | 'failed' | 'received';
}

export interface ModelCall {
  id: string;
  account: number;
  created: number;
  answeredAt?: number;
  endedAt: number;
  disposition: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, failed: 2, received: 0 };

export class MessagingModel {
  pool: PoolEntry[] = [];
  private readonly poolIndex = new Map<string, PoolEntry>();
  /** Every number ever provisioned, in order (released ones stay, flagged). */
  readonly numbers: ModelNumber[] = [];
  private readonly held = new Map<string, ModelNumber>();
  readonly messages: ModelMessage[] = [];
  readonly calls: ModelCall[] = [];
  /** Conversation id by `account\nown number\nremote number`. */
  readonly conversations = new Map<string, string>();
  /** Each key's last search that has more pages: its filters, cursor and the pool index of its last item. */
  readonly searches = new Map<number, { query: Query; cursor: string; last: number }>();
  /** Each key's message walk left half-way: its filters, cursor and the last message served. */
  readonly pagings = new Map<number, { direction?: string; status?: string; cursor: string; last: string }>();
  private readonly lastStatus = new Map<string, string>();
  /** Scripted message outcomes per destination: the standing one, and one-shot ones queued. */
  readonly messageStanding = new Map<string, 'delivered' | 'failed'>();
  readonly messageQueued = new Map<string, Array<'delivered' | 'failed'>>();

  constructor(private readonly driver: Driver) {}

  /** The outcome of a message accepted for `to` now: a queued one (used up), the standing one, the magic number, or delivered. */
  nextOutcome(to: string, magicFailed: boolean): 'delivered' | 'failed' {
    const queued = this.messageQueued.get(to)?.shift();
    return queued ?? this.messageStanding.get(to) ?? (magicFailed ? 'failed' : 'delivered');
  }

  get now(): number {
    return this.driver.now;
  }

  setPool(items: Array<Omit<PoolEntry, 'index'>>): void {
    this.pool = items.map((item, index) => ({ ...item, index }));
    for (const entry of this.pool) this.poolIndex.set(entry.number, entry);
  }

  inPool(number: string): PoolEntry | undefined {
    return this.poolIndex.get(number);
  }

  holderOf(number: string): ModelNumber | undefined {
    return this.held.get(number);
  }

  heldNumbers(): ModelNumber[] {
    return [...this.held.values()];
  }

  live(account: number): ModelNumber[] {
    return this.numbers.filter((n) => !n.released && n.account === account);
  }

  /** Pool entries from `from` on, nobody holds, passing `query`, in pool order. */
  available(query: Query, from = 0): PoolEntry[] {
    return this.pool.filter((e) => e.index >= from && !this.held.has(e.number) && matches(query, e));
  }

  provision(id: string, account: number, entry: PoolEntry, config: Record<string, unknown>): ModelNumber {
    expect(this.held.has(entry.number), `${entry.number} provisioned twice`).toBe(false);
    const n: ModelNumber = {
      id,
      account,
      entry,
      created: this.now,
      routing: null,
      callerId: null,
      sms: entry.capabilities.sms,
      released: false,
    };
    this.configure(n, config);
    this.numbers.push(n);
    this.held.set(entry.number, n);
    return n;
  }

  configure(n: ModelNumber, config: Record<string, any>): void {
    if ('routing' in config)
      n.routing = config.routing === null ? null : { type: config.routing.type, target: config.routing.target ?? null };
    if ('caller_id' in config) n.callerId = config.caller_id === null ? null : config.caller_id.name;
    if ('sms' in config) n.sms = config.sms.enabled;
  }

  release(n: ModelNumber): void {
    n.released = true;
    this.held.delete(n.entry.number);
  }

  numberJson(n: ModelNumber) {
    const { index: _, status: __, ...entry } = n.entry;
    return {
      id: n.id,
      ...entry,
      routing: n.routing,
      caller_id: n.callerId === null ? null : { name: n.callerId },
      sms: { enabled: n.sms },
      status: 'provisioned',
      created_at: iso(n.created),
    };
  }

  availableJson(entry: PoolEntry) {
    const { index: _, ...json } = entry;
    return json;
  }

  /**
   * The conversation of (account, own, remote): the id the sandbox gave the first message
   * of the pair, which no other pair may carry.
   */
  conversation(account: number, own: string, remote: string, given: string): string {
    const key = `${account}\n${own}\n${remote}`;
    const known = this.conversations.get(key);
    if (known !== undefined) expect(given, `conversation of ${key}`).toBe(known);
    else {
      expect([...this.conversations.values()], `${given} reused for another pair`).not.toContain(given);
      this.conversations.set(key, given);
    }
    return given;
  }

  messageStatus(m: ModelMessage): string {
    if (m.direction === 'inbound') return 'received';
    const age = this.now - m.created;
    return age < 1_000 ? 'queued' : age < 3_000 ? 'sent' : m.outcome;
  }

  messageJson(m: ModelMessage) {
    const status = this.messageStatus(m);
    const outbound = m.direction === 'outbound';
    return {
      id: m.id,
      direction: m.direction,
      channel: m.media.length > 0 ? 'mms' : 'sms',
      from: m.from,
      to: m.to,
      body: m.text,
      media: m.media.map((url) => ({ url, content_type: CONTENT_TYPES[url] })),
      template: m.template,
      conversation_id: m.conversationId,
      status,
      segments: m.segments,
      created_at: iso(m.created),
      sent_at: outbound && status !== 'queued' ? iso(m.created + 1_000) : null,
      delivered_at: status === 'delivered' ? iso(m.created + 3_000) : null,
      failed_at: status === 'failed' ? iso(m.created + 3_000) : null,
    };
  }

  /** Checks a message as the API showed it against the model, and that its status only moved forward. */
  observe(json: any): void {
    const m = this.messages.find((x) => x.id === json.id);
    expect(m, `unknown message ${json.id}`).toBeDefined();
    expect(json).toEqual(this.messageJson(m!));
    const before = this.lastStatus.get(json.id) ?? json.status;
    const moved = before === json.status || (RANK[before]! < RANK[json.status]! && before !== 'received');
    expect(moved, `${json.id}: ${before} → ${json.status}`).toBe(true);
    this.lastStatus.set(json.id, json.status);
  }

  callStatus(c: ModelCall): string {
    if (c.endedAt <= this.now) return 'completed';
    if (c.answeredAt !== undefined && c.answeredAt <= this.now) return 'answered';
    return 'ringing';
  }
}
