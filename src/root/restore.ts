import { SandboxError } from '../core/errors.js';
import { type RECORDED_CALLS, type RequestInput, replay, replayArgs, type SandboxSnapshot } from '../scripting/snapshots.js';
import type { Parts } from './parts.js';

/**
 * Replays a snapshot's inputs on a new sandbox's parts, made with the snapshot's options: at
 * once, with webhook attempts answered from the snapshot, never sent (docs/snapshots.md).
 */
export function restore(parts: Parts, snapshot: SandboxSnapshot): void {
  const { clock, deliveries, log, pipeline, scripting, life, options } = parts;
  const prefix = options.origin + options.basePath;
  const resume = clock.holdStill();
  log.load(snapshot);
  deliveries.replayFrom((key) => log.attempt(key));
  const settle = () => deliveries.flushNow();
  const quietly = (fn: () => unknown) => {
    try {
      const result = fn();
      if (result instanceof Promise) result.catch(() => undefined);
    } catch {
      // it threw when it was first made too, and changed nothing then either
    }
  };
  try {
    log.unrecorded(() =>
      replay(
        snapshot,
        {
          now: () => clock.now(),
          request: (input) => {
            quietly(() => {
              const response = pipeline.handleNow(recordedRequest(input, prefix), recordedBody(input));
              // A stream it opened (live transcript) belonged to a connection that is gone.
              void response.body?.cancel().catch(() => undefined);
            });
            settle();
          },
          call: (name, args) => {
            const [space, method] = name.split('.') as [keyof typeof RECORDED_CALLS, string];
            const namespace = scripting[space];
            const member: unknown = Reflect.get(namespace, method);
            // parseSnapshot lets only RECORDED_CALLS through, each a member of its namespace.
            if (typeof member !== 'function') throw new Error(`snapshot replay: sandbox.${name} is not a function`);
            quietly(() => member.apply(namespace, replayArgs(args)));
            settle();
          },
          advance: (ms, stop) => {
            try {
              clock.advanceNow(ms, settle, stop === undefined ? undefined : () => clock.now() >= stop);
            } catch (error) {
              // An advance past the last instant a Date holds was refused then too; anything else is a bug.
              if (!(error instanceof SandboxError)) throw error;
            }
          },
          reset: () => life.reset(),
        },
        Date.parse(snapshot.now),
      ),
    );
  } finally {
    // A replay only to be read is closed before an attempt the snapshot has no result for leaves.
    if (options.replayOnly) life.close();
    else deliveries.endReplay();
    resume();
  }
}

/** A recorded request as a Request without its body (the body goes beside it). */
function recordedRequest(input: RequestInput, prefix: string): Request {
  return new Request(input.path !== undefined ? prefix + input.path : input.url!, { method: input.method, headers: input.headers });
}

function recordedBody(input: RequestInput): Uint8Array | 'over' | undefined {
  if (input.bodyOver) return 'over';
  if (input.body !== undefined) return new TextEncoder().encode(input.body);
  if (input.bodyBase64 !== undefined) return new Uint8Array(Buffer.from(input.bodyBase64, 'base64'));
  return undefined;
}
