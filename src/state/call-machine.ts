import { setup } from 'xstate';

/** How an ended call ended (CONTRACT §5). */
export type Disposition = 'answered' | 'busy' | 'no_answer' | 'failed' | 'canceled';
export type AnsweredBy = 'human' | 'voicemail' | 'ai_receptionist';
export type TransferTarget = { agent: string } | { extension: string };

/**
 * Where the machine's named actions send their side effects: the call service, which
 * updates the record and publishes events. Passed in through input (rather than
 * `machine.provide`, which rebuilds the whole machine definition and made every new
 * sandbox markedly slower to create).
 */
export interface CallEffects {
  answered(callId: string, by: AnsweredBy, talkMs: number | null): void;
  transferred(callId: string, target: TransferTarget): void;
  completed(callId: string, disposition: Disposition): void;
}

export interface CallMachineInput {
  callId: string;
  effects: CallEffects;
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
 * (busy, no answer, failure, or the caller hanging up: canceled). State names are the
 * API's statuses. `call.started` is published by the call service when the call is placed
 * (the machine starts lazily at that same virtual instant; see CallService.place). Delays come from `after`, driven by the clock the actor is
 * created with (the sandbox's virtual clock). Side effects are the named actions below,
 * which hand them to the `effects` of the input (the call service). TRANSFERRED is accepted only while answered: the API's 422 `call_not_active`
 * is this machine refusing the event.
 */
export const callMachine = setup({
  types: {} as { context: CallMachineInput; input: CallMachineInput; events: CallMachineEvent },
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
  actions: {
    answered: ({ context }, { by }: { by: AnsweredBy }) => context.effects.answered(context.callId, by, context.talkMs),
    transferred: ({ context }, target: TransferTarget) => context.effects.transferred(context.callId, target),
    completed: ({ context }, { disposition }: { disposition: Disposition }) => context.effects.completed(context.callId, disposition),
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
            actions: { type: 'answered', params: ({ context }) => ({ by: context.answeredBy }) },
          },
          { target: 'completed', actions: { type: 'completed', params: ({ context }) => ({ disposition: context.outcome }) } },
        ],
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
      after: {
        talkTime: { target: 'completed', actions: { type: 'completed', params: { disposition: 'answered' } } },
      },
      on: {
        HUNG_UP: { target: 'completed', actions: { type: 'completed', params: { disposition: 'answered' } } },
        TRANSFERRED: { actions: { type: 'transferred', params: ({ event }) => event.target } },
      },
    },
    completed: { type: 'final' },
  },
});
