import { chaosProfile } from '../../scripting/chaos.js';
import { CLOCK_MODES } from '../../core/clock.js';
import { durationSchema } from '../../core/duration.js';
import { annotated, dateTime, integer, literal, object, oneOf, optional, string, type Infer } from '../../core/schema.js';
import { testKey } from '../../scripting/keys.js';
import { advanceAnswer, advanceUntil, sessionSchema, withUntil } from './scripting.js';
import { pageOf, pageParameters, slicePage } from './pages.js';
import { snapshotField } from './snapshots.js';
import { controlRoute, type ControlRoute } from './route.js';

/** The control API's session rows (docs/server.md): health, making, listing and ending sessions, their clock and reset. */

const advanceBody = object({ duration: durationSchema }, { description: "How far to move the session's virtual clock." });
const sessionBody = object(
  {
    seed: optional(
      integer({
        description: "The seed of the new sandbox (default: the server's)",
        min: Number.MIN_SAFE_INTEGER,
        max: Number.MAX_SAFE_INTEGER,
      }),
    ),
    startTime: optional(string({ description: "Virtual clock start, ISO 8601 (default: the server's)", max: 64, format: 'date-time' })),
    webhookTimeout: optional(durationSchema), // real time a webhook attempt may take (default: the server's, 10 s)
    clock: optional(
      oneOf(
        CLOCK_MODES,
        "How the session's virtual time moves: only by advance (manual), or also with the wall clock (realtime). Default: the server's.",
      ),
    ),
    deprecation: optional(
      object(
        {
          sunset: dateTime('When /v1 stops answering (the Sunset header).'),
          link: optional(
            string({
              description: 'The successor version\'s documentation (Link: <link>; rel="successor-version")',
              max: 2000,
              format: 'uri',
            }),
          ),
          date: optional(dateTime("When /v1 was deprecated (the Deprecation header). Default: the session's startTime.")),
        },
        { description: "Marks the session's /v1 deprecated: Deprecation, Sunset and Link headers on every answer." },
      ),
    ),
    chaos: optional(chaosProfile), // createSandbox's `chaos` (docs/chaos.md)
    // docs/snapshots.md: start from a snapshot, or fork a session (its snapshot now).
    snapshot: optional(snapshotField),
    from: optional(string({ description: 'A session to fork: the new one starts from its snapshot, now', max: 100 })),
  },
  { description: 'A new session.' },
);

/** A new session, as POST /sessions answers: its id, the key its suite uses, and its virtual now. */
const madeSession = object(
  {
    id: sessionSchema.shape.id,
    apiKey: annotated(testKey, { description: 'A test key of the session, for its suite: it opens the session on /v1.' }),
    now: sessionSchema.shape.now,
  },
  {
    description: 'A session made.',
    example: { id: 'ses_4kT9wQ2mX7bN1cRz', apiKey: 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA', now: '2026-01-01T09:00:00.000Z' },
  },
);

export const sessionRoutes: ControlRoute[] = [
  controlRoute({
    method: 'GET',
    path: '/health',
    summary: 'Is the server up',
    operationId: 'health',
    description: 'Answers 200 `{"status": "ok"}` while the server is up: poll it before the first test runs.',
    status: 200,
    global: true,
    response: object({ status: literal('ok', 'Always `ok` while the server answers.') }, { description: 'The server answers.' }).openapi(),
    handle: () => ({ status: 200, body: { status: 'ok' } }),
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions',
    summary: 'Start a session: a sandbox of its own, with its own clock and seed',
    operationId: 'createSession',
    description:
      'Starts a session: a sandbox of its own (clock, seed, ids, accounts, webhook queues), so parallel test workers never share state. ' +
      'The answer carries an API key that routes `/v1` requests to it; a server holds at most 1,000 live sessions (409 past that).',
    body: sessionBody,
    examples: {
      seeded: {
        summary: 'A session of its own seed, its clock starting at 09:00 UTC',
        value: { seed: 42, startTime: '2026-01-01T09:00:00Z' },
      },
      fork: { summary: 'A fork of the default session: its state now, to diverge from', value: { from: 'default' } },
    },
    status: 201,
    global: true,
    response: madeSession.openapi(),
    handle: async ({ sessions, body }) => {
      const { session, apiKey } = await sessions.open(body);
      const made: Infer<typeof madeSession> = { id: session.id, apiKey, now: session.sandbox.now().toISOString() };
      return { status: 201, body: made };
    },
  }),
  controlRoute({
    method: 'GET',
    path: '/sessions',
    summary: 'List sessions',
    operationId: 'listSessions',
    description: 'The live sessions with their seed and virtual time; `default` always exists.',
    status: 200,
    global: true,
    response: pageOf(sessionSchema),
    query: pageParameters,
    handle: ({ sessions, query }) => {
      const page = slicePage(sessions.list(), (s) => s.id, query, 'sessions', '');
      return {
        status: 200,
        body: { ...page, data: page.data.map((s) => ({ id: s.id, seed: s.seed, now: s.sandbox.now().toISOString() })) },
      };
    },
  }),
  controlRoute({
    method: 'DELETE',
    path: '/sessions/{s}',
    summary: 'End a session; its keys are 401 from then on',
    operationId: 'deleteSession',
    description:
      'Ends a session: an advance in progress answers 409 `interrupted`, and its keys are 401 from then on. `default` cannot be deleted (409).',
    status: 204,
    handle: ({ sessions, session }) => {
      sessions.delete(session.id);
      return { status: 204 };
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/advance',
    summary: "Move the session's virtual clock by `duration` (sandbox.advance), or until an event of type `until` (sandbox.advanceUntil)",
    operationId: 'advance',
    description:
      'Moves the session\'s virtual clock forward by `duration` (e.g. "90s", "25h"), running every timer due on the way: call lifecycles, ' +
      'deliveries and their retries. It answers with the events emitted meanwhile, oldest first; a reset or delete during it is 409 ' +
      '`interrupted`.',
    body: withUntil(advanceBody),
    examples: {
      duration: { summary: 'Ninety seconds of virtual time', value: { duration: '90s' } },
      until: { summary: 'Until the next call completes, an hour at most', value: { until: 'call.completed', max: '1h' } },
    },
    status: 200,
    response: advanceAnswer.openapi(),
    handle: async ({ session, body }) => {
      if ('until' in body) return advanceUntil(session, body);
      const { duration: d } = body;
      // Positions, not copies: the answer costs the events it carries, whatever the log's length.
      const log = session.internals.events;
      const before = log.length;
      await session.sandbox.advance(d);
      return { status: 200, body: { now: session.sandbox.now().toISOString(), events: log.after(before, log.length - before) } };
    },
  }),
  controlRoute({
    method: 'POST',
    path: '/sessions/{s}/reset',
    summary: 'Reset the session (sandbox.reset); keys it made stay valid',
    operationId: 'reset',
    description: 'Resets the session to its starting state (clock, data, queues) as `sandbox.reset()` does; keys it made stay valid.',
    status: 204,
    handle: ({ session }) => {
      session.sandbox.reset();
      return { status: 204 };
    },
  }),
];
