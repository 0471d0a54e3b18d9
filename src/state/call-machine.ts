import { emit, setup } from 'xstate';
import type { AnsweredBy, Disposition } from '../sim/carrier.js';
import type { CallEmitted, CallMachineEvent } from './call-events.js';

export interface CallMachineInput {
  /** Ring time before the network's outcome; `null` rings until ANSWERED or HUNG_UP. */
  ringMs: number | null;
  /** Talk time once answered; `null` talks until HUNG_UP. */
  talkMs: number | null;
  /** What the network does when the ring time is up. */
  outcome: Exclude<Disposition, 'canceled'>;
  /** Who answers when the network answers. */
  answeredBy: AnsweredBy;
}

/**
 * The call lifecycle: `ringing` → `answered` → `completed`, or `ringing` → `completed`
 * (busy, no answer, failure, or the caller hanging up: canceled). State names are the
 * API's statuses. `call.started` is published by the call service when the call is placed
 * (the machine starts lazily at that same virtual instant; see CallService.place). Delays
 * come from `after`, driven by the clock the actor is created with (the sandbox's virtual
 * clock). Side effects are emitted (`emit`), and the call service listens on the actor.
 * TRANSFERRED is accepted only while answered: the API's 422 `call_not_active` is this
 * machine refusing the event.
 */
export const callMachine = setup({
  types: {} as { context: CallMachineInput; input: CallMachineInput; events: CallMachineEvent; emitted: CallEmitted },
  // A call that waits for the test (ring or talk 'manual') gets an infinite delay, which the
  // sandbox clock never fires; this keeps the machine flat (no eventless "choosing" states,
  // which made each actor markedly more expensive to create).
  delays: {
    ringTime: ({ context }) => context.ringMs ?? Infinity,
    talkTime: ({ context }) => context.talkMs ?? Infinity,
  },
  guards: {
    networkAnswers: ({ context }) => context.outcome === 'answered',
  },
}).createMachine({
  id: 'call',
  context: ({ input }) => input,
  initial: 'ringing',
  states: {
    ringing: {
      after: {
        ringTime: [
          {
            guard: 'networkAnswers',
            target: 'answered',
            actions: emit(({ context }) => ({ type: 'answered', by: context.answeredBy, talkMs: context.talkMs }) as const),
          },
          { target: 'completed', actions: emit(({ context }) => ({ type: 'completed', disposition: context.outcome }) as const) },
        ],
      },
      on: {
        ANSWERED: {
          target: 'answered',
          actions: emit(
            ({ context, event }) => ({ type: 'answered', by: event.by ?? context.answeredBy, talkMs: context.talkMs }) as const,
          ),
        },
        HUNG_UP: { target: 'completed', actions: emit({ type: 'completed', disposition: 'canceled' } as const) },
      },
    },
    answered: {
      after: {
        talkTime: { target: 'completed', actions: emit({ type: 'completed', disposition: 'answered' } as const) },
      },
      on: {
        HUNG_UP: { target: 'completed', actions: emit({ type: 'completed', disposition: 'answered' } as const) },
        TRANSFERRED: { actions: emit(({ event }) => ({ type: 'transferred', target: event.target }) as const) },
      },
    },
    completed: { type: 'final' },
  },
});
