import { array, boolean, integer, nullable, object, oneOf, optional, type Schema, timestamp } from '../core/schema.js';
import { anyString, json } from '../core/schema-values.js';
import type { DeliveryState, WebhookAttempt } from '../webhooks/delivery.js';
import { describeEvent, EVENT_TYPES, type EventType, type SandboxEvent } from '../state/events.js';

/**
 * What a scenario run resolves with (docs/scenarios.md, "Results"): the types, the lines of
 * its timeline as `svc-sandbox run` prints them, and the JSON Schema of the control API's answer.
 */

/** One line of a run's timeline. */
export interface TimelineEntry {
  /** Virtual milliseconds since the scenario began. */
  offsetMs: number;
  /** Virtual instant, ISO 8601. */
  at: string;
  kind: 'setup' | 'step' | 'request' | 'event' | 'attempt' | 'expect' | 'failure';
  /** The line as `svc-sandbox run` prints it after the time. */
  text: string;
  /** The resource the line is about (a call, message, recording or transcript id), if any. */
  subject?: string;
  /** For an event: its type; for an attempt: the type of the event delivered. */
  eventType?: EventType;
  /** For an attempt: whether the receiver took it. */
  ok?: boolean;
  /** For a call event: the call, for a picture of it. */
  callId?: string;
}

/** The first expectation that did not hold. */
export interface ScenarioFailure {
  /** Index of the step. */
  step: number;
  /** JSON path of what failed in the file, e.g. `steps[4].expect.resources[0].fields.status`. */
  path: string;
  message: string;
  expected: unknown;
  /** What was seen instead. */
  seen: unknown;
}

/** What `sandbox.run` resolves with. */
export interface ScenarioResult {
  name: string;
  passed: boolean;
  /** Expectations checked and held (a request's `status`/`fields` count as one). */
  held: number;
  timeline: TimelineEntry[];
  failure: ScenarioFailure | null;
  startedAt: string;
  endedAt: string;
}

/** Seconds since the start, as the demo prints them: `+   65s`. */
export function formatOffset(ms: number): string {
  return `+${String(ms / 1000).padStart(5)}s`;
}

/** The timeline as `svc-sandbox run` prints it: one line per entry, the demo's format. */
export function formatTimeline(result: ScenarioResult): string {
  return result.timeline.map((entry) => `${formatOffset(entry.offsetMs)}  ${entry.text}`).join('\n');
}

/** An event as a timeline line: its type, then what its definition says of it (state/events.ts). */
export function eventLine(event: SandboxEvent): Pick<TimelineEntry, 'text' | 'subject' | 'callId'> {
  const { text, subject, callId } = describeEvent(event);
  return { text: `${event.type.padEnd(17)} ${text}`, subject, ...(callId === undefined ? {} : { callId }) };
}

/** A webhook attempt as a timeline line. */
export function attemptLine(attempt: WebhookAttempt, state: DeliveryState): string {
  const answer = attempt.status === null ? 'no answer' : String(attempt.status);
  return (
    `${'webhook'.padEnd(17)} ${attempt.eventType} -> ${attempt.url} ${answer} (attempt ` +
    `${attempt.attempt}${attempt.replay ? `, replay ${attempt.replay}` : ''}; ${state})`
  );
}

const text = (description: string) => anyString(description);
const timelineEntrySchema = object(
  {
    offsetMs: integer({ description: 'Virtual milliseconds since the scenario began.', min: 0, max: Number.MAX_SAFE_INTEGER }),
    at: timestamp('Virtual instant, ISO 8601.'),
    kind: oneOf(['setup', 'step', 'request', 'event', 'attempt', 'expect', 'failure'], 'What the line tells.'),
    text: text('The line as `svc-sandbox run` prints it after the time.'),
    subject: optional(text('The resource the line is about (a call, message, recording or transcript id).')),
    eventType: optional(oneOf(EVENT_TYPES, 'For an event: its type; for an attempt: the type of the event delivered.')),
    ok: optional(boolean('For an attempt: whether the receiver took it.')),
    callId: optional(text('For a call event: the call, for a picture of it.')),
  },
  { description: "One line of a run's timeline." },
) satisfies Schema<TimelineEntry>;
const failureSchema = object(
  {
    step: integer({ description: 'Index of the step (-1: the setup).', min: -1, max: Number.MAX_SAFE_INTEGER }),
    path: text('JSON path in the file, e.g. steps[4].expect.events[2].'),
    message: text('What did not hold.'),
    expected: json('What the file expected.'),
    seen: json('What was seen instead.'),
  },
  { description: 'The first expectation that did not hold.' },
) satisfies Schema<ScenarioFailure>;

/** What a scenario run resolves with, written once: {@link ScenarioResult} is checked against it, the control API's document reads it. */
export const scenarioResultSchema = object(
  {
    name: text('The scenario’s name.'),
    passed: boolean('Whether every expectation held.'),
    held: integer({ description: 'Expectations checked that held.', min: 0, max: Number.MAX_SAFE_INTEGER }),
    timeline: array(timelineEntrySchema, { description: 'What happened, in order.' }),
    failure: nullable(failureSchema),
    startedAt: timestamp('Virtual instant the run began.'),
    endedAt: timestamp('Virtual instant the run ended.'),
  },
  {
    description: 'What a scenario run came to: passed, its timeline, and the first expectation that failed with what was seen instead.',
  },
) satisfies Schema<ScenarioResult>;
