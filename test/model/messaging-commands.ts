import fc from 'fast-check';
import { expect } from 'vitest';
import { Driver, KEYS } from './driver.js';
import {
  CONFIGS,
  CONTENTS,
  CRITERIA,
  DESTINATIONS,
  INBOUND_CONTENTS,
  type MessagingModel,
  OUTSIDE,
  REMOTES,
  SEARCHES,
  type ModelNumber,
} from './messaging-reference.js';
import { stepArb, type Step, type Target } from './messaging-steps.js';

/**
 * The steps of messaging-model.test.ts as fast-check commands: what each one sends or scripts,
 * and what the reference model (messaging-reference.ts) says must come back. A step that needs
 * something the model does not have yet (a number to update, a call to fetch, a search to go on
 * with) is skipped by its check().
 */

/** The system under test as the commands see it: the driver, plus which commands were refused. */
export class MessagingRun extends Driver {
  /** Whether the command running now was refused (a 4xx, or a scripting call that threw). */
  refused = false;
  /** The commands that ran, in order, and the ones among them that were refused. */
  readonly executed: MessagingCommand[] = [];
  readonly refusedCommands = new Set<MessagingCommand>();
  /** Indexes of the transcript lines written by refused commands. */
  readonly refusedLines = new Set<number>();
}

type Of<K extends Step['kind']> = Extract<Step, { kind: K }>;
interface Handler<S extends Step> {
  /** Whether the step can run in the model's state (default: always). */
  check?: (model: Readonly<MessagingModel>, step: S) => boolean;
  run: (model: MessagingModel, d: MessagingRun, step: S) => Promise<void>;
}

const at = <T>(list: readonly T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);
const query = (q: Record<string, string | number | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
const substitute = (body: Record<string, unknown>, self: string): Record<string, unknown> =>
  JSON.parse(JSON.stringify(body).replaceAll('"SELF"', JSON.stringify(self)));
const remote = (model: MessagingModel, name: string, not: string, n: number) =>
  name === 'HELD'
    ? (at(
        model.heldNumbers().filter((h) => h.entry.number !== not),
        n,
      )?.entry.number ?? '+14155550123')
    : name;

/** Checks one page of a search, from pool index `from`, and keeps its cursor for searchMore. */
function checkSearch(model: MessagingModel, k: number, q: Record<string, string>, from: number, limit: number, body: any): void {
  const candidates = model.available(q, from);
  expect(body.data).toEqual(candidates.slice(0, limit).map((e) => model.availableJson(e)));
  expect(body.has_more).toBe(candidates.length > limit);
  if (body.has_more) model.searches.set(k, { query: q, cursor: body.next_cursor, last: candidates[limit - 1]!.index });
  else model.searches.delete(k);
}

/** The answer must be this refusal; the command is marked refused. */
function refusedWith(d: MessagingRun, res: { status: number; body: any }, status: number, code?: string): void {
  d.refused = true;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  if (code) expect(res.body.error.code).toBe(code);
}

/** The number an inbound step rings or texts: one the model knows (held or released), a pool number, or one outside the pool. */
function targetNumber(model: Readonly<MessagingModel>, target: Target, n: number): string {
  if (target === 'outside') return OUTSIDE;
  const known: ModelNumber | undefined =
    target === 'number' ? at(model.numbers, n) : target === 'latest' ? model.numbers.at(-1) : undefined;
  return known?.entry.number ?? at(model.pool, n)!.number;
}

/** The number an update or release step acts on: one of the key's own (mostly), or any the model knows. */
const numberFor = (model: Readonly<MessagingModel>, step: Of<'update'> | Of<'release'>) =>
  step.mine ? at(model.live(step.key), step.pick) : at(model.numbers, step.pick);
/** The call a fetchCall step asks for: one of the key's own (mostly), or any. */
const callFor = (model: Readonly<MessagingModel>, step: Of<'fetchCall'>) =>
  at(step.mine ? model.calls.filter((x) => x.account === step.key) : model.calls, step.pick);

const HANDLERS: { [K in Step['kind']]: Handler<Of<K>> } = {
  search: {
    run: async (model, d, step) => {
      const s = SEARCHES[step.search]!;
      const res = await d.request(step.key, 'GET', `/v1/numbers?${query({ ...s.query, limit: step.limit })}`);
      if (res.limited) return;
      if (s.refused) refusedWith(d, res, 400, 'invalid_parameter');
      else checkSearch(model, step.key, s.query, 0, step.limit, res.body);
    },
  },
  searchMore: {
    check: (model, step) => model.searches.has(step.key),
    run: async (model, d, step) => {
      const state = model.searches.get(step.key)!;
      // Sometimes another key presents the cursor: it is not a cursor of that account's list.
      const who = (step.key + step.as) % 3;
      const res = await d.request(who, 'GET', `/v1/numbers?${query({ ...state.query, limit: step.limit, cursor: state.cursor })}`);
      if (res.limited) return;
      if (who !== step.key) refusedWith(d, res, 400, 'invalid_parameter');
      else checkSearch(model, step.key, state.query, state.last + 1, step.limit, res.body);
    },
  },
  provision: {
    run: async (model, d, step) => {
      const config = step.config === undefined ? undefined : CONFIGS[step.config]!;
      const criteria = CRITERIA[step.criteria]!;
      let number: string | undefined;
      if (step.how === 'held') number = at(model.heldNumbers(), step.pick)?.entry.number;
      if (step.how === 'released')
        number = at(
          model.numbers.filter((n) => n.released),
          step.pick,
        )?.entry.number;
      if (step.how === 'outside') number = OUTSIDE;
      number ??= at(model.pool, step.pick)!.number;
      const byCriteria = step.how === 'criteria';
      // The number the request should get, if any.
      const entry = byCriteria ? (criteria.refused ? undefined : model.available(criteria.query)[0]) : model.inPool(number);
      const own = byCriteria ? (entry?.number ?? '+14155550123') : number;
      const settings = config && Object.keys(config.body).length > 0 ? substitute(config.body, own) : {};
      const body = { ...(byCriteria ? criteria.query : { number }), ...(step.how === 'both' ? { kind: 'local' } : {}), ...settings };
      const res = await d.request(step.key, 'POST', '/v1/numbers', body);
      if (res.limited) return;
      const refusal = config && Object.keys(config.body).length > 0 ? config.refused : undefined;
      // A forward to "SELF" by criteria is refused only once the number is picked: the request names no number before.
      const deferred = byCriteria && config !== undefined && JSON.stringify(config.body).includes('SELF');
      if (step.how === 'both' || (byCriteria && criteria.refused) || refusal?.stage === 'schema') refusedWith(d, res, 400);
      else if (refusal && !deferred) refusedWith(d, res, refusal.status, refusal.code);
      else if (!entry || model.holderOf(entry.number)) refusedWith(d, res, 422, 'number_unavailable');
      else if (refusal) refusedWith(d, res, refusal.status, refusal.code);
      else {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const n = model.provision(res.body.id, step.key, entry, settings);
        expect(res.body).toEqual(model.numberJson(n));
      }
    },
  },
  update: {
    check: (model, step) => numberFor(model, step) !== undefined,
    run: async (model, d, step) => {
      const n = numberFor(model, step)!;
      const config = CONFIGS[step.config]!;
      const body = substitute(config.body, n.entry.number);
      const res = await d.request(step.key, 'PUT', `/v1/numbers/${n.id}`, body);
      if (res.limited) return;
      if (config.refused?.stage === 'schema') refusedWith(d, res, config.refused.status, config.refused.code);
      else if (n.released || n.account !== step.key) refusedWith(d, res, 404, 'not_found');
      else if (config.refused) refusedWith(d, res, config.refused.status, config.refused.code);
      else {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        model.configure(n, body);
        expect(res.body).toEqual(model.numberJson(n));
      }
    },
  },
  release: {
    check: (model, step) => numberFor(model, step) !== undefined,
    run: async (model, d, step) => {
      const n = numberFor(model, step)!;
      const res = await d.request(step.key, 'DELETE', `/v1/numbers/${n.id}`);
      if (res.limited) return;
      if (n.released || n.account !== step.key) refusedWith(d, res, 404, 'not_found');
      else {
        expect(res.status).toBe(204);
        model.release(n);
      }
    },
  },
  send: {
    run: async (model, d, step) => {
      const mine = model.live(step.key);
      // "latest" favours the key's newest number, perhaps one another account held before.
      const own = step.from === 'own' ? at(mine, step.pick) : step.from === 'latest' ? mine.at(-1) : undefined;
      const from = own?.entry.number ?? (step.from === 'outside' ? OUTSIDE : (at(model.numbers, step.pick)?.entry.number ?? OUTSIDE));
      const dest = DESTINATIONS[step.to]!;
      const to = dest.to === 'SELF' ? from : remote(model, dest.to, from, step.pick >> 3);
      const content = CONTENTS[step.content]!;
      const res = await d.request(step.key, 'POST', '/v1/messages', { from, to, ...content.body });
      if (res.limited) return;
      const holder = model.holderOf(from);
      if (dest.refused?.stage === 'schema' || content.refused) refusedWith(d, res, 400);
      else if (!holder || holder.account !== step.key || !holder.sms || (content.media && !holder.entry.capabilities.mms))
        refusedWith(d, res, 422, 'number_not_provisioned');
      else if (dest.refused) refusedWith(d, res, dest.refused.status, dest.refused.code);
      else {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        model.messages.push({
          id: res.body.id,
          account: step.key,
          direction: 'outbound',
          from,
          to,
          text: content.text ?? null,
          media: content.media ?? [],
          template: content.template ?? null,
          conversationId: model.conversation(step.key, from, to, res.body.conversation_id),
          segments: content.segments!,
          created: d.now,
          outcome: model.nextOutcome(to, dest.failed === true),
        });
        model.observe(res.body);
      }
    },
  },
  inboundMessage: {
    run: async (model, d, step) => {
      const to = targetNumber(model, step.target, step.pick);
      const from = remote(model, REMOTES[step.from]!, to, step.pick >> 3);
      const content = INBOUND_CONTENTS[step.content]!;
      const holder = model.holderOf(to);
      const fails = !holder?.sms || (content.media.length > 0 && !holder.entry.capabilities.mms);
      if (fails) {
        expect(() => d.sandbox.messages.inbound({ from, to, ...content.options })).toThrow(/messages\.inbound/);
        d.refused = true;
        d.note(`inbound message ${from} → ${to} refused`);
        return;
      }
      const json = d.sandbox.messages.inbound({ from, to, ...content.options });
      d.note(`inbound message ${JSON.stringify(json)}`);
      model.messages.push({
        id: json.id,
        account: holder.account,
        direction: 'inbound',
        from,
        to,
        text: content.text,
        media: content.media,
        template: null,
        conversationId: model.conversation(holder.account, to, from, json.conversation_id),
        segments: 1,
        created: d.now,
        outcome: 'received',
      });
      model.observe(json);
    },
  },
  inboundCall: {
    run: async (model, d, step) => {
      const to = targetNumber(model, step.target, step.pick);
      const holder = model.holderOf(to);
      const account = holder
        ? step.apiKey === undefined || step.apiKey === holder.account
          ? holder.account
          : undefined
        : model.inPool(to)
          ? undefined
          : step.apiKey;
      const call = () =>
        d.sandbox.calls.inbound({ from: '+14155550123', to, ...(step.apiKey === undefined ? {} : { apiKey: KEYS[step.apiKey] }) });
      if (account === undefined) {
        expect(call).toThrow(/calls\.inbound/);
        d.refused = true;
        d.note(`inbound call → ${to} refused`);
        return;
      }
      const json = call();
      d.note(`inbound call ${JSON.stringify(json)}`);
      const routing = holder?.routing ?? null;
      expect(json).toMatchObject({
        status: 'ringing',
        direction: 'inbound',
        from: '+14155550123',
        to,
        ai_receptionist: routing?.type === 'ai_receptionist',
        agent: routing?.type === 'agent' ? routing.target : null,
        extension: routing?.type === 'extension' ? routing.target : null,
        created_at: new Date(d.now).toISOString(),
      });
      const busy = routing?.type === 'forward' && routing.target === '+15005550002';
      model.calls.push(
        busy
          ? { id: json.id, account, created: d.now, endedAt: d.now + 1_000, disposition: 'busy' }
          : { id: json.id, account, created: d.now, answeredAt: d.now + 5_000, endedAt: d.now + 65_000, disposition: 'answered' },
      );
    },
  },
  fetchCall: {
    check: (model, step) => callFor(model, step) !== undefined,
    run: async (model, d, step) => {
      const c = callFor(model, step)!;
      const res = await d.request(step.key, 'GET', `/v1/calls/${c.id}`);
      if (res.limited) return;
      if (c.account !== step.key) refusedWith(d, res, 404, 'not_found');
      else {
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(model.callStatus(c));
        if (res.body.status === 'completed') expect(res.body.disposition).toBe(c.disposition);
      }
    },
  },
  listMessages: {
    run: async (model, d, step) => {
      const conversation = step.conversation ? at([...model.conversations.values()], step.pick) : undefined;
      const after = step.after === undefined ? undefined : d.now - step.after;
      const before = step.before === undefined ? undefined : d.now - step.before;
      const q = query({
        limit: step.limit,
        direction: step.direction,
        channel: step.channel,
        status: step.status,
        conversation_id: conversation,
        created_after: after === undefined ? undefined : new Date(after).toISOString(),
        created_before: before === undefined ? undefined : new Date(before).toISOString(),
      });
      const items = await d.walk(step.key, `/v1/messages?${q}`, step.limit, (item) => model.observe(item));
      if (!items) return;
      const expected = model.messages
        .filter(
          (m) =>
            m.account === step.key &&
            (!step.direction || m.direction === step.direction) &&
            (!step.channel || (m.media.length > 0 ? 'mms' : 'sms') === step.channel) &&
            (!step.status || model.messageStatus(m) === step.status) &&
            (!conversation || m.conversationId === conversation) &&
            (after === undefined || m.created > after) &&
            (before === undefined || m.created < before),
        )
        .reverse();
      expect(items.map((m) => m.id)).toEqual(expected.map((m) => m.id));
    },
  },
  messagesPage: {
    run: async (model, d, step) => {
      // One page of a walk that other steps interrupt: the cursor stays valid while messages
      // arrive and statuses move; the page holds what matches now, older than the last served.
      const state = step.fresh ? undefined : model.pagings.get(step.key);
      const filters = state ? { direction: state.direction, status: state.status } : { direction: step.direction, status: step.status };
      const res = await d.request(
        step.key,
        'GET',
        `/v1/messages?${query({ limit: step.limit, ...filters, ...(state ? { cursor: state.cursor } : {}) })}`,
      );
      if (res.limited) return;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const end = state ? model.messages.findIndex((m) => m.id === state.last) : model.messages.length;
      const matching = model.messages
        .slice(0, end)
        .filter(
          (m) =>
            m.account === step.key &&
            (!filters.direction || m.direction === filters.direction) &&
            (!filters.status || model.messageStatus(m) === filters.status),
        )
        .reverse();
      for (const item of res.body.data) model.observe(item);
      expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(matching.slice(0, step.limit).map((m) => m.id));
      expect(res.body.has_more).toBe(matching.length > step.limit);
      if (res.body.has_more) model.pagings.set(step.key, { ...filters, cursor: res.body.next_cursor, last: matching[step.limit - 1]!.id });
      else model.pagings.delete(step.key);
    },
  },
  listNumbers: {
    run: async (model, d, step) => {
      const after = step.after === undefined ? undefined : d.now - step.after;
      const q = query({
        provisioned: 'true',
        limit: step.limit,
        kind: step.numberKind,
        created_after: after === undefined ? undefined : new Date(after).toISOString(),
      });
      const items = await d.walk(step.key, `/v1/numbers?${q}`, step.limit);
      if (!items) return;
      const expected = model
        .live(step.key)
        .filter((n) => (!step.numberKind || n.entry.kind === step.numberKind) && (after === undefined || n.created > after))
        .reverse();
      expect(items).toEqual(expected.map((n) => model.numberJson(n)));
    },
  },
  messageBehavior: {
    run: async (model, d, step) => {
      const to = DESTINATIONS[step.to]!.to;
      if (step.how === 'set') {
        d.sandbox.network.setMessageBehavior(to, { outcome: step.outcome });
        model.messageStanding.set(to, step.outcome);
      } else if (step.how === 'queue') {
        d.sandbox.network.queueMessageBehavior(to, { outcome: step.outcome });
        model.messageQueued.set(to, [...(model.messageQueued.get(to) ?? []), step.outcome]);
      } else if (step.how === 'clear') {
        d.sandbox.network.clearBehavior(to);
        model.messageStanding.delete(to);
        model.messageQueued.delete(to);
      } else {
        d.sandbox.network.clearBehavior();
        model.messageStanding.clear();
        model.messageQueued.clear();
      }
      d.note(`message behaviour ${step.how} ${to} ${step.outcome}`);
    },
  },
  advance: {
    run: async (_model, d, step) => {
      await d.advance(step.ms);
    },
  },
};

/** One step as a command. Runs its handler, and keeps the lines a refused step wrote for the "refused changes nothing" property. */
export class MessagingCommand implements fc.AsyncCommand<MessagingModel, MessagingRun> {
  constructor(readonly step: Step) {}

  check(model: Readonly<MessagingModel>): boolean {
    const handler = HANDLERS[this.step.kind] as Handler<Step>;
    return handler.check?.(model, this.step) ?? true;
  }

  async run(model: MessagingModel, d: MessagingRun): Promise<void> {
    const first = d.transcript.length;
    d.refused = false;
    await (HANDLERS[this.step.kind] as Handler<Step>).run(model, d, this.step);
    d.executed.push(this);
    if (!d.refused) return;
    d.refusedCommands.add(this);
    for (let i = first; i < d.transcript.length; i++) d.refusedLines.add(i);
  }

  toString(): string {
    const { kind, ...rest } = this.step;
    return `${kind}${JSON.stringify(rest)}`;
  }
}

/** Up to `maxCommands` steps, drawn with the weights of messaging-steps.ts. */
export const messagingCommands = (maxCommands: number) =>
  fc.commands([stepArb.map((step) => new MessagingCommand(step))], { maxCommands, size: 'max' });
