import { describe, expect, it } from 'vitest';
import { Emitter } from '../core/emitter.js';
import { SeededRandom } from '../core/random.js';
import { Steps } from '../core/steps.js';
import { EventBus } from './event-bus.js';

describe('EventBus', () => {
  it('finds every event by id, those published after a lookup too, and none of the log a reset emptied', () => {
    const bus = new EventBus({
      random: new SeededRandom(1),
      now: () => 0,
      events: new Emitter(),
      steps: new Steps((error) => {
        throw error;
      }),
    });
    const first = bus.publish('acct_a', 'message.delivered', {} as never);
    expect(bus.find(first.id)).toBe(first);
    const second = bus.publish('acct_b', 'message.delivered', {} as never);
    expect(bus.accountOf(second.id)).toBe('acct_b');
    expect(bus.accountOf(first.id)).toBe('acct_a');
    expect(bus.find('evt_unknown')).toBeUndefined();
    bus.reset();
    expect(bus.find(first.id)).toBeUndefined();
    const third = bus.publish('acct_c', 'message.delivered', {} as never);
    expect(bus.find(third.id)).toBe(third);
  });
});
