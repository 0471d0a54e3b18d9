/**
 * svc-sandbox: an in-process, deterministic simulator of the Voice and Messaging API.
 * See README.md for a quick start and docs/ for every decision the spec leaves open.
 */

// The sandbox
export { createSandbox, Sandbox } from './sandbox.js';
export type { InboundCallOptions, InternalError } from './sandbox.js';
export type { SandboxOptions, KeyOptions, Scope, Resource } from './options.js';
export type { Duration } from './sim/duration.js';

// Scripting the simulated network
export type { CallBehavior, CallOutcome, Answerer } from './sim/network.js';
export { MAGIC_NUMBERS } from './sim/network.js';

// Resources and events as the API shows them
export type { Call, CallStatus, CallDirection } from './state/calls.js';
export type { Disposition, AnsweredBy } from './state/call-machine.js';
export type { Campaign } from './sim/dialer.js';
export type { SandboxEvent, EventType } from './events/types.js';
export { EVENT_TYPES } from './events/types.js';
export type { ErrorBody, ErrorCode } from './api/errors.js';
export type { ListBody } from './api/pagination.js';

// Errors
export { SandboxError } from './errors.js';
