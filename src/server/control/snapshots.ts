import { packageVersion } from '../../core/package-version.js';
import { annotated, custom, type Schema } from '../../core/schema.js';
import { SNAPSHOT_FORMAT, type SandboxSnapshot, snapshotSchema } from '../../scripting/snapshots.js';
import type { ControlRoute } from './route.js';

/**
 * Snapshots in the control API (docs/snapshots.md): a session's snapshot to keep, and the
 * `snapshot` and `from` fields of POST /__sandbox/sessions that start a session from one.
 */

/** The snapshot of a session that has subscribed a webhook, its one input: what `GET .../snapshot` answers then. */
function snapshotExample(): SandboxSnapshot {
  const apiKey = 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA';
  const body = JSON.stringify({ url: 'https://example.com/webhooks', events: ['call.completed'] });
  return {
    format: SNAPSHOT_FORMAT,
    version: packageVersion(),
    options: {
      baseUrl: 'http://127.0.0.1:12111',
      seed: 42,
      startTime: '2026-01-01T09:00:00.000Z',
      keys: {},
      onlyConfiguredKeys: false,
      aiHandler: 'ava',
      dialInterval: 1000,
      webhookTimeout: 10000,
      templates: {},
      clock: 'manual',
    },
    now: '2026-01-01T09:00:00.000Z',
    inputs: [
      { kind: 'call', at: 1767258000000, name: 'keys.create', args: [{ key: apiKey }] },
      {
        kind: 'request',
        at: 1767258000000,
        method: 'POST',
        path: '/v1/webhooks',
        headers: [
          ['authorization', `Bearer ${apiKey}`],
          ['content-length', String(body.length)],
          ['content-type', 'application/json'],
        ],
        body,
      },
    ],
    attempts: [],
    apiKey,
  };
}

/** A snapshot as the control API describes it: the schema that parses one (scripting/snapshots.ts `snapshotSchema`), in its words. */
const documented = annotated(snapshotSchema, {
  description: 'A snapshot (docs/snapshots.md): the options and every input of a session, to start another from. Treat it as opaque.',
  example: snapshotExample(),
});

/** The `snapshot` field of POST /__sandbox/sessions: checked by createSandbox, which names the field at fault (`snapshot.version`). */
export const snapshotField: Schema<SandboxSnapshot> = custom({
  hint: 'a snapshot (GET /__sandbox/sessions/{s}/snapshot)',
  parse: (value) => value as SandboxSnapshot,
  like: documented,
});

const getSnapshot: ControlRoute & { description: string } = {
  method: 'GET',
  path: '/sessions/{s}/snapshot',
  summary: "The session's snapshot (sandbox.snapshot()): POST /__sandbox/sessions {snapshot} starts a session from it",
  operationId: 'getSnapshot',
  description:
    "The session's snapshot (`sandbox.snapshot()`, docs/snapshots.md): its options and every input since it was made, with the webhook " +
    "attempts' results, and the session's `apiKey`. `POST /__sandbox/sessions {snapshot}` starts a session that is this one at this " +
    "instant, and whose key stands for this session's. 409 while a request's body is still arriving.",
  status: 200,
  response: documented.openapi(),
  handle: ({ session }) => {
    const snapshot: SandboxSnapshot = session.sandbox.snapshot();
    if (session.primaryKey !== null) snapshot.apiKey = session.primaryKey;
    return { status: 200, body: snapshot };
  },
};

export const snapshotRoutes: ControlRoute[] = [getSnapshot];
