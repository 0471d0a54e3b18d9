import { setup } from 'xstate';

/** How an ended call ended (CONTRACT §5). */
export type Disposition = 'answered' | 'busy' | 'no_answer' | 'failed' | 'canceled';
export type AnsweredBy = 'human' | 'voicemail' | 'ai_receptionist';
export type TransferTarget = { agent: string } | { extension: string };

export interface CallMachineInput {
  callId: string;
  /** Ring time before the network's outcome; `null` rings until ANSWERED or HUNG_UP. */
  ringMs: number | null;
  /** Talk time once answered; `null` talks until HUNG_UP. */
  talkMs: number | null;
  /** What the network does when the ring time is up. */
  outcome: Exclude<Disposition, 'canceled'>;
  /** Who answers when the network answers. */
  answeredBy: AnsweredBy;
}

/** Events are what the network or a party did, in the past tense. */
export type CallMachineEvent =
  | { type: 'ANSWERED'; by?: AnsweredBy }
  | { type: 'HUNG_UP' }
  | { type: 'TRANSFERRED'; target: TransferTarget };

/**
 * The call lifecycle: `ringing` → `answered` → `completed`, or `ringing` → `completed`
 * (busy, no answer, failure, or the caller hanging up: canceled). Top-level state names
 * are the API's statuses. Delays come from `after`, driven by the clock the actor is
 * created with (the sandbox's virtual clock). Side effects are the named actions below,
 * which the call service provides (`machine.provide`) to update the record and publish
 * events. TRANSFERRED is accepted only while answered: the API's 422 `call_not_active`
 * is this machine refusing the event.
 */
export const callMachine = setup({
  types: {} as { context: CallMachineInput; input: CallMachineInput; events: CallMachineEvent },
  delays: {
    ringTime: ({ context }) => context.ringMs ?? 0,
    talkTime: ({ context }) => context.talkMs ?? 0,
  },
  guards: {
    ringsUntilActedOn: ({ context }) => context.ringMs === null,
    talksUntilHungUp: ({ context }) => context.talkMs === null,
    networkAnswers: ({ context }) => context.outcome === 'answered',
  },
  actions: {
    started: () => {},
    answered: (_, _params: { by: AnsweredBy }) => {},
    transferred: (_, _params: TransferTarget) => {},
    completed: (_, _params: { disposition: Disposition }) => {},
  },
}).createMachine({
  id: 'call',
  context: ({ input }) => input,
  initial: 'ringing',
  states: {
    ringing: {
      entry: 'started',
      initial: 'choosing',
      states: {
        choosing: { always: [{ guard: 'ringsUntilActedOn', target: 'untilActedOn' }, { target: 'timed' }] },
        timed: {
          after: {
            ringTime: [
              {
                guard: 'networkAnswers',
                target: '#call.answered',
                actions: { type: 'answered', params: ({ context }) => ({ by: context.answeredBy }) },
              },
              {
                target: '#call.completed',
                actions: { type: 'completed', params: ({ context }) => ({ disposition: context.outcome }) },
              },
            ],
          },
        },
        untilActedOn: {},
      },
      on: {
        ANSWERED: {
          target: 'answered',
          actions: { type: 'answered', params: ({ context, event }) => ({ by: event.by ?? context.answeredBy }) },
        },
        HUNG_UP: { target: 'completed', actions: { type: 'completed', params: { disposition: 'canceled' } } },
      },
    },
    answered: {
      initial: 'choosing',
      states: {
        choosing: { always: [{ guard: 'talksUntilHungUp', target: 'untilHungUp' }, { target: 'timed' }] },
        timed: {
          after: {
            talkTime: { target: '#call.completed', actions: { type: 'completed', params: { disposition: 'answered' } } },
          },
        },
        untilHungUp: {},
      },
      on: {
        HUNG_UP: { target: 'completed', actions: { type: 'completed', params: { disposition: 'answered' } } },
        TRANSFERRED: { actions: { type: 'transferred', params: ({ event }) => event.target } },
      },
    },
    completed: { type: 'final' },
  },
});
