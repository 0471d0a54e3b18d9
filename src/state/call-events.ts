import type { Answerer, AnsweredBy, Disposition } from '../sim/carrier.js';

/**
 * The events the call machine takes and emits, apart from the machine itself: the call
 * service's public signatures name them, and this file imports no xstate, so a user's
 * type check of the package's declarations never reaches xstate's.
 */

export type TransferTarget = { agent: string } | { extension: string };

/** Events are what the network or a party did, in the past tense. */
export type CallMachineEvent = { type: 'ANSWERED'; by?: Answerer } | { type: 'HUNG_UP' } | { type: 'TRANSFERRED'; target: TransferTarget };

/** What the machine emits (xstate `emit`); the call service updates the record and publishes the API's events. */
export type CallEmitted =
  | { type: 'answered'; by: AnsweredBy; talkMs: number | null }
  | { type: 'transferred'; target: TransferTarget }
  | { type: 'completed'; disposition: Disposition };
