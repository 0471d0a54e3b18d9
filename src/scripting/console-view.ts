import type { Collection, StoredItem } from '../core/collection.js';
import { nullable, object, oneOf, type ObjectSchema, type Schema, type Shape } from '../core/schema.js';
import { anyString } from '../core/schema-values.js';
import { wavAudio } from '../sim/wav.js';
import type { Deliveries } from '../webhooks/deliveries.js';
import type { CallService } from '../state/calls.js';
import type { ChangeKind } from '../state/changes.js';
import type { EventBus } from '../state/event-bus.js';
import type { MessageService } from '../state/messages.js';
import type { NumberService } from '../state/numbers.js';
import type { RecordingService } from '../state/recordings.js';
import { callSchema, messageSchema, phoneNumberSchema, recordingSchema, transcriptSchema } from '../state/resources.js';
import { callOfEvent, subscriptionSchema } from '../state/events.js';
import type { Subscriptions } from '../state/subscriptions.js';
import type { TranscriptService } from '../state/transcripts.js';
import { deliverySchema } from './json-schemas.js';

/** The resources the console shows, one view each (docs/console.md). */
export const CONSOLE_KINDS = ['call', 'message', 'number', 'recording', 'transcript', 'subscription', 'delivery'] as const;
export type ConsoleKind = (typeof CONSOLE_KINDS)[number] & ChangeKind;

/** A resource as the console holds it: the API's JSON, with the account it belongs to. */
export type ConsoleItem = Record<string, unknown> & { id: string; account: string };

/**
 * The session's resources across all of its accounts, as the console reads them: every item
 * of a kind (newest first; deliveries oldest first, as the delivery log is), or one by id.
 * Each item is the resource's API JSON plus `account`; a delivery also names the resource its
 * event is about (`about: {kind, id}`) and the call it belongs to (`call_id`), so a dead
 * letter says which call or message it was for. Reading one item costs that item: the console
 * stream resolves the ids of a change with it. Internal: not part of the public surface.
 */
interface ConsoleViewDeps {
  calls: CallService;
  messages: MessageService;
  numbers: NumberService;
  recordings: RecordingService;
  transcripts: TranscriptService;
  subscriptions: Subscriptions;
  deliveries: Deliveries;
  bus: EventBus;
}

export class ConsoleView {
  private readonly kinds;

  constructor(private readonly deps: ConsoleViewDeps) {
    const { calls, messages, numbers, recordings, transcripts, subscriptions } = deps;
    this.kinds = {
      call: itemsOf(calls.store, (r) => calls.toJson(r)),
      message: itemsOf(messages.store, (r) => messages.toJson(r)),
      number: itemsOf(numbers.store, (r) => numbers.toJson(r)),
      recording: itemsOf(recordings.store, (r) => recordings.toJson(r)),
      transcript: itemsOf(transcripts.store, (r) => transcripts.toJson(r)),
      subscription: itemsOf(subscriptions.store, (r) => subscriptions.toJson(r)),
    };
  }

  list(kind: ConsoleKind): ConsoleItem[] {
    if (kind === 'delivery') return this.deps.deliveries.deliveries().map((d) => this.delivery(d.id)!);
    return this.kinds[kind].list();
  }

  get(kind: ConsoleKind, id: string): ConsoleItem | undefined {
    if (kind === 'delivery') return this.delivery(id);
    return this.kinds[kind].get(id);
  }

  /** A ready recording's WAV (as `GET /v1/recordings/{id}/audio` sends it), `processing`, or undefined when there is none. */
  audio(id: string): { stream: ReadableStream<Uint8Array>; byteLength: number } | 'processing' | undefined {
    const { recordings, transcripts } = this.deps;
    const recording = recordings.store.find(id);
    if (!recording) return undefined;
    if (recording.status !== 'ready') return 'processing';
    const speakers: string[] = [];
    const voiced = (transcripts.store.find(recording.transcriptId)?.segments ?? []).map((s) => {
      if (!speakers.includes(s.speaker)) speakers.push(s.speaker);
      return { startMs: s.startMs, endMs: s.endMs, voice: speakers.indexOf(s.speaker) };
    });
    return wavAudio(recording.durationS, voiced);
  }

  private delivery(id: string): ConsoleItem | undefined {
    const { deliveries, bus } = this.deps;
    const d = deliveries.find(id);
    if (!d) return undefined;
    const kind = d.eventType.slice(0, d.eventType.indexOf('.'));
    return { ...d, account: bus.accountOf(d.eventId), about: { kind, id: d.event.data.id }, call_id: callOfEvent(d.event) ?? null };
  }
}

/**
 * The API's JSON, made for this read, with the account it belongs to: set on it rather than
 * spread into a copy (show's index reads an item at every change of it; the copy was 4% of
 * a replay's time).
 */
const withAccount = (json: object, account: string): ConsoleItem => Object.assign(json as { id: string }, { account });

/** One kind's items: its store's records, each as the API's JSON with its account. */
function itemsOf<R extends StoredItem>(store: Collection<R>, toJson: (record: R) => object) {
  const item = (record: R) => withAccount(toJson(record), record.account);
  return {
    list: () => store.all().map(item),
    get: (id: string) => {
      const record = store.find(id);
      return record && item(record);
    },
  };
}

const account = anyString('The account it belongs to: the key that made it, or the account its key names.');
/** A resource as the console lists it: the API's JSON, and its account. */
const owned = <S extends Shape>(schema: ObjectSchema<S>, description: string) =>
  object({ ...schema.shape, account }, { description: `${description}, with the account it belongs to.` });

/** The console's items, written with the kit from the resources' schemas: the control API's document describes its lists with them. */
export const CONSOLE_ITEM_SCHEMAS = {
  call: owned(callSchema, 'A call'),
  message: owned(messageSchema, 'A message'),
  number: owned(phoneNumberSchema, 'A provisioned number'),
  recording: owned(recordingSchema, 'A recording'),
  transcript: owned(transcriptSchema, 'A transcript'),
  subscription: owned(subscriptionSchema, 'A webhook subscription'),
  delivery: object(
    {
      ...deliverySchema.shape,
      account,
      about: object(
        { kind: oneOf(['call', 'message', 'recording', 'transcript'], 'The kind of resource.'), id: anyString('Its id.') },
        { description: 'The resource the event is about.' },
      ),
      call_id: nullable(anyString('The call the event belongs to, if any.')),
    },
    { description: 'A webhook delivery, with its account, the resource its event is about and the call it belongs to.' },
  ),
} satisfies Record<ConsoleKind, Schema<unknown>>;
