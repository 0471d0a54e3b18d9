import { RuleViolation } from '../core/errors.js';
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { ClockEvents, VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso, isoOrNull } from '../core/time.js';
import type { AnsweredBy, Disposition, ResolvedBehavior } from '../sim/carrier.js';
import type { CallEmitted, CallMachineEvent, TransferTarget } from './call-events.js';
import { callMachine } from './call-machine.js';
import type { EventBus } from './event-bus.js';
import type { EventData, EventType } from './events.js';
import type { Call, CallDirection, CallStatus } from './resources.js';

/** The events whose data is a call (state/events.ts): the ones this service publishes. */
type CallEventType = { [K in EventType]: EventData[K] extends Call ? K : never }[EventType];

/** A call as stored: public fields in their cheapest form, times as epoch ms. */
export interface CallRecord extends StoredItem {
  status: CallStatus;
  direction: CallDirection;
  from: string;
  to: string;
  aiReceptionist: boolean;
  answeredBy: AnsweredBy | null;
  disposition: Disposition | null;
  agent: string | null;
  extension: string | null;
  campaignId: string | null;
  recordingId: string | null;
  transcriptId: string | null;
  answeredMs: number | null;
  endedMs: number | null;
}

export interface PlaceCallInput {
  account: string;
  from: string;
  to: string;
  aiReceptionist: boolean;
  direction: CallDirection;
  campaignId: string | null;
  behavior: ResolvedBehavior;
  /** Inbound calls: the extension the number's routing names (docs/numbers.md). */
  extension?: string | null;
}

/** What the call service announces to the rest of the sandbox, before the API's own event. */
export interface CallEvents {
  /** Answered, with the planned talk time (null: until hung up by hand). The live transcript starts here. */
  'call:answered': { call: CallRecord; talkMs: number | null };
  /** Completed: the recording is stored and a campaign counts the call before call.completed is published. */
  'call:completed': { call: CallRecord };
}

interface CallServiceDeps {
  clock: VirtualClock;
  random: SeededRandom;
  bus: EventBus;
  events: Channel<CallEvents & ClockEvents>;
  baseUrl: string;
  aiHandler: string;
  onError: (error: unknown) => void;
  /** Sees what each call's machine does: coverage counts its states and transitions (state/machine-coverage.ts). */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * Owns every call of one sandbox: the records, and one running XState actor per live
 * call. The machine decides every transition; this service supplies its side effects
 * (update the record, publish the event) and drops the actor when the call completes,
 * so a finished call costs only its record.
 */
export class CallService implements Service {
  readonly store = new Collection<CallRecord>();
  private readonly actors = new Map<string, Actor<typeof callMachine>>();
  /** Calls placed at the current instant whose actor has not started yet (see place()). */
  private unstarted: Array<{ call: CallRecord; input: PlaceCallInput }> = [];

  constructor(private readonly deps: CallServiceDeps) {
    deps.events.on('clock:moving', () => this.startPending());
  }

  /**
   * Creates the call and publishes `call.started` now. Its machine is started lazily, before
   * the clock next moves or anything is sent to the call: still at this virtual instant, so
   * every timing is exact, but creating an XState actor (the costliest step of a request)
   * leaves the request path, and a burst of requests holds only records.
   */
  place(input: PlaceCallInput): CallRecord {
    const { clock, random } = this.deps;
    const call: CallRecord = this.store.insert({
      id: random.id('call'),
      account: input.account,
      seq: this.store.allocateSeq(),
      createdMs: clock.now(),
      createdAt: iso(clock.now()),
      status: 'ringing',
      direction: input.direction,
      from: input.from,
      to: input.to,
      aiReceptionist: input.aiReceptionist,
      answeredBy: null,
      disposition: null,
      agent: null,
      extension: input.extension ?? null,
      campaignId: input.campaignId,
      recordingId: null,
      transcriptId: null,
      answeredMs: null,
      endedMs: null,
    });
    if (input.behavior.agent !== null) call.agent = input.behavior.agent;
    this.publish(call, 'call.started');
    this.unstarted.push({ call, input });
    return call;
  }

  /** Starts the machines of calls placed at the current instant. */
  startPending(): void {
    if (this.unstarted.length === 0) return;
    const pending = this.unstarted;
    this.unstarted = [];
    for (const { call, input } of pending) this.startMachine(call, input);
  }

  private startMachine(call: CallRecord, input: PlaceCallInput): void {
    const { behavior } = input;
    // A scripted answerer picks up before the AI receptionist would; unscripted, the receptionist
    // answers its calls and a person every other call (docs/calls.md, "Who answers").
    const actor = createActor(callMachine, {
      clock: this.deps.clock.xstateClock,
      ...(this.deps.inspect ? { inspect: this.deps.inspect } : {}),
      input: {
        ringMs: behavior.ringMs,
        talkMs: behavior.talkMs,
        outcome: behavior.outcome,
        answeredBy: behavior.answeredBy ?? (input.aiReceptionist ? 'ai_receptionist' : 'human'),
      },
    });
    this.actors.set(call.id, actor);
    actor.subscribe({ error: (error) => this.deps.onError(error) });
    // xstate reports a throwing handler on a global timer, outside any test: catch here instead.
    actor.on('*', (emitted) => {
      try {
        this.onEmitted(call, emitted);
      } catch (error) {
        this.deps.onError(error);
      }
    });
    actor.start();
  }

  /**
   * Sends a network or party event to a live call. Returns false, changing nothing, when
   * the machine refuses it in the call's current state (or the call has ended).
   */
  send(call: CallRecord, event: CallMachineEvent): boolean {
    this.startPending();
    const actor = this.actors.get(call.id);
    if (!actor?.getSnapshot().can(event)) return false;
    actor.send(event);
    return true;
  }

  /** Transfers an answered call to an agent or extension; any other call is refused (`call_not_active`). */
  transfer(call: CallRecord, target: TransferTarget): void {
    if (!this.send(call, { type: 'TRANSFERRED', target })) {
      throw new RuleViolation('call_not_active', `Call ${call.id} is ${call.status}; only an answered call can be transferred.`);
    }
  }

  /** The public JSON of a call. */
  toJson(call: CallRecord): Call {
    const recordingUrl = call.recordingId ? `${this.deps.baseUrl}/v1/recordings/${call.recordingId}/audio` : null;
    return {
      id: call.id,
      status: call.status,
      ai_handler: call.aiReceptionist ? this.deps.aiHandler : 'none',
      direction: call.direction,
      from: call.from,
      to: call.to,
      ai_receptionist: call.aiReceptionist,
      answered_by: call.answeredBy,
      disposition: call.disposition,
      duration: call.endedMs === null ? null : call.answeredMs === null ? 0 : Math.round((call.endedMs - call.answeredMs) / 1000),
      agent: call.agent,
      extension: call.extension,
      campaign_id: call.campaignId,
      recording_id: call.recordingId,
      recording_url: recordingUrl,
      transcript_id: call.transcriptId,
      created_at: call.createdAt,
      answered_at: isoOrNull(call.answeredMs),
      ended_at: isoOrNull(call.endedMs),
    };
  }

  /** Forgets all calls (after stop()). */
  reset(): void {
    this.store.clear();
  }

  /** Stops every live call without completing it (its timers belong to the clock, which stops too). */
  stop(): void {
    this.unstarted = [];
    for (const actor of this.actors.values()) actor.stop();
    this.actors.clear();
  }

  private onEmitted(call: CallRecord, emitted: CallEmitted): void {
    if (emitted.type === 'answered') this.onAnswered(call, emitted.by, emitted.talkMs);
    else if (emitted.type === 'transferred') this.onTransferred(call, emitted.target);
    else this.onCompleted(call, emitted.disposition);
  }

  private publish(call: CallRecord, type: CallEventType): void {
    this.deps.bus.publish(call.account, type, this.toJson(call));
  }

  private onAnswered(call: CallRecord, by: AnsweredBy, talkMs: number | null): void {
    call.status = 'answered';
    call.answeredBy = by;
    call.answeredMs = this.deps.clock.now();
    call.transcriptId = this.deps.random.id('trn');
    // The AI handles its calls whoever picks up: it talks to the person, or leaves the voicemail.
    if (call.aiReceptionist) call.agent = this.deps.aiHandler;
    this.deps.events.emit('call:answered', { call, talkMs });
    this.publish(call, 'call.answered');
  }

  private onTransferred(call: CallRecord, target: TransferTarget): void {
    if ('agent' in target) {
      call.agent = target.agent;
      call.extension = null;
    } else {
      call.extension = target.extension;
      call.agent = null;
    }
    // No event tells of a transfer: the store does (the console's change feed).
    this.store.touched(call);
  }

  private onCompleted(call: CallRecord, disposition: Disposition): void {
    call.status = 'completed';
    call.disposition = disposition;
    call.endedMs = this.deps.clock.now();
    if (call.answeredMs !== null) call.recordingId = this.deps.random.id('rec');
    this.actors.delete(call.id);
    // Listeners first (the recording is stored, a campaign counts the call), so that whoever
    // receives call.completed can already fetch what its recording_url points to.
    this.deps.events.emit('call:completed', { call });
    this.publish(call, 'call.completed');
  }
}
