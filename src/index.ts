/**
 * svc-sandbox: an in-process, deterministic simulator of the Voice and Messaging API.
 * See README.md for a quick start and docs/ for every decision the spec leaves open.
 */

// The sandbox
export { createSandbox, Sandbox } from './sandbox.js';
export type { InternalError } from './sandbox.js';
export type { InboundCallOptions, CallScripting } from './control/calls.js';
export type { MessageScripting } from './control/messages.js';
export type { EventLog, EventFilter } from './control/events.js';
export type { SandboxOptions, KeyOptions, Scope, Resource } from './options.js';
export type { Duration } from './core/duration.js';

// Scripting the simulated network
export type { CallBehavior, CallOutcome, Answerer } from './state/network.js';
export type { FaultRule, ActiveFault } from './api/faults.js';
export { MAGIC_NUMBERS } from './state/network.js';

// Resources and events as the API shows them
export type { Call, CallStatus, CallDirection } from './state/calls.js';
export type { Disposition, AnsweredBy } from './state/call-machine.js';
export type { Campaign } from './state/dialer.js';
export type { SandboxEvent, EventType } from './state/event-types.js';
export { EVENT_TYPES } from './state/event-types.js';
export type { ErrorBody, ErrorCode } from './api/errors.js';
export type { ListBody } from './api/pagination.js';

// Numbers and messaging (docs/numbers.md, docs/messaging.md)
export type { PhoneNumber, AvailableNumber, NumberRouting, RoutingType } from './state/numbers.js';
export type { NumberKind, NumberCapabilities } from './sim/inventory.js';
export type { Message, MessageStatus, MessageDirection, MessageChannel, MessageMedia } from './state/messages.js';
export type { InboundMessageOptions } from './state/inbound.js';
export { MAGIC_MESSAGE_NUMBERS } from './state/message-network.js';
export type { MessageBehavior, MessageOutcome } from './state/message-network.js';

// Webhooks: receiving, and watching deliveries
export { verifyWebhook } from './events/signature.js';
export type { RawBody } from './events/signature.js';
export { WEBHOOK_RETRY_SCHEDULE } from './events/retry-schedule.js';
export type { WebhookSubscription } from './state/subscriptions.js';
export type { WebhookAttempt, WebhookDelivery, DeliveryState } from './events/deliveries.js';
export type { WebhookFilter, WebhookScripting } from './control/webhooks.js';

// Recordings and transcripts (docs/recordings.md, docs/transcripts.md)
export type { Recording, RecordingStatus, RecordingTiming } from './state/recordings.js';
export type { Transcript, TranscriptSegment, TranscriptStatus } from './state/transcripts.js';
export type { ConversationLine } from './sim/conversations.js';
export type { RecordingScripting, TranscriptScripting } from './control/media.js';

// Errors
export { SandboxError } from './core/errors.js';
