import { SandboxError } from '../core/errors.js';
import type { ReplayTarget } from '../scripting/recorder.js';
import type { RequestInput, SandboxSnapshot } from '../scripting/snapshots.js';
import type { Parts } from './parts.js';

/**
 * Replays a snapshot's inputs on a new sandbox's parts, made with the snapshot's options: at
 * once, with webhook attempts answered from the snapshot, never sent (docs/snapshots.md). A
 * snapshot naming a call this sandbox does not record is refused before anything runs, one
 * whose input does not replay as it was recorded is refused as it is reached; either way the
 * parts made for it are closed.
 */
export function restore(parts: Parts, snapshot: SandboxSnapshot): void {
  const { replayInSlices } = parts.options;
  // Not kept once replayed: the sandbox holds all it made (a large snapshot is tens of MB parsed).
  parts.options.snapshot = null;
  if (replayInSlices !== null) {
    replayInSlices(restoreInSlices(parts, snapshot));
    return;
  }
  const replay = replaying(parts, snapshot);
  try {
    parts.recorder.replay(snapshot, replay.target);
    replay.done(null);
  } catch (error) {
    replay.done(error);
    throw error;
  }
}

/**
 * The same restore in slices of real time (core/slices.ts), for the standalone server (the
 * internal option `REPLAY_IN_SLICES`, which `restore` hands this promise): a long snapshot leaves
 * the event loop to other sessions between two of its steps. The sandbox is not handed out
 * until it resolves, so nothing reaches it meanwhile.
 */
async function restoreInSlices(parts: Parts, snapshot: SandboxSnapshot): Promise<void> {
  const replay = replaying(parts, snapshot);
  try {
    await parts.recorder.replayInSlices(snapshot, replay.target);
    replay.done(null);
  } catch (error) {
    replay.done(error);
    throw error;
  }
}

/** What a replay drives on `parts`, checked first; `done` ends it (closing the parts when it failed). */
function replaying(parts: Parts, snapshot: SandboxSnapshot): { target: ReplayTarget; done: (failure: unknown) => void } {
  const { clock, deliveries, recorder, pipeline, life, options, coverage } = parts;
  try {
    recorder.check(snapshot);
  } catch (error) {
    life.close();
    throw error;
  }
  const prefix = options.origin + options.basePath;
  const resume = clock.holdStill();
  const settle = () => deliveries.flushNow();
  const target: ReplayTarget = {
    now: () => clock.now(),
    request: (input) => {
      const { body } = pipeline.answerNow(recordedRequest(input, prefix), recordedBody(input));
      // A stream it opened (live transcript) belonged to a connection that is gone.
      if (body instanceof ReadableStream) void body.cancel().catch(() => undefined);
    },
    skipRequests: (count) => pipeline.skipRequestIds(count),
    countRate: (windows) => pipeline.countRate(windows),
    countAnswered: (rows) => coverage.fold(rows),
    advance: (ms, stop) => {
      try {
        clock.advanceNow(ms, settle, stop === undefined ? undefined : () => clock.now() >= stop);
      } catch (error) {
        // An advance past the last instant a Date holds was refused then too; anything else is a bug.
        if (!(error instanceof SandboxError)) throw error;
      }
    },
    end: () => clock.endNow(settle),
    reset: () => life.reset(),
    settle,
  };
  const done = (failure: unknown) => {
    // A replay only to be read is closed before an attempt the snapshot has no result for leaves;
    // a refused one too, and nothing it began goes on.
    if (options.replayOnly || failure !== null) life.close();
    else deliveries.endReplay();
    resume();
  };
  return { target, done };
}

/** A recorded request as a Request without its body (the body goes beside it). */
function recordedRequest(input: RequestInput, prefix: string): Request {
  return new Request(input.path !== undefined ? prefix + input.path : (input.url ?? prefix), {
    method: input.method,
    headers: input.headers,
  });
}

function recordedBody(input: RequestInput): Uint8Array | 'over' | undefined {
  if (input.bodyOver) return 'over';
  if (input.body !== undefined) return new TextEncoder().encode(input.body);
  if (input.bodyBase64 !== undefined) return new Uint8Array(Buffer.from(input.bodyBase64, 'base64'));
  return undefined;
}
