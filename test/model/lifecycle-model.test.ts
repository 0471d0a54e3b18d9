import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, SandboxError, type Sandbox, type SandboxEvent } from '../../src/index.js';
import { soakSize } from '../support/soak.js';

/**
 * Model-based lifecycle test: fast-check commands interleave API
 * requests, `advance`, `reset`, `close` (after which the world carries on with a new
 * sandbox), advances that are not awaited before the next command, event listeners that
 * reset or close the sandbox from inside an emission, and webhook receivers that answer,
 * fail, refuse the connection or hang. After every command:
 *
 * - nothing hangs: each command settles within a bound of real time;
 * - no event is emitted twice (no repeated id, and no repeated type for one resource);
 * - no (event, subscription) pair has more than one delivery, and a receiver that always
 *   answers gets each event at most once;
 * - nothing internal failed (`internalErrors()` stays empty).
 *
 * At the end of each run the clock runs three days on, and then every delivery of the
 * current world is delivered or dead-lettered (or canceled with its deleted subscription):
 * each event reaches each of its subscriptions exactly once.
 *
 * Seeds are fresh on every run (fast-check prints the seed and path of a failure).
 */

const RECEIVERS = ['ok', 'fail', 'refuse', 'hang'] as const;
type ReceiverKind = (typeof RECEIVERS)[number];
const HOOKS = 'https://hooks.model.test';
const KEYS = ['SVC_TEST_model_a', 'SVC_TEST_model_b'];
const DESTINATIONS = ['+14155550123', '+15005550002', '+15005550003', '+15005550004', '+15005550001'];
/**
 * Real time any one command may take before it counts as hung: a command takes milliseconds (hanging
 * receivers time out after 5 ms), so the bound turns a hang into a failure and no machine load decides it.
 */
const COMMAND_BOUND_MS = 10_000;

/** Requests each `ok` receiver got, by event id. */
const okReceived = new Map<string, number>();
let steps = 0;

/** Webhook receivers, in-process: the sandbox sends webhooks with the global fetch of the moment. */
function receiverFetch(realFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(HOOKS)) return realFetch(input, init);
    const kind = new URL(url).pathname.split('/')[1] as ReceiverKind;
    const body = JSON.parse(String(init?.body)) as SandboxEvent;
    if (kind === 'ok') {
      const key = `${url} ${body.id}`;
      okReceived.set(key, (okReceived.get(key) ?? 0) + 1);
      return new Response('ok');
    }
    if (kind === 'fail') return new Response('nope', { status: 500 });
    if (kind === 'refuse')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    // hang: never answers; only the sandbox's timeout (or a reset or close) ends it.
    return new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
  };
}

/** The system under test: the current sandbox, and the ones before it. */
class World {
  sandbox!: Sandbox;
  /** Subscriptions made in the current generation (since the last reset or new sandbox). */
  subscriptions: Array<{ id: string; url: string; events: string[]; key: string; since: number; deleted: boolean }> = [];
  calls: string[] = [];
  /** The key (so the account) that placed each call of this generation. */
  callKeys = new Map<string, string>();
  pending: Array<Promise<unknown>> = [];

  /**
   * Keeps a promise that is not awaited now for settle() to check. It is marked handled at
   * once: it may reject (a reset or close cut it short) while a later command awaits real
   * I/O, and a rejection with no handler by then is an unhandled rejection, which fails the
   * run even though settle() checks it afterwards.
   */
  track(promise: Promise<unknown>): void {
    promise.catch(() => undefined);
    this.pending.push(promise);
  }

  constructor(private readonly seed: number) {
    this.fresh();
  }

  fresh(): void {
    this.sandbox = createSandbox({ seed: this.seed, webhookTimeout: '5ms' });
    this.forgetGeneration();
  }

  /** Counts generations, so receiver URLs (and so the ok receivers' tallies) never repeat across worlds. */
  generation = 0;

  forgetGeneration(): void {
    this.generation++;
    this.subscriptions = [];
    this.calls = [];
    this.callKeys = new Map();
  }

  /** The key whose account an event belongs to (every event here is of a call, or of its media). */
  keyOf(event: SandboxEvent): string | undefined {
    const data = event.data as { id: string; call_id?: string };
    return this.callKeys.get(data.call_id ?? data.id);
  }

  request(method: string, path: string, body?: unknown, key = KEYS[0]!): Promise<Response> {
    if (this.sandbox === undefined) throw new Error('no sandbox');
    return this.sandbox.handle(
      new Request(`${this.sandbox.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  }

  /** Sandboxes closed by a command or a listener: the world moves on to a new one. */
  readonly closedOnes = new WeakSet<Sandbox>();

  get closed(): boolean {
    return this.closedOnes.has(this.sandbox);
  }

  close(sandbox: Sandbox): void {
    sandbox.close();
    this.closedOnes.add(sandbox);
  }

  async settle(): Promise<void> {
    const pending = this.pending.splice(0);
    for (const outcome of await Promise.allSettled(pending)) {
      if (outcome.status === 'rejected') expectInterrupted(outcome.reason);
    }
  }
}

/** An advance (or replay) may only fail because a reset or close cut it short. */
function expectInterrupted(error: unknown): void {
  expect(error, String(error)).toBeInstanceOf(SandboxError);
  expect(['interrupted', 'closed']).toContain((error as SandboxError).code);
}

/** Every invariant that holds after any command. */
function checkInvariants(world: World): void {
  const { sandbox } = world;
  if (world.closed) return;
  expect(sandbox.internalErrors()).toEqual([]);
  const events = sandbox.events.list();
  const ids = new Set<string>();
  const perResource = new Set<string>();
  for (const event of events) {
    expect(ids.has(event.id), `event ${event.id} emitted twice`).toBe(false);
    ids.add(event.id);
    const key = `${event.type} ${(event.data as { id: string }).id}`;
    expect(perResource.has(key), `${key} emitted twice`).toBe(false);
    perResource.add(key);
  }
  const pairs = new Set<string>();
  for (const delivery of sandbox.webhooks.deliveries()) {
    expect(ids.has(delivery.eventId), `delivery ${delivery.id} of an event not in this world's log`).toBe(true);
    const pair = `${delivery.eventId} ${delivery.subscriptionId}`;
    expect(pairs.has(pair), `two deliveries of ${pair}`).toBe(false);
    pairs.add(pair);
  }
  for (const [key, count] of okReceived) expect(count, `an ok receiver got ${key} ${count} times`).toBe(1);
}

type Cmd = fc.AsyncCommand<object, World>;

/** Runs `body` within the real-time bound: a hang fails the property instead of the worker. */
async function bounded(what: string, body: () => Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${COMMAND_BOUND_MS} ms of real time`)), COMMAND_BOUND_MS);
  });
  try {
    await Promise.race([body(), limit]);
  } finally {
    clearTimeout(timer);
  }
}

function command(name: string, run: (world: World) => Promise<void>): Cmd {
  return {
    check: () => true,
    async run(_model, world) {
      steps++;
      await bounded(name, async () => {
        if (world.closed) world.fresh();
        await run(world);
      });
      checkInvariants(world);
    },
    toString: () => name,
  };
}

const placeCall = fc
  .record({ to: fc.constantFrom(...DESTINATIONS), key: fc.constantFrom(...KEYS), ai: fc.boolean() })
  .map(({ to, key, ai }) =>
    command(`place(${to}, ${key.slice(-1)}${ai ? ', ai' : ''})`, async (world) => {
      const res = await world.request('POST', '/v1/calls', { to, from: '+14155550100', ai_receptionist: ai }, key);
      // 503: a reset (by a listener, in an advance not awaited) came while the body was read; nothing changed.
      expect([201, 422, 429, 503]).toContain(res.status);
      if (res.status === 503) expect((await res.clone().json()).error.message).toMatch(/reset or closed while this request was in flight/);
      if (res.status === 201) {
        const { id } = await res.json();
        world.calls.push(id);
        world.callKeys.set(id, key);
      }
    }),
  );

const subscribe = fc
  .record({
    kind: fc.constantFrom(...RECEIVERS),
    events: fc.subarray(['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'], { minLength: 1 }),
    key: fc.constantFrom(...KEYS),
  })
  .map(({ kind, events, key }) =>
    command(`subscribe(${kind}, ${events.join('+')})`, async (world) => {
      const url = `${HOOKS}/${kind}/${world.generation}-${world.subscriptions.length}`;
      const res = await world.request('POST', '/v1/webhooks', { url, events }, key);
      if (res.status === 503) return; // a reset came while the body was read: nothing was made
      expect(res.status).toBe(201);
      // Events from here on must reach it (an advance not awaited may have emitted some while it was made).
      const since = world.sandbox.events.list().length;
      world.subscriptions.push({ id: (await res.json()).id, url, events, key, since, deleted: false });
    }),
  );

const unsubscribe = fc.nat().map((pick) =>
  command(`unsubscribe(#${pick})`, async (world) => {
    const live = world.subscriptions.filter((s) => !s.deleted);
    const target = live[pick % Math.max(1, live.length)];
    if (!target) return;
    for (const key of KEYS) {
      // An advance not awaited runs on while this awaits: a listener of it may have closed the sandbox.
      if (world.closed) return;
      const res = await world.request('DELETE', `/v1/webhooks/${target.id}`, undefined, key);
      if (res.status === 204) target.deleted = true;
    }
  }),
);

const read = fc.constantFrom('/v1/calls?limit=3', '/v1/recordings', '/v1/webhooks', '/v1/messages', '/v1/nope').map((path) =>
  command(`GET ${path}`, async (world) => {
    const res = await world.request('GET', path);
    expect(res.status).toBeLessThan(500);
    await res.arrayBuffer();
  }),
);

const script = fc.record({ action: fc.constantFrom('answer', 'hangUp'), pick: fc.nat() }).map(({ action, pick }) =>
  command(`calls.${action}(#${pick})`, async (world) => {
    const id = world.calls[pick % Math.max(1, world.calls.length)];
    if (!id) return;
    try {
      if (action === 'answer') world.sandbox.calls.answer(id);
      else world.sandbox.calls.hangUp(id);
    } catch (error) {
      expect(error).toBeInstanceOf(SandboxError);
      expect(['conflict', 'not_found']).toContain((error as SandboxError).code);
    }
  }),
);

const advance = fc
  .record({ ms: fc.constantFrom(0, 1_000, 5_000, 30_000, 65_000, 600_000, 3_600_000, 86_400_000), wait: fc.boolean() })
  .map(({ ms, wait }) =>
    command(`advance(${ms}${wait ? '' : ', not awaited'})`, async (world) => {
      const advancing = world.sandbox.advance(ms);
      if (wait) {
        await advancing.catch(expectInterrupted);
        await world.settle();
      } else {
        world.track(advancing);
      }
    }),
  );

const reset = fc.constant(
  command('reset()', async (world) => {
    world.sandbox.reset();
    world.forgetGeneration();
    await world.settle();
  }),
);

const close = fc.constant(
  command('close()', async (world) => {
    world.close(world.sandbox);
    await world.settle();
    world.fresh();
  }),
);

const listenerThat = fc
  .record({
    action: fc.constantFrom('reset', 'close'),
    on: fc.constantFrom('call.started', 'call.answered', 'call.completed', 'recording.ready'),
  })
  .map(({ action, on }) =>
    command(`on ${on}: ${action}()`, async (world) => {
      const { sandbox } = world;
      let armed = true;
      sandbox.events.subscribe((event) => {
        if (!armed || event.type !== on) return;
        armed = false;
        if (action === 'reset') {
          sandbox.reset();
          if (world.sandbox === sandbox) world.forgetGeneration();
        } else world.close(sandbox);
      });
    }),
  );

const replay = fc.nat().map((pick) =>
  command(`replay(#${pick})`, async (world) => {
    const dead = world.sandbox.webhooks.deadLetters();
    const letter = dead[pick % Math.max(1, dead.length)];
    if (!letter) return;
    const replaying = world.sandbox.webhooks.replay(letter.id);
    if (world.subscriptions.find((s) => s.id === letter.subscriptionId)?.deleted) {
      await expect(replaying).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/was deleted/) });
    } else world.track(replaying);
  }),
);

/** 500 runs in the soak run (`npm run test:soak`), 100 in `npm test`. */
const RUNS = soakSize(100, 500);

const commands = fc.commands(
  [placeCall, placeCall, subscribe, unsubscribe, read, script, advance, advance, reset, close, listenerThat, replay],
  { maxCommands: 70, size: '+1' },
);

describe('lifecycle model: random interleavings of every lifecycle command', () => {
  let realFetch: typeof fetch;
  beforeEach(() => {
    realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', receiverFetch(realFetch));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  afterAll(() => {
    // The bar: at least 10,000 steps in every CI run's soak step (500 runs of 0 to 70
    // commands make about 17,000); `npm test`'s 100 runs must make at least 2,000.
    console.log(`lifecycle model: ${steps} steps`);
    expect(steps).toBeGreaterThanOrEqual(RUNS * 20);
  });

  it('interleaved requests, advances, resets, closes, reentrant listeners and misbehaving receivers: nothing hangs, nothing is emitted or delivered twice, every event reaches each subscription exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000 }), commands, async (seed, cmds) => {
        okReceived.clear();
        const world = new World(seed);
        try {
          await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
          await bounded('the final settle', async () => {
            await world.settle();
            if (world.closed) return;
            await world.sandbox.advance('3d').catch(expectInterrupted);
          });
          checkInvariants(world);
          if (world.closed) return;
          // Every event reached each subscription that wanted it exactly once: delivered, or dead-lettered.
          const deliveries = world.sandbox.webhooks.deliveries();
          for (const delivery of deliveries) {
            const subscription = world.subscriptions.find((s) => s.id === delivery.subscriptionId);
            if (delivery.state === 'canceled') expect(subscription?.deleted ?? true, `${delivery.id} canceled while subscribed`).toBe(true);
            else expect(['delivered', 'dead'], `${delivery.id} is ${delivery.state}`).toContain(delivery.state);
            const kind = new URL(delivery.url).pathname.split('/')[1];
            if (delivery.state !== 'canceled') expect(delivery.state).toBe(kind === 'ok' ? 'delivered' : 'dead');
          }
          const log = world.sandbox.events.list();
          for (const subscription of world.subscriptions) {
            for (const event of log.slice(subscription.since)) {
              if (!subscription.events.includes(event.type) || world.keyOf(event) !== subscription.key) continue;
              const count = deliveries.filter((d) => d.eventId === event.id && d.subscriptionId === subscription.id).length;
              const where = `${event.type} ${event.id} to ${subscription.url}`;
              if (subscription.deleted) expect(count, where).toBeLessThanOrEqual(1);
              else expect(count, where).toBe(1);
            }
          }
        } finally {
          world.sandbox.close();
          await world.settle().catch(() => undefined);
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
