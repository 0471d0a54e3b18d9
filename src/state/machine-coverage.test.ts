import { createActor, createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { callMachine } from './call-machine.js';
import { MachineCoverage, machineGraph } from './machine-coverage.js';

describe('machineGraph', () => {
  it('reads every state and transition of the call machine from its configuration', () => {
    expect(machineGraph(callMachine)).toEqual({
      states: ['ringing', 'answered', 'completed'],
      transitions: [
        'ringing → answered (ANSWERED)',
        'ringing → completed (HUNG_UP)',
        'ringing → answered (after ringTime [networkAnswers])',
        'ringing → completed (after ringTime)',
        'answered → completed (HUNG_UP)',
        'answered → answered (TRANSFERRED)',
        'answered → completed (after talkTime)',
      ],
      initial: ['ringing'],
    });
  });

  it('lists a state added to a machine with no list kept by hand, nested states by their path', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: { on: { GO: 'b' }, always: { target: 'b', guard: () => false } },
        b: { initial: 'x', states: { x: { after: { 500: '#m.a' } } } },
      },
    });
    expect(machineGraph(machine)).toEqual({
      states: ['a', 'b', 'b.x'],
      transitions: ['a → b (GO)', 'a → b (always [guard])', 'b.x → a (after 500)'],
      initial: ['a'],
    });
  });
});

describe('MachineCoverage', () => {
  it('counts the states actors entered and the transitions they took, with every other one at 0', () => {
    const coverage = new MachineCoverage(callMachine);
    const input = { ringMs: null, talkMs: null, outcome: 'answered', answeredBy: 'human' } as const;
    const clock = { setTimeout: () => 0, clearTimeout: () => undefined }; // no timer fires: the test sends every event
    const a = createActor(callMachine, { input, clock, inspect: coverage.inspect }).start();
    a.send({ type: 'ANSWERED' });
    a.send({ type: 'HUNG_UP' });
    const b = createActor(callMachine, { input, clock, inspect: coverage.inspect }).start();
    b.send({ type: 'HUNG_UP' });
    b.stop();
    expect(coverage.counts()).toEqual({
      states: { ringing: 2, answered: 1, completed: 2 },
      transitions: {
        'ringing → answered (ANSWERED)': 1,
        'ringing → completed (HUNG_UP)': 1,
        'ringing → answered (after ringTime [networkAnswers])': 0,
        'ringing → completed (after ringTime)': 0,
        'answered → completed (HUNG_UP)': 1,
        'answered → answered (TRANSFERRED)': 0,
        'answered → completed (after talkTime)': 0,
      },
    });
  });
});
