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
 *
 * What a stage learns is typed, as hono types `c.var`: a stage reads `x`, typed with what the
 * stages before it provide (`Need`), and writes what it provides to `out` (`Add`), the same
 * object seen as its slots. The road is written with {@link road}`().stage(a).stage(b).run(r)`,
 * which checks each stage's `Need` against what the stages before it add: reordering a road, or
 * reading a field no earlier stage fills, does not compile.
 */
export type Stage<Need, Add, A> = (x: Need, out: Slots<Add>) => A | undefined | Promise<A | undefined>;

/** What a stage writes: the fields it adds, each one settable. */
export type Slots<Add> = { -readonly [K in keyof Add]?: Add[K] };

/** The runner's view of a stage: the builder checked every stage's needs when the road was written. */
type Step<A> = (x: object, out: object) => A | undefined | Promise<A | undefined>;

/** A road: its stages in order, and what runs the matched row once every stage has passed. */
export interface Road<X extends object, A> {
  readonly stages: readonly Step<A>[];
  readonly run: (x: object) => A | Promise<A>;
  /** The type of what enters the road (never read: `travel` takes an `X`). */
  readonly entry?: X;
}

/** Writes a road whose exchange enters as `X`: `road<Trip, Answer>().stage(arrive)….run(runRow)`. */
export function road<X extends object, A>(): RoadBuilder<X, X, A> {
  return new RoadBuilder<X, X, A>([]);
}

/** A road being written: `Has` is what the stages so far provide. */
export class RoadBuilder<X extends object, Has extends object, A> {
  constructor(private readonly steps: readonly Step<A>[]) {}

  /** The next stage: it may read only what `Has` says the stages before it filled. */
  stage<Add = unknown>(stage: Stage<Has, Add, A>): RoadBuilder<X, Has & Add, A> {
    return new RoadBuilder<X, Has & Add, A>([...this.steps, stage as Step<A>]);
  }

  /** What runs the row once every stage passed: it reads everything the stages filled. */
  run(run: (x: Has) => A | Promise<A>): Road<X, A> {
    return { stages: this.steps, run: run as (x: object) => A | Promise<A> };
  }
}

/** Runs a road's stages in order, then its row: the first answer wins. Synchronous until a stage waits. */
export function travel<X extends object, A>(road: Road<X, A>, x: X): A | Promise<A> {
  return from(road, x, 0);
}

function from<X extends object, A>(road: Road<X, A>, x: X, start: number): A | Promise<A> {
  const { stages } = road;
  for (let i = start; i < stages.length; i++) {
    const stage = stages[i];
    const out = stage === undefined ? undefined : stage(x, x);
    if (out === undefined) continue;
    if (out instanceof Promise) return out.then((answer) => (answer === undefined ? from(road, x, i + 1) : answer));
    return out;
  }
  return road.run(x);
}
