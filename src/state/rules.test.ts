import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Emitter } from '../core/emitter.js';
import { RuleViolation, SandboxError } from '../core/errors.js';
import { SeededRandom } from '../core/random.js';
import { Steps } from '../core/steps.js';
import { act, type ControlContext } from '../scripting/context.js';
import { Recorder } from '../scripting/recorder.js';
import { NumberInventory } from '../sim/inventory.js';
import { Network } from './network.js';
import { NumberService } from './numbers.js';

/**
 * The domain rules live in the state services, so every road into the
 * sandbox meets them: the API answers them as 400/422 (test/numbers, test/calls,
 * test/messages drive them over HTTP), and scripting turns them into a SandboxError in
 * `act`. Here each rule is driven at the service itself, and each refusal changes nothing.
 */
function services() {
  const onError = (error: unknown) => {
    throw error;
  };
  const steps = new Steps(onError);
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'), { onError, events: new Emitter(), steps });
  const random = new SeededRandom(1);
  const network = new Network();
  const numbers = new NumberService({ clock, random, inventory: new NumberInventory(random), network });
  return { steps, network, numbers };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof RuleViolation) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

describe('domain rules in the state services', () => {
  it('an unreachable destination is refused for calls, messages and forwards, naming the field given', () => {
    const { network } = services();
    expect(refusal(() => network.routeCall('+15005550001', 'to'))).toMatchObject({ code: 'unreachable_destination', param: 'to' });
    expect(refusal(() => network.routeMessage('+99912345', 'to'))).toMatchObject({ code: 'unreachable_destination', param: 'to' });
    network.setBehavior('+14155550199', { outcome: 'unreachable' });
    expect(refusal(() => network.routeCall('+14155550199', 'campaign.to[2]')).message).toMatch(
      /^`campaign\.to\[2\]` \+14155550199 is unreachable/,
    );
    expect(network.routeCall('+14155550123', 'to')).toMatchObject({ outcome: 'answered' });
  });

  it('a held or unknown number is unavailable, a search with no match too, and a refused provisioning holds nothing', () => {
    const { numbers } = services();
    const first = numbers.available({}, () => true).next().value!;
    numbers.provision('acct_a', { number: first.number }, {});
    expect(refusal(() => numbers.provision('acct_b', { number: first.number }, {}))).toMatchObject({
      code: 'number_unavailable',
      param: 'number',
    });
    expect(refusal(() => numbers.provision('acct_b', { number: '+10000000000' }, {}))).toMatchObject({
      code: 'number_unavailable',
      param: 'number',
    });
    expect(
      refusal(() => numbers.provision('acct_b', { filter: {}, matches: () => false, describe: 'contains=0000', param: 'contains' }, {})),
    ).toMatchObject({
      code: 'number_unavailable',
      param: 'contains',
    });
    expect(numbers.store.all()).toHaveLength(1);
  });

  it('a number may not forward to itself nor to an unreachable number; the refusal changes nothing', () => {
    const { numbers } = services();
    const entry = numbers.available({}, () => true).next().value!;
    const record = numbers.provision('acct_a', { number: entry.number }, {});
    expect(refusal(() => numbers.configure(record, { routing: { type: 'forward', target: entry.number } }))).toMatchObject({
      code: 'invalid_parameter',
      param: 'routing.target',
    });
    expect(
      refusal(() => numbers.configure(record, { routing: { type: 'forward', target: '+15005550001' }, callerIdName: 'Changed' })),
    ).toMatchObject({
      code: 'unreachable_destination',
      param: 'routing.target',
    });
    expect(record).toMatchObject({ routing: null, callerIdName: null });
    // Checked before any number is looked for: a bad forward provisions nothing.
    expect(
      refusal(() =>
        numbers.provision(
          'acct_a',
          { filter: {}, matches: () => true, describe: 'any', param: 'kind' },
          { routing: { type: 'forward', target: '+15005550001' } },
        ),
      ),
    ).toMatchObject({
      code: 'unreachable_destination',
    });
    expect(numbers.store.all()).toHaveLength(1);
  });

  it('scripting says a rule as a SandboxError, in one place (scripting/context.ts act)', () => {
    const { steps, network } = services();
    const ctx: ControlContext = {
      steps,
      accounts: undefined as never,
      assertOpen: () => undefined,
      recorder: new Recorder({}, '', () => 0),
    };
    const error = (() => {
      try {
        act(ctx, 'place a call', () => network.routeCall('+15005550001', 'to'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({
      code: 'conflict',
      param: 'to',
      message: expect.stringMatching(/^Cannot place a call: `to` \+15005550001 is unreachable/),
    });
  });
});
