import type { VirtualClock } from '../core/clock.js';
import { Collection, type StoredItem } from '../core/collection.js';
import type { Channel } from '../core/emitter.js';
import type { Service } from '../core/lifecycle.js';
import type { SeededRandom } from '../core/random.js';
import { iso, isoOrNull } from '../core/time.js';
import type { CallEvents, CallRecord, CallService } from './calls.js';
import type { Network } from './network.js';
import type { Campaign } from './resources.js';

export interface CampaignRecord extends StoredItem {
  from: string;
  to: string[];
  aiReceptionist: boolean;
  callIds: string[];
  /** Calls dialled and not yet completed. */
  live: number;
  completedMs: number | null;
}

interface DialerDeps {
  clock: VirtualClock;
  random: SeededRandom;
  calls: CallService;
  events: Channel<CallEvents>;
  network: Network;
  aiHandler: string;
  /** Virtual time between two dials of one campaign. */
  intervalMs: number;
}

/**
 * The simulated predictive dialer: a campaign dials its first number at once and the
 * next one every `intervalMs` of virtual time, each as an ordinary outbound call, and is
 * `completed` when its last call has completed.
 */
export class Dialer implements Service {
  readonly store = new Collection<CampaignRecord>();

  constructor(private readonly deps: DialerDeps) {
    deps.events.on('call:completed', ({ call }) => this.callCompleted(call));
  }

  /** Forgets every campaign (their pending dials belong to the clock, which stops too). */
  reset(): void {
    this.store.clear();
  }

  start(account: string, input: { from: string; to: string[]; aiReceptionist: boolean }, param = 'to'): CampaignRecord {
    const { clock, random } = this.deps;
    // Every destination is checked before anything is made: a refused campaign leaves no trace.
    for (const [i, to] of input.to.entries()) this.deps.network.assertReachable(to, `${param}[${i}]`, 'Remove it from the campaign');
    const campaign = this.store.insert({
      id: random.id('camp'),
      account,
      seq: this.store.allocateSeq(),
      createdMs: clock.now(),
      createdAt: iso(clock.now()),
      from: input.from,
      to: [...input.to],
      aiReceptionist: input.aiReceptionist,
      callIds: [],
      live: 0,
      completedMs: null,
    });
    this.dialNext(campaign);
    return campaign;
  }

  toJson(campaign: CampaignRecord): Campaign {
    return {
      id: campaign.id,
      object: 'campaign',
      status: campaign.completedMs === null ? 'running' : 'completed',
      from: campaign.from,
      to: [...campaign.to],
      ai_receptionist: campaign.aiReceptionist,
      ai_handler: campaign.aiReceptionist ? this.deps.aiHandler : 'none',
      call_ids: [...campaign.callIds],
      calls_dialed: campaign.callIds.length,
      calls_completed: campaign.callIds.length - campaign.live,
      created_at: campaign.createdAt,
      completed_at: isoOrNull(campaign.completedMs),
    };
  }

  private dialNext(campaign: CampaignRecord): void {
    const to = campaign.to[campaign.callIds.length];
    if (to === undefined) return;
    campaign.live++;
    const call = this.deps.calls.place({
      account: campaign.account,
      from: campaign.from,
      to,
      aiReceptionist: campaign.aiReceptionist,
      direction: 'outbound',
      campaignId: campaign.id,
      behavior: this.deps.network.nextCall(to),
    });
    campaign.callIds.push(call.id);
    if (campaign.callIds.length < campaign.to.length) {
      this.deps.clock.setTimeout(() => this.dialNext(campaign), this.deps.intervalMs);
    }
  }

  private callCompleted(call: CallRecord): void {
    if (call.campaignId === null) return;
    const campaign = this.store.find(call.campaignId);
    if (!campaign) return;
    campaign.live--;
    if (campaign.live === 0 && campaign.callIds.length === campaign.to.length) campaign.completedMs = this.deps.clock.now();
  }
}
