import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Driver, KEYS } from './driver.js';

/**
 * Model-based test of calls: random sequences of API requests (three keys), scripted network
 * events and clock advances, checked step by step against a small reference model of
 * timings, accounts and rate limits. Invariants: no 5xx; every list walk returns each call
 * of the account exactly once, newest first; statuses follow the machine's edges and the
 * model's instants; each call's events come in lifecycle order; no account sees another's
 * calls; the same seed and steps give byte-identical responses and event logs.
 */

/** Destinations and their default behaviour (CONTRACT §7). */
const DESTINATIONS: Record<string, { ring: number; outcome: 'answered' | 'busy' | 'no_answer' | 'failed' } | 'unreachable' | 'invalid'> = {
  '+14155550123': { ring: 5_000, outcome: 'answered' },
  '+442071234567': { ring: 5_000, outcome: 'answered' },
  '+15005550002': { ring: 1_000, outcome: 'busy' },
  '+15005550003': { ring: 30_000, outcome: 'no_answer' },
  '+15005550004': { ring: 1_000, outcome: 'failed' },
  '+15005550001': 'unreachable',
  '+9995550100': 'unreachable',
  '4155550123': 'invalid',
};
const TALK = 60_000;

type Step =
  | { kind: 'place'; key: number; to: string; ai: boolean }
  | { kind: 'fetch'; key: number; pick: number }
  | { kind: 'list'; key: number; limit: number; status?: 'ringing' | 'answered' | 'completed' }
  | { kind: 'transfer'; key: number; pick: number }
  | { kind: 'answer'; pick: number }
  | { kind: 'hangUp'; pick: number }
  | { kind: 'advance'; ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('place' as const), key: fc.nat(2), to: fc.constantFrom(...Object.keys(DESTINATIONS)), ai: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fetch' as const), key: fc.nat(2), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('list' as const), key: fc.nat(2), limit: fc.integer({ min: 1, max: 7 }), status: fc.option(fc.constantFrom('ringing' as const, 'answered' as const, 'completed' as const), { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('transfer' as const), key: fc.nat(2), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hangUp' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 499, 1_000, 4_999, 5_000, 29_999, 30_000, 60_000, 65_000, 3_600_000) }) },
);

interface ModelCall {
  id: string;
  account: number;
  created: number;
  answeredAt?: number;
  endedAt?: number;
  disposition?: string;
}

const EDGES = new Set(['ringing>ringing', 'ringing>answered', 'ringing>completed', 'answered>answered', 'answered>completed', 'completed>completed']);

class Model {
  calls: ModelCall[] = [];

  constructor(private readonly driver: Driver) {}

  get now(): number {
    return this.driver.now;
  }

  status(call: ModelCall): string {
    if (call.endedAt !== undefined && call.endedAt <= this.now) return 'completed';
    if (call.answeredAt !== undefined && call.answeredAt <= this.now) return 'answered';
    return 'ringing';
  }
}

async function runSteps(seed: number, steps: Step[]): Promise<string> {
  const d = new Driver({ seed });
  const { sandbox } = d;
  const model = new Model(d);
  const lastStatus = new Map<string, string>();
  const observe = (json: { id: string; status: string }) => {
    const before = lastStatus.get(json.id) ?? 'ringing';
    expect(EDGES.has(`${before}>${json.status}`), `${json.id}: ${before} → ${json.status}`).toBe(true);
    lastStatus.set(json.id, json.status);
  };
  const pick = (n: number) => (model.calls.length ? model.calls[n % model.calls.length] : undefined);

  try {
    for (const step of steps) {
      switch (step.kind) {
        case 'place': {
          const res = await d.request(step.key, 'POST', '/v1/calls', { to: step.to, from: '+14155550100', ai_receptionist: step.ai });
          const dest = DESTINATIONS[step.to]!;
          if (res.limited) break;
          if (dest === 'invalid') expect(res.status).toBe(400);
          else if (dest === 'unreachable') expect(res.status).toBe(422);
          else {
            expect(res.status).toBe(201);
            const call: ModelCall = { id: res.body.id, account: step.key, created: model.now };
            if (dest.outcome === 'answered') {
              call.answeredAt = model.now + dest.ring;
              call.endedAt = call.answeredAt + TALK;
              call.disposition = 'answered';
            } else {
              call.endedAt = model.now + dest.ring;
              call.disposition = dest.outcome;
            }
            model.calls.push(call);
            observe(res.body);
          }
          break;
        }
        case 'fetch': {
          const call = pick(step.pick);
          if (!call) break;
          const res = await d.request(step.key, 'GET', `/v1/calls/${call.id}`);
          if (res.limited) break;
          if (call.account !== step.key) expect(res.status).toBe(404);
          else {
            expect(res.status).toBe(200);
            expect(res.body.status).toBe(model.status(call));
            if (res.body.status === 'completed') expect(res.body.disposition).toBe(call.disposition);
            observe(res.body);
          }
          break;
        }
        case 'list': {
          const q = `limit=${step.limit}${step.status ? `&status=${step.status}` : ''}`;
          const expected = model.calls
            .filter((c) => c.account === step.key && (!step.status || model.status(c) === step.status))
            .map((c) => c.id)
            .reverse();
          const seen = await d.walk(step.key, `/v1/calls?${q}`, step.limit, observe);
          if (seen) expect(seen.map((c: { id: string }) => c.id)).toEqual(expected);
          break;
        }
        case 'transfer': {
          const call = pick(step.pick);
          if (!call) break;
          const res = await d.request(step.key, 'POST', `/v1/calls/${call.id}/transfer`, { agent: 'maria' });
          if (res.limited) break;
          if (call.account !== step.key) expect(res.status).toBe(404);
          else expect(res.status).toBe(model.status(call) === 'answered' ? 200 : 422);
          break;
        }
        case 'answer': {
          const call = pick(step.pick);
          if (!call) break;
          if (model.status(call) === 'ringing') {
            sandbox.calls.answer(call.id);
            call.answeredAt = model.now;
            call.endedAt = model.now + TALK;
            call.disposition = 'answered';
          } else expect(() => sandbox.calls.answer(call.id)).toThrow(/only a ringing call/);
          d.note(`answer ${call.id}`);
          break;
        }
        case 'hangUp': {
          const call = pick(step.pick);
          if (!call) break;
          const status = model.status(call);
          if (status === 'completed') expect(() => sandbox.calls.hangUp(call.id)).toThrow(/completed/);
          else {
            sandbox.calls.hangUp(call.id);
            if (status === 'ringing') {
              call.answeredAt = undefined;
              call.disposition = 'canceled';
            }
            call.endedAt = model.now;
          }
          d.note(`hangUp ${call.id}`);
          break;
        }
        case 'advance': {
          await d.advance(step.ms);
          break;
        }
      }
    }
    // Each call's events come in lifecycle order, at the model's instants, in its own account.
    const events = sandbox.events.list();
    for (const call of model.calls) {
      const mine = events.filter((e) => e.data.id === call.id);
      const expected: Array<[string, number]> = [['call.started', call.created]];
      if (call.answeredAt !== undefined && call.answeredAt <= model.now) expected.push(['call.answered', call.answeredAt]);
      if (call.endedAt !== undefined && call.endedAt <= model.now) expected.push(['call.completed', call.endedAt]);
      expect(mine.map((e) => [e.type, Date.parse(e.created_at)])).toEqual(expected);
      expect(sandbox.events.list({ apiKey: KEYS[call.account] }).some((e) => e.id === mine[0]!.id)).toBe(true);
      for (const other of [0, 1, 2].filter((k) => k !== call.account)) {
        expect(sandbox.events.list({ apiKey: KEYS[other] }).some((e) => e.data.id === call.id)).toBe(false);
      }
    }
    return d.finish();
  } finally {
    sandbox.close();
  }
}

/** Seeds that once failed, kept so they run every time (none so far). */
const REGRESSION_SEEDS: number[] = [];

describe('calls against a reference model', () => {
  const property = fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.array(stepArb, { minLength: 50, maxLength: 250 }), async (seed, steps) => {
    await runSteps(seed, steps);
  });

  it('holds over random sequences (thousands of steps in all)', async () => {
    await fc.assert(property, { numRuns: 25, seed: 20260101 });
  });

  it.each(REGRESSION_SEEDS)('holds for regression seed %i', async (seed) => {
    await fc.assert(property, { numRuns: 25, seed });
  });

  it('is deterministic: the same seed and steps give byte-identical responses and event logs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.array(stepArb, { minLength: 30, maxLength: 120 }), async (seed, steps) => {
        expect(await runSteps(seed, steps)).toBe(await runSteps(seed, steps));
      }),
      { numRuns: 8, seed: 7 },
    );
  });
});
