/**
 * svc-sandbox: an in-process, deterministic simulator of the Voice and Messaging API.
 * See README.md for a quick start and docs/ for every decision the spec leaves open.
 */

// The sandbox
export { createSandbox, Sandbox } from './sandbox.js';
export type { InternalError } from './sandbox.js';
export type { SandboxOptions, UnhandledRequestMode } from './options.js';
export type { KeyOptions, Scope, Resource, ApiKey } from './state/accounts.js';
export type { Duration } from './core/duration.js';

// The standalone server (docs/server.md)
export { startServer } from './server/server.js';
export type { ServerOptions, SandboxServer } from './server/server.js';

// Scripting (src/control/): the same functions the standalone server's control API calls
export type { CallScripting, InboundCallOptions, AnswerOptions } from './control/calls.js';
export type { MessageScripting, InboundMessageOptions } from './control/messages.js';
export type { NetworkScripting } from './control/network.js';
export type { FaultScripting } from './control/faults.js';
export type { EventLog, EventFilter } from './control/events.js';
export type { WebhookFilter, WebhookScripting } from './control/webhooks.js';
export type { RecordingScripting, TranscriptScripting } from './control/media.js';
export type { KeyScripting } from './control/keys.js';
export type { RequestJournal, RequestFilter } from './control/requests.js';
export type { JournalEntry } from './state/journal.js';
export { mergeCoverage, coverageSummary } from './control/coverage-report.js';
export type { CoverageReport } from './control/coverage-report.js';

// Scenarios and triggers (docs/scenarios.md)
export type {
  Scenario,
  ScenarioStep,
  ScenarioExpectation,
  ScenarioResult,
  ScenarioFailure,
  ScenarioRunOptions,
  TimelineEntry,
} from './control/scenario.js';
export { parseScenario, scenarioJsonSchema, formatTimeline } from './control/scenario.js';
export { timelineSvg } from './control/timeline-svg.js';
export type { TriggerOptions, TriggerOverrides } from './control/triggers.js';
export type { ReceiverAnswer } from './events/receivers.js';
export type { SandboxSnapshot, SnapshotInput, SnapshotAttempt } from './control/snapshots.js';

// Scripting the simulated network
export type { CallBehavior, CallOutcome, Answerer, MessageBehavior, MessageOutcome, Disposition, AnsweredBy } from './sim/carrier.js';
export { MAGIC_NUMBERS, MAGIC_MESSAGE_NUMBERS } from './sim/carrier.js';
export type { FaultRule, ActiveFault } from './state/faults.js';
export type { ChaosProfile, RequestChaos, LatencyChaos, CallMix, MessageMix, WebhookChaos } from './state/chaos.js';

// Resources and events as the API shows them (one schema each: src/state/resources.ts)
export type {
  Call,
  CallStatus,
  CallDirection,
  Campaign,
  PhoneNumber,
  AvailableNumber,
  NumberRouting,
  RoutingType,
  NumberCapabilities,
  Message,
  MessageStatus,
  MessageDirection,
  MessageChannel,
  MessageMedia,
  Recording,
  RecordingStatus,
  Transcript,
  TranscriptSegment,
  TranscriptStatus,
  WebhookSubscription,
  SandboxEvent,
  EventType,
  EventData,
} from './state/resources.js';
export { EVENT_TYPES } from './state/resources.js';
export type { NumberKind } from './sim/inventory.js';
export type { RecordingTiming } from './state/recordings.js';
export type { ConversationLine } from './sim/conversations.js';
export type { ErrorBody, ErrorCode } from './api/errors.js';
export type { ListBody } from './api/pagination.js';

// Webhooks: receiving, and watching deliveries
export { verifyWebhook } from './events/signature.js';
export { checkReceiver } from './server/check-receiver.js';
export type { CheckReceiverOptions, ReceiverCase, ReceiverCheck } from './server/check-receiver.js';
export type { RawBody } from './events/signature.js';
export { WEBHOOK_RETRY_SCHEDULE } from './events/retry-schedule.js';
export type { WebhookAttempt, WebhookDelivery, DeliveryState, DeliveryChaos } from './events/deliveries.js';

// Errors
export { SandboxError } from './core/errors.js';
export type { SandboxErrorCode } from './core/errors.js';
