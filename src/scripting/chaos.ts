import { durationSchema, checkedMs } from '../core/duration.js';
import { integer, invalid, map, name, number, object, optional, record, type Schema, said } from '../core/schema.js';
import { MAX_LATENCY_MS, ROUTE_KEY, type ChaosProfile } from '../state/chaos.js';

/**
 * The schema of a chaos profile (src/state/chaos.ts, docs/chaos.md): `createSandbox({ chaos })`
 * and the server's session field `chaos` check it, and the server's OpenAPI document shows it
 * in the session body.
 */

const probability = (description: string) => number({ description: `${description} (from 0 to 1)`, min: 0, max: 1 });

/** A duration of added latency: 1 ms to {@link MAX_LATENCY_MS}. */
const latencySpan = map(durationSchema, (value, path) => {
  const ms = checkedMs(value);
  if (ms < 1 || ms > MAX_LATENCY_MS)
    throw invalid(
      said`${name(path)} must be from 1 ms to 60 s, e.g. '300ms' or '2s' (a longer latency is a hang: use network instead).`,
      path,
    );
  return value;
});

/** The probabilities of `fields` share one draw: refuses a sum over 1, naming the object. */
function oneDraw(fields: readonly string[]) {
  return (value: Record<string, unknown>, path: string) => {
    const sum = fields.reduce((total, field) => total + ((value[field] as number | undefined) ?? 0), 0);
    if (sum > 1 + 1e-9) {
      throw invalid(
        said`${name(path)}: ${fields.map((f) => `\`${f}\``).join(', ')} share one draw, so they add up to at most 1; they add up to ${Number(sum.toFixed(6))}.`,
        path,
      );
    }
  };
}

const latency = object(
  {
    rate: probability('Probability a request is delayed'),
    delay: latencySpan,
    max: optional(latencySpan),
  },
  {
    description:
      'Added latency: real time before the answer leaves (the request was handled already); the virtual clock does not move for it.',
    label: 'option',
    check: (value, path) => {
      if (value.max !== undefined && checkedMs(value.max) < checkedMs(value.delay)) {
        throw invalid(
          said`${name(path ? `${path}.max` : 'max')} must be at least \`delay\`: each latency is drawn from delay to max.`,
          path ? `${path}.max` : 'max',
        );
      }
    },
  },
);

const serverStatus = integer({ description: 'The status of a serverError answer (default 503)', min: 500, max: 599 });

const requestChaos = object(
  {
    serverError: optional(probability('Probability of a 5xx answer (`status`), which changes nothing')),
    status: optional(serverStatus),
    rateLimited: optional(probability('Probability of a 429 rate_limited answer with Retry-After: 1, which changes nothing')),
    network: optional(probability('Probability the connection drops before the request is handled')),
    latency: optional(latency),
  },
  {
    description: "What one route's requests suffer; serverError, rateLimited and network share one draw.",
    label: 'option',
    check: oneDraw(['network', 'rateLimited', 'serverError']),
  },
);

const callMix = object(
  {
    failed: optional(probability('Probability an outbound call fails')),
    busy: optional(probability('Probability an outbound call is busy')),
    no_answer: optional(probability('Probability an outbound call is not answered')),
    voicemail: optional(probability('Probability an outbound call is answered by voicemail')),
  },
  {
    description: 'The carrier mix of outbound calls nothing scripted; the rest are answered by a human.',
    label: 'option',
    check: oneDraw(['failed', 'busy', 'no_answer', 'voicemail']),
  },
);

const messageMix = object(
  { failed: optional(probability('Probability an outbound message ends failed')) },
  { description: 'The messaging mix of outbound messages nothing scripted; the rest are delivered.', label: 'option' },
);

const webhookChaos = object(
  {
    duplicate: optional(probability('Probability a delivery is sent twice (same event id, body and signature)')),
    reorder: optional(probability('Probability a delivery is held back by reorderDelay, so later events overtake it')),
    reorderDelay: optional(
      map(durationSchema, (value, path) => {
        const ms = checkedMs(value);
        if (ms < 1 || ms > 86_400_000) throw invalid(said`${name(path)} must be from 1 ms to 1 day of virtual time, e.g. '30s'.`, path);
        return value;
      }),
    ),
  },
  { description: 'Webhook delivery that duplicates and reorders, as an at-least-once sender does.', label: 'option' },
);

const requests = record(requestChaos, {
  description:
    'Faults and latency by route: "default", a path ("/v1/calls/{id}") or a method and a path ("POST /v1/calls"); the most specific key ' +
    'that fits a request applies.',
  key: ROUTE_KEY,
  keyHint: '"default", a path such as "/v1/calls/{id}", or a method and a path such as "POST /v1/calls"',
});

/** `ChaosProfile`, checked: the type the compiler holds this schema to is the documented interface. */
export const chaosProfile: Schema<ChaosProfile> = object(
  { requests: optional(requests), calls: optional(callMix), messages: optional(messageMix), webhooks: optional(webhookChaos) },
  {
    description:
      'A seeded chaos profile (docs/chaos.md): injected faults and latency per route, a carrier mix, and webhook delivery that duplicates and reorders.',
    label: 'option',
  },
);
