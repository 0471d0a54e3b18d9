/**
 * One road into the sandbox (docs/architecture.md, "One road"): a route table and the stages
 * declared with it, as hono mounts a sub-app with its own middleware. `/v1` (api/pipeline.ts
 * `V1_ROAD`) and the server's control API (server/control/api.ts) are each one road, run by
 * the same {@link travel}; what differs between them is their list of stages.
 *
 * A stage looks at the request's exchange (what the stages before it learnt) and either passes
 * (returns undefined), answers (returns the answer: a preflight, an injected network fault),
 * refuses (throws, and the road's owner turns what was thrown into an answer in one place), or
 * waits (returns a promise of one of those: the body being read). Stages are plain functions of
 * the exchange, run in a loop: no closure is made per request, and a road that never waits
 * never awaits.
 */
export type Stage<X, A> = (x: X) => A | undefined | Promise<A | undefined>;

/** A road: its stages in order, and what runs the matched row once every stage has passed. */
export interface Road<X, A> {
  readonly stages: readonly Stage<X, A>[];
  run(x: X): A | Promise<A>;
}

/** Runs a road's stages in order, then its row: the first answer wins. Synchronous until a stage waits. */
export function travel<X, A>(road: Road<X, A>, x: X): A | Promise<A> {
  return from(road, x, 0);
}

function from<X, A>(road: Road<X, A>, x: X, start: number): A | Promise<A> {
  const { stages } = road;
  for (let i = start; i < stages.length; i++) {
    const out = stages[i]!(x);
    if (out === undefined) continue;
    if (out instanceof Promise) return out.then((answer) => (answer === undefined ? from(road, x, i + 1) : answer));
    return out;
  }
  return road.run(x);
}
