/** The seven event types of the spec, named exactly as its event list names them. */
export const EVENT_TYPES = [
  'call.started',
  'call.answered',
  'call.completed',
  'message.received',
  'message.delivered',
  'recording.ready',
  'transcript.ready',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One platform event, in the envelope of CONTRACT §6. The same object is the webhook
 * body (serialised once, signed over those exact bytes) and an entry of the event log.
 */
export interface SandboxEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  created_at: string;
  data: T;
}
