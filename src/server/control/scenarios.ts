import { callSchema, EVENT_TYPES, EVENTS, eventSchema } from '../../scripting/json-schemas.js';
import { scenarioResultSchema } from '../../scenarios/result.js';
import { scenarioSchema } from '../../scenarios/schema.js';
import { annotated, custom, invalid, object, oneOf, optional, string, type Infer, type Schema } from '../../core/schema.js';
import { Slices } from '../../core/slices.js';
import { controlRoute, type ControlRoute } from './route.js';
import { json } from '../http.js';
import type { Session } from '../sessions.js';

/**
 * Scenarios and triggers over the control API (docs/scenarios.md): the library's
 * `sandbox.run` and `sandbox.trigger` on the session's sandbox, run as the session's key,
 * so a Python suite and a Node suite share one scenario file and see the same account.
 */

/**
 * The key the session's client uses, as its sandbox knows it: the key it was made with, or for
 * a session made from a snapshot or a fork, the original session's key its own stands for.
 */
function sessionKey(session: Session): string | undefined {
  return session.primaryKey ?? session.issued.values().next().value;
}

/** `data`: the trigger's overrides, checked by the library with the type's schema. */
const overrides: Schema<Record<string, unknown>> = custom({
  hint: 'an object of the event data fields to set',
  parse(value, path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw invalid(`\`${path}\` must be an object of the event's data fields to set, e.g. {"disposition": "busy"}.`, path);
    return value as Record<string, unknown>;
  },
  openapi: () => ({
    description: 'Fields of the event\'s data to set; which ones each type takes: docs/scenarios.md, "Triggers".',
    anyOf: EVENT_TYPES.map((t) => EVENTS[t].trigger.openapi()),
  }),
});

const triggerBody = object(
  {
    type: oneOf(EVENT_TYPES, 'The event to make.'),
    data: optional(overrides),
    apiKey: optional(string({ description: "The account (default: the session's key)", max: 200 })),
  },
  { description: 'Make one event of `type` through a real state change.' },
);

/** The resources' example call (src/state/resources.ts) to a busy line: completed at 1 s, never answered. */
const placed = callSchema.example!;
const busyCall = {
  ...placed,
  status: 'completed' as const,
  disposition: 'busy' as const,
  duration: 0,
  ended_at: '2026-01-01T00:00:01.000Z',
};
const callId = placed.id;
const busyLine = (at: string, offsetMs: number) => ({ offsetMs, at, subject: callId, callId });

/** What the scenario example (a busy line) comes to, as a fresh session runs it. */
const scenarioResultExample: Infer<typeof scenarioResultSchema> = {
  name: 'A busy line',
  passed: true,
  held: 1,
  timeline: [
    { offsetMs: 0, at: '2026-01-01T00:00:00.000Z', kind: 'setup', text: 'network +14155550123: outcome=busy' },
    { offsetMs: 0, at: '2026-01-01T00:00:00.000Z', kind: 'request', text: `POST /v1/calls -> 201 ${callId} ringing`, subject: callId },
    {
      ...busyLine('2026-01-01T00:00:00.000Z', 0),
      kind: 'event',
      text: `call.started      ${callId} ringing outbound +14155550100 -> +14155550123`,
      eventType: 'call.started',
    },
    {
      ...busyLine('2026-01-01T00:00:01.000Z', 1000),
      kind: 'event',
      text: `call.completed    ${callId} completed disposition=busy duration=0s`,
      eventType: 'call.completed',
    },
    { offsetMs: 5000, at: '2026-01-01T00:00:05.000Z', kind: 'expect', text: `ok   GET /v1/calls/${callId}: status, disposition, duration` },
  ],
  failure: null,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:00:05.000Z',
};

/** Each with a `description` of its own, which the control document uses (src/server/openapi.ts). */
export const scenarioRoutes: ControlRoute[] = [
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/scenario',
    summary:
      'sandbox.run: run a scenario file on the session (its JSON as the body): 200 with the result, passed or not; 400 naming the JSON path of an invalid file',
    operationId: 'runScenario',
    description:
      'Runs a scenario file (docs/scenarios.md; its JSON Schema is svc-sandbox/scenario.schema.json) on the session from its current ' +
      "virtual now, as the session's key: numbers, subscriptions and the carrier first, then each step at its `at`. Answers 200 with " +
      '`passed`, the timeline and the first expectation that failed with what was seen instead; 400 with `param` the JSON path when ' +
      'the file is not valid; 409 `interrupted`, naming the step it stopped at, when the session is deleted or reset while the ' +
      'scenario runs (it runs in slices, so the server answers other requests meanwhile: docs/server.md, "Long work").',
    body: scenarioSchema,
    examples: {
      busy: {
        summary: 'A call to a busy line completes busy',
        value: {
          name: 'A busy line',
          network: { '+14155550123': [{ outcome: 'busy' }] },
          steps: [
            { at: '0s', request: { method: 'POST', path: '/v1/calls', body: { to: '+14155550123', from: '+14155550100' }, as: 'call' } },
            {
              at: '5s',
              expect: { resources: [{ path: '/v1/calls/{{call.id}}', fields: { status: 'completed', disposition: 'busy', duration: 0 } }] },
            },
          ],
        },
      },
    },
    status: 200,
    response: annotated(scenarioResultSchema, { example: scenarioResultExample }).openapi(),
    handle: async ({ session, body }) => {
      // The body's read and check (tens of ms for a file of 13,000 steps) and the run's own check are two turns, not one.
      await new Slices(0).pause();
      const key = sessionKey(session);
      return json(200, await session.sandbox.run(body, key === undefined ? {} : { apiKey: key }));
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/trigger',
    summary:
      'sandbox.trigger: make one event of a type through a real state change (virtual time moves as far as it needs): 201 with the event',
    operationId: 'triggerEvent',
    description:
      "Makes one event of `type` through the smallest real story that ends in it, told through /v1 with the session's key (or `apiKey`): " +
      "the resource read afterwards equals the event's data and the webhook is signed like any other. Virtual time moves as far as the " +
      'story needs. `data` sets fields of the event\'s data (docs/scenarios.md, "Triggers"); an unknown one is 400 naming ' +
      '`data.<field>`.',
    body: triggerBody,
    examples: {
      busy: {
        summary: 'A call.completed of a call that found the line busy',
        value: { type: 'call.completed', data: { disposition: 'busy' } },
      },
    },
    status: 201,
    response: annotated(eventSchema, {
      example: { id: 'evt_3Ld8Qw1Zk5Ns9Hy6', type: 'call.completed', created_at: busyCall.ended_at, data: busyCall },
    }).openapi(),
    fields: { overrides: 'data' },
    handle: async ({ session, body }) => {
      const apiKey = body.apiKey ?? sessionKey(session);
      // The overrides are checked by the library, with the schema of the event type asked for.
      const event = await session.sandbox.trigger(body.type, body.data ?? {}, apiKey === undefined ? {} : { apiKey });
      return json(201, event);
    },
  }),
];
