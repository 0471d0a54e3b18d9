import { type InternalOptions, REPLAY_IN_SLICES, type SandboxOptions } from './options.js';
import type { SandboxInternals } from './root/parts.js';
import { SandboxBase } from './root/sandbox-base.js';
import type { ScenarioResult } from './scenarios/result.js';
import type { Scenario } from './scenarios/schema.js';
import { runScenario, type ScenarioRunOptions } from './scenarios/run.js';
import { trigger, type TriggerOptions, type TriggerOverrides } from './scenarios/triggers.js';
import type { EventType, SandboxEvent } from './state/events.js';
import { type CheckReceiverOptions, type MakeEvents, type ReceiverCheck, runReceiverCheck } from './webhooks/check-receiver.js';

export type { InternalError, SandboxInternals } from './root/parts.js';

/**
 * One simulated service: its own clock, seeded randomness, accounts, calls and event
 * log. Nothing is shared between two sandboxes except the process-wide interception,
 * which routes by base URL. Create it with {@link createSandbox}.
 *
 * The lifecycle and the scripting namespaces are {@link SandboxBase} (src/root/); this
 * class adds what drives a sandbox from outside through those: scenarios and triggers
 * (src/scenarios/), so the layer rules see them use the sandbox (docs/architecture.md).
 */
export class Sandbox extends SandboxBase {
  /**
   * Makes one event of `type` through a real, consistent state change, and resolves with it:
   * the smallest story that ends in it, told through the API with the account's key on the
   * virtual clock (virtual time moves as far as it needs; the events leading to it are
   * emitted too). `GET` of the resource afterwards equals the event's data, and the webhook
   * is delivered and signed like any other (docs/scenarios.md, "Triggers").
   *
   * @example
   * const busy = await sandbox.trigger('call.completed', { disposition: 'busy' });
   * const ready = await sandbox.trigger('recording.ready', { duration: 42 }, { apiKey: 'SVC_TEST_me' });
   */
  trigger<K extends EventType>(type: K, overrides?: TriggerOverrides[K], options?: TriggerOptions): Promise<SandboxEvent<K>> {
    this.assertOpen('trigger an event');
    return trigger(this, type, overrides, options);
  }

  /**
   * Runs a scenario (a scenario file's JSON, docs/scenarios.md) on this sandbox from its
   * current state and virtual now: sets up its numbers, subscriptions and network, plays its
   * steps on the virtual clock and checks its expectations. Resolves with the result (it
   * does not reject when an expectation fails: `passed` is false and `failure` says what was
   * seen instead); rejects with a SandboxError naming the JSON path and the fix when the
   * scenario is not valid (nesting past 64 levels included), and with code `interrupted` when
   * the sandbox is reset or closed while it runs. A long one runs in slices of real time,
   * letting the event loop in between two steps; the virtual clock, and so the result, is the
   * same either way (docs/server.md, "Long work").
   *
   * @example
   * const result = await createSandbox({ seed: 7 }).run(JSON.parse(readFileSync('busy-then-answered.json', 'utf8')));
   * if (!result.passed) throw new Error(result.failure!.message);
   */
  run(scenario: Scenario, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
    this.assertOpen('run a scenario');
    return runScenario({ sandbox: this, receivers: this.receivers, lifecycle: this.lifecycle }, scenario, options);
  }
}

/**
 * Creates a sandbox. It intercepts nothing until `listen()`.
 *
 * @example
 * import { createSandbox } from 'svc-sandbox';
 * const sandbox = createSandbox({ seed: 42 });
 * sandbox.listen();
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}

/**
 * A sandbox and the internals the standalone server reads beside its public surface (the
 * change feed and the console's view): handed over here, once, when it is made. Internal: not
 * exported by the package.
 */
export function openSandbox(options: SandboxOptions = {}): { sandbox: Sandbox; internals: SandboxInternals } {
  let handed: SandboxInternals | undefined;
  const sandbox = new Sandbox(options, (internals) => {
    handed = internals;
  });
  if (!handed) throw new TypeError('openSandbox: the sandbox handed over no internals.');
  return { sandbox, internals: handed };
}

/**
 * {@link openSandbox} for a sandbox made from a snapshot, its replay run in slices of real time
 * (core/slices.ts): the standalone server's door, so a long snapshot holds no other session
 * (docs/server.md, "Long work"). Resolves once the replay is done; rejects with the SandboxError
 * a synchronous `createSandbox({ snapshot })` would throw. Internal: the library's own restore
 * stays synchronous.
 */
export async function openRestoredSandbox(
  options: SandboxOptions & { snapshot: NonNullable<SandboxOptions['snapshot']> },
): Promise<{ sandbox: Sandbox; internals: SandboxInternals }> {
  let restored: Promise<void> = Promise.resolve();
  const internal: InternalOptions = {
    ...options,
    [REPLAY_IN_SLICES]: (replay) => {
      restored = replay;
    },
  };
  const opened = openSandbox(internal);
  await restored;
  return opened;
}

/** The events `checkReceiver` sends: each the end of a real story in a sandbox of their own, closed before anything is sent. */
const triggered: MakeEvents = async (types, { seed, startTime }) => {
  const sandbox = createSandbox({ seed, startTime });
  try {
    const events: SandboxEvent[] = [];
    for (const type of types) events.push(await sandbox.trigger(type));
    return events;
  } finally {
    sandbox.close();
  }
};

/**
 * Tests a webhook receiver as the service would call it, by real HTTP (docs/webhooks.md, "Check
 * your receiver"): one correctly signed delivery of each of the seven event types, one whose JSON
 * is spaced otherwise, four forged ones (no signature, a wrong one, the signature of another
 * body, one made with another secret) and a duplicate (the first event again, same id, attempt
 * 2). Every body is a genuine envelope `{id, type, created_at, data}`, made by a fresh sandbox's
 * `trigger()` and sent pretty-printed, signed and with the headers of the sandbox's own
 * deliveries (src/webhooks), so a receiver that verifies a re-serialized body fails. Signed
 * deliveries and the duplicate must be answered 2xx within `timeout`; forged ones must be refused
 * (any answer but a 2xx). Each case is decided by its status once it arrives (the body is only
 * quoted). Redirects are not followed. Once a delivery goes unanswered for `timeout`, the cases
 * after it are not run: a hanging receiver fails in about one timeout. Resolves, never rejects,
 * for anything the receiver does; throws a {@link SandboxError} (`param` `url`, `secret` or
 * `timeout`) for bad input, before anything is sent.
 *
 * @example
 * import { checkReceiver } from 'svc-sandbox';
 * const { ok, cases } = await checkReceiver('http://127.0.0.1:3000/webhooks', { secret: process.env.WEBHOOK_SECRET!, timeout: '2s' });
 * expect(cases.filter((c) => !c.ok)).toEqual([]); // each failed case says why in `error`
 */
export function checkReceiver(url: string, options: CheckReceiverOptions): Promise<ReceiverCheck> {
  return runReceiverCheck(triggered, url, options);
}
