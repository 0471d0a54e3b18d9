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

// Scripting (src/scripting/): the same functions the standalone server's control API calls
export type { CallScripting, InboundCallOptions, AnswerOptions } from './scripting/calls.js';
export type { MessageScripting, InboundMessageOptions } from './scripting/messages.js';
export type { NetworkScripting } from './scripting/network.js';
export type { FaultScripting } from './scripting/faults.js';
export type { EventLog, EventFilter } from './scripting/events.js';
export type { WebhookFilter, WebhookScripting } from './scripting/webhooks.js';
export type { RecordingScripting, TranscriptScripting } from './scripting/media.js';
export type { KeyScripting } from './scripting/keys.js';
export type { RequestJournal, RequestFilter } from './scripting/requests.js';
export type { JournalEntry } from './state/journal.js';
export { mergeCoverage } from './scripting/coverage-report.js';
export { coverageSummary } from './scripting/coverage-summary.js';
export type { CoverageReport } from './scripting/coverage-report.js';
export type { CoverageGap } from './scripting/coverage-gaps.js';

// Scenarios and triggers (docs/scenarios.md)
export type { Scenario, ScenarioStep, ScenarioExpectation } from './scenarios/schema.js';
export type { ScenarioResult, ScenarioFailure, TimelineEntry } from './scenarios/result.js';
export type { ScenarioRunOptions } from './scenarios/run.js';
export { parseScenario, scenarioJsonSchema } from './scenarios/schema.js';
export { formatTimeline } from './scenarios/result.js';
export { timelineSvg } from './scenarios/timeline-svg.js';
export type { TriggerOptions, TriggerOverrides } from './scenarios/triggers.js';
export type { ReceiverAnswer } from './webhooks/receivers.js';
export type { SandboxSnapshot, SnapshotInput, SnapshotAttempt } from './scripting/snapshots.js';
export { writeSnapshotFile } from './server/snapshot-file.js';

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
} from './state/resources.js';
// The events, each defined once (src/state/events.ts)
export type { SandboxEvent, EventType, EventData } from './state/events.js';
export { EVENT_TYPES } from './state/events.js';
export type { NumberKind } from './sim/inventory.js';
export type { RecordingTiming } from './state/recordings.js';
export type { ConversationLine } from './sim/conversations.js';
export type { ErrorBody, ErrorCode } from './api/errors.js';
export type { OpenAPIDocument, OpenAPIOperation, OpenAPIPathItem } from './api/openapi-document.js';
export type { ListBody } from './api/pagination.js';

// Webhooks: receiving, and watching deliveries
export { verifyWebhook } from './webhooks/signature.js';
export { checkReceiver } from './sandbox.js';
export type { CheckReceiverOptions, ReceiverCase, ReceiverCheck } from './webhooks/check-receiver.js';
export type { RawBody } from './webhooks/signature.js';
export { WEBHOOK_RETRY_SCHEDULE } from './webhooks/retry-schedule.js';
export type { WebhookAttempt, WebhookDelivery, DeliveryState, DeliveryChaos } from './webhooks/delivery.js';

// Errors
export { SandboxError } from './core/errors.js';
export type { SandboxErrorCode } from './core/errors.js';
