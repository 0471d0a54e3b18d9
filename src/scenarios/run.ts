// Longer than most files: one scenario's run, its setup, its steps on the virtual clock, its expectations and the
// timeline it writes, is one loop whose parts share the run's state; split, each part would take it all as arguments.
import { parseDuration } from '../core/duration.js';
import { SandboxError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import { Slices } from '../core/slices.js';
import type { SandboxBase } from '../root/sandbox-base.js';
import type { SimulatedReceivers } from '../webhooks/receivers.js';
import { DELIVERY_STATES } from '../webhooks/delivery.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from '../state/events.js';

import { parseScenario, type Scenario, type ScenarioExpectation, type ScenarioStep } from './schema.js';
import { attemptLine, eventLine, type ScenarioFailure, type ScenarioResult, type TimelineEntry } from './result.js';

/** Runs a scenario file on a sandbox (docs/scenarios.md): its setup, its steps on the virtual clock, its expectations. */

/** Options of `sandbox.run`. */
export interface ScenarioRunOptions {
  /** The account to run as; overrides the file's `apiKey` (the server passes the session's key). */
  apiKey?: string;
}

/** What a run drives: the sandbox (through its public members), its simulated receivers, and its lifecycle, to stop when it is reset or closed. */
export interface ScenarioHost {
  sandbox: SandboxBase;
  receivers: SimulatedReceivers;
  lifecycle: Pick<Lifecycle, 'generation' | 'closed'>;
  /** The real time the run goes on before it lets the event loop in ({@link Slices}); default its own. Tests set 0 or Infinity. */
  sliceMs?: number;
}

/** Stops a run at the first expectation that failed. */
class Failed extends Error {
  constructor(readonly failure: ScenarioFailure) {
    super(failure.message);
  }
}

/** Runs a scenario (see `Sandbox.run`). */
export async function runScenario(host: ScenarioHost, input: unknown, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
  // Counted from before the parse: a long file's check (tens of ms for 13,000 steps) and its first steps are two slices.
  const slices = new Slices(host.sliceMs);
  const scenario = parseScenario(input);
  return new Run(host, scenario, options.apiKey ?? scenario.apiKey ?? 'SVC_TEST_scenario', slices).play();
}

/** Where `expected` (a partial value) differs from `seen`: the path below and the two values, or null when it matches. */
export function difference(expected: unknown, seen: unknown, path: string): { path: string; expected: unknown; seen: unknown } | null {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (seen === null || typeof seen !== 'object' || Array.isArray(seen)) return { path, expected, seen };
    for (const [key, value] of Object.entries(expected)) {
      const diff = difference(value, (seen as Record<string, unknown>)[key], `${path}.${key}`);
      if (diff) return diff;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(seen) || seen.length !== expected.length) return { path, expected, seen };
    for (let i = 0; i < expected.length; i += 1) {
      const diff = difference(expected[i], seen[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(expected, seen) ? null : { path, expected, seen: seen === undefined ? null : seen };
}

class Run {
  private readonly timeline: TimelineEntry[] = [];
  private readonly named = new Map<string, unknown>();
  private readonly events: SandboxEvent[] = [];
  private readonly startMs: number;
  private held = 0;
  private step = -1;
  /** The sandbox's generation when the run began: a reset or the close changes it, and the run stops. */
  private readonly generation: number;

  constructor(
    private readonly host: ScenarioHost,
    private readonly scenario: Scenario,
    private readonly apiKey: string,
    private readonly slices: Slices,
  ) {
    this.startMs = host.sandbox.now().getTime();
    this.generation = host.lifecycle.generation;
    this.named.set('apiKey', apiKey);
  }

  /**
   * Throws SandboxError `interrupted` when the sandbox was reset or closed since the run began
   * (on the server, a DELETE of the session or a reset, which a pause between two steps lets
   * in): the steps from here on never run, and no result says `passed`.
   */
  private assertRunning(where: 'before' | 'at'): void {
    const { lifecycle } = this.host;
    if (lifecycle.generation === this.generation) return;
    const step = this.scenario.steps[this.step];
    const at = step === undefined ? 'in its setup' : `${where} steps[${this.step}] (at ${step.at})`;
    throw new SandboxError(
      `run: the scenario was stopped ${at}: the sandbox was ${lifecycle.closed ? 'closed (on the server: its session was deleted)' : 'reset'} ` +
        'while it ran, so the steps from there on did not run.',
      { code: 'interrupted' },
    );
  }

  private get sandbox() {
    return this.host.sandbox;
  }

  private add(kind: TimelineEntry['kind'], text: string, more: Partial<TimelineEntry> = {}): void {
    const now = this.sandbox.now();
    this.timeline.push({ offsetMs: now.getTime() - this.startMs, at: now.toISOString(), kind, text, ...more });
  }

  async play(): Promise<ScenarioResult> {
    const { sandbox } = this;
    const stops = [
      sandbox.events.subscribe(
        (event) => {
          this.events.push(event);
          this.add('event', eventLine(event).text, { ...eventLine(event), eventType: event.type });
        },
        { apiKey: this.apiKey },
      ),
      sandbox.webhooks.subscribe(
        (attempt, state) =>
          this.add('attempt', attemptLine(attempt, state), { eventType: attempt.eventType, ok: attempt.ok, subject: attempt.deliveryId }),
        { apiKey: this.apiKey },
      ),
    ];
    const startedAt = sandbox.now().toISOString();
    let failure: ScenarioFailure | null = null;
    // Between two steps, once a slice of real time is used, the event loop takes other work: a
    // server answers its other sessions, and a DELETE of this one, while a long scenario runs.
    const { slices } = this;
    try {
      if (slices.due) await slices.pause();
      this.assertRunning('before');
      await this.setUp();
      for (const [i, step] of this.scenario.steps.entries()) {
        if (slices.due) await slices.pause();
        this.step = i;
        this.assertRunning('before');
        // `at` was checked as a duration by the file's schema.
        const wait = this.startMs + (parseDuration(step.at) ?? 0) - sandbox.now().getTime();
        if (wait > 0) await sandbox.advance(wait);
        await this.perform(step, `steps[${i}]`);
      }
      this.assertRunning('at');
    } catch (error) {
      // Whatever a step threw once the sandbox was reset or closed under it, the run was stopped.
      this.assertRunning('at');
      if (!(error instanceof Failed)) {
        if (!(error instanceof SandboxError)) throw error;
        failure = {
          step: this.step,
          path: this.step < 0 ? 'numbers' : `steps[${this.step}]`,
          message: error.message,
          expected: null,
          seen: null,
        };
        if (error.code === 'interrupted' || error.code === 'closed') throw error;
      } else failure = error.failure;
      this.add('failure', `FAILED ${failure.path}: ${failure.message}`);
    } finally {
      for (const stop of stops) stop();
    }
    return {
      name: this.scenario.name,
      passed: failure === null,
      held: this.held,
      timeline: this.timeline,
      failure,
      startedAt,
      endedAt: sandbox.now().toISOString(),
    };
  }

  private fail(path: string, message: string, expected: unknown, seen: unknown): never {
    throw new Failed({ step: this.step, path, message, expected, seen });
  }

  /** Numbers, subscriptions and the carrier, before the first step. */
  private async setUp(): Promise<void> {
    const s = this.scenario;
    for (const [i, n] of (s.numbers ?? []).entries()) {
      const { as, ...body } = n;
      const made = await this.api('POST', '/v1/numbers', body, `numbers[${i}]`, 201, true);
      this.named.set(as, made);
      this.add('setup', `number ${as}: ${(made as { number: string }).number}`);
    }
    for (const [i, w] of (s.webhooks ?? []).entries()) {
      if (w.receiver !== undefined) this.host.receivers.set(w.url, w.receiver);
      const made = await this.api(
        'POST',
        '/v1/webhooks',
        { url: w.url, events: w.events ?? [...EVENT_TYPES] },
        `webhooks[${i}]`,
        201,
        true,
      );
      if (w.as) this.named.set(w.as, made);
      this.add(
        'setup',
        `webhook ${w.url} for ${w.events?.join(', ') ?? 'every event'}${w.receiver === undefined ? '' : ` (simulated receiver answers ${w.receiver})`}`,
      );
    }
    this.script(s.network, s.messageNetwork);
  }

  private script(network: Scenario['network'], messages: Scenario['messageNetwork']): void {
    for (const [number, behavior] of Object.entries(network ?? {})) {
      if (Array.isArray(behavior)) this.sandbox.network.queueBehavior(number, ...behavior);
      else this.sandbox.network.setBehavior(number, behavior);
      this.add('setup', `network ${number}: ${describeBehavior(behavior)}`);
    }
    for (const [number, behavior] of Object.entries(messages ?? {})) {
      if (Array.isArray(behavior)) this.sandbox.network.queueMessageBehavior(number, ...behavior);
      else this.sandbox.network.setMessageBehavior(number, behavior);
      this.add('setup', `messages to ${number}: ${describeBehavior(behavior)}`);
    }
  }

  private async perform(step: ScenarioStep, path: string): Promise<void> {
    const { sandbox } = this;
    if (step.note) this.add('step', `# ${step.note}`);
    if (step.request) {
      const r = step.request;
      const target = this.resolve(r.path, `${path}.request.path`) as string;
      const body = r.body === undefined ? undefined : this.resolve(r.body, `${path}.request.body`);
      const answer = await this.api(r.method, target, body, `${path}.request`, r.status);
      if (r.fields) this.expectFields(r.fields, answer, `${path}.request.fields`);
      if (r.as) this.named.set(r.as, answer);
    } else if (step.inboundCall) {
      const { as, ...options } = this.resolve(step.inboundCall, `${path}.inboundCall`) as NonNullable<ScenarioStep['inboundCall']>;
      this.add('step', `inbound call ${options.from} -> ${options.to}`);
      const call = sandbox.calls.inbound({ apiKey: this.apiKey, ...options });
      if (as) this.named.set(as, call);
    } else if (step.inboundMessage) {
      const { as, ...options } = this.resolve(step.inboundMessage, `${path}.inboundMessage`) as NonNullable<ScenarioStep['inboundMessage']>;
      this.add(
        'step',
        `inbound message ${options.from} -> ${options.to}${options.body === undefined ? '' : ` ${JSON.stringify(options.body)}`}`,
      );
      const message = sandbox.messages.inbound(options);
      if (as) this.named.set(as, message);
    } else if (step.network || step.messageNetwork) {
      this.script(step.network, step.messageNetwork);
    } else if (step.answer !== undefined) {
      const call = sandbox.calls.answer(this.resolve(step.answer, `${path}.answer`) as string);
      this.add('step', `answer ${call.id}`, { subject: call.id });
    } else if (step.hangUp !== undefined) {
      const call = sandbox.calls.hangUp(this.resolve(step.hangUp, `${path}.hangUp`) as string);
      this.add('step', `hang up ${call.id}`, { subject: call.id });
    } else if (step.receiver) {
      this.host.receivers.set(step.receiver.url, step.receiver.answer);
      this.add('step', `receiver ${step.receiver.url} now answers ${step.receiver.answer}`);
    } else if (step.replay !== undefined) {
      const what = this.resolve(step.replay, `${path}.replay`) as string;
      const attempts =
        what === 'dead-letters' ? await sandbox.webhooks.replayAll({ apiKey: this.apiKey }) : await sandbox.webhooks.replay(what);
      this.add('step', `replay ${what}: ${attempts.length} ${attempts.length === 1 ? 'delivery' : 'deliveries'}`);
    } else if (step.expect) {
      await this.check(step.expect, `${path}.expect`);
    }
  }

  /** A `/v1` request with the scenario's key: its answer, or a failure when the status is not the one expected. */
  private async api(method: string, target: string, body: unknown, path: string, status?: number, quiet = false): Promise<unknown> {
    const before = this.timeline.length;
    const response = await this.sandbox.fetch(target, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // A recording's audio or a live transcript is no JSON: the scenario sees its status, and no body.
    const json = (response.headers.get('content-type') ?? '').includes('json');
    // Its body is let go, not awaited: nothing reads it, and a failed cancel changes nothing.
    if (!json) void response.body?.cancel().catch(() => undefined);
    const text = json ? await response.text() : '';
    const answer: unknown = text ? JSON.parse(text) : null;
    const error = (answer as { error?: { code: string; message: string } } | null)?.error;
    const id = (answer as { id?: string } | null)?.id;
    if (!quiet) {
      // Before the events the request caused, at the instant it was answered.
      const answered = (answer as { status?: string } | null)?.status;
      const outcome = error ? ` ${error.code}: ${error.message}` : id ? ` ${id}${answered ? ` ${answered}` : ''}` : '';
      this.add('request', `${method} ${target} -> ${response.status}${outcome}`, id ? { subject: id } : {});
      const line = this.timeline.pop();
      if (line !== undefined) this.timeline.splice(before, 0, line);
    }
    const ok = status === undefined ? response.status < 300 : response.status === status;
    if (!ok) {
      this.fail(
        status === undefined ? path : `${path}.status`,
        `${method} ${target} answered ${response.status}${error ? ` ${error.code}: ${error.message}` : ''}, expected ` +
          `${status ?? 'a 2xx'}${status === undefined ? ' (give `status` to expect an error)' : ''}.`,
        status ?? '2xx',
        response.status,
      );
    }
    if (status !== undefined && !quiet) this.held += 1;
    return answer;
  }

  private expectFields(fields: Record<string, unknown>, seen: unknown, path: string): void {
    const expected = this.resolve(fields, path);
    const diff = difference(expected, seen, path);
    if (diff)
      this.fail(
        diff.path,
        `${diff.path}: expected ${JSON.stringify(diff.expected)}, saw ${JSON.stringify(diff.seen)}.`,
        diff.expected,
        diff.seen,
      );
    this.held += 1;
  }

  private async check(expect: ScenarioExpectation, path: string): Promise<void> {
    const seenTypes = () => this.events.map((e) => e.type);
    if (expect.events) {
      const wanted = expect.events;
      const p = `${path}.events`;
      const matches = (w: (typeof wanted)[number], i: number) => {
        const event = this.events[i];
        return event !== undefined && this.eventMatches(w, event, `${p}[${i}]`);
      };
      if (wanted.length !== this.events.length || wanted.some((w, i) => !matches(w, i))) {
        const at = wanted.findIndex((w, i) => !matches(w, i));
        const where = at < 0 ? `${p}` : `${p}[${at}]`;
        this.fail(
          where,
          `${where}: expected the events ${JSON.stringify(wanted.map(typeOf))}, saw ${JSON.stringify(seenTypes())}.`,
          wanted,
          seenTypes(),
        );
      }
      this.held += 1;
      this.add('expect', `ok   events: ${wanted.length} in order`);
    }
    if (expect.eventsInclude) {
      const p = `${path}.eventsInclude`;
      let from = 0;
      for (const [i, w] of expect.eventsInclude.entries()) {
        const found = this.events.findIndex((e, j) => j >= from && this.eventMatches(w, e, `${p}[${i}]`));
        if (found < 0)
          this.fail(
            `${p}[${i}]`,
            `${p}[${i}]: no ${JSON.stringify(w)} after the events matched before it; saw ${JSON.stringify(seenTypes())}.`,
            w,
            seenTypes(),
          );
        from = found + 1;
      }
      this.held += 1;
      this.add('expect', `ok   events include: ${expect.eventsInclude.map(typeOf).join(', ')}`);
    }
    for (const [i, r] of (expect.resources ?? []).entries()) {
      const p = `${path}.resources[${i}]`;
      const target = this.resolve(r.path, `${p}.path`) as string;
      const answer = await this.api('GET', target, undefined, p, 200, true);
      this.expectFields(r.fields, answer, `${p}.fields`);
      this.add('expect', `ok   GET ${target}: ${Object.keys(r.fields).join(', ')}`);
    }
    if (expect.deliveries) {
      const p = `${path}.deliveries`;
      const deliveries = this.sandbox.webhooks.deliveries({ apiKey: this.apiKey });
      const seen: Record<string, number> = Object.fromEntries(
        DELIVERY_STATES.map((s) => [s, deliveries.filter((d) => d.state === s).length]),
      );
      seen.attempts = deliveries.reduce((n, d) => n + d.attempts.length, 0);
      for (const [key, count] of Object.entries(expect.deliveries)) {
        if (seen[key] !== count)
          this.fail(
            `${p}.${key}`,
            `${p}.${key}: expected ${count}, saw ${seen[key]} (deliveries now: ${JSON.stringify(seen)}).`,
            count,
            seen[key],
          );
      }
      this.held += 1;
      this.add('expect', `ok   deliveries: ${JSON.stringify(expect.deliveries)}`);
    }
    if (expect.deadLetters !== undefined) {
      const p = `${path}.deadLetters`;
      const dead = this.sandbox.webhooks.deadLetters({ apiKey: this.apiKey }).length;
      if (dead !== expect.deadLetters)
        this.fail(p, `${p}: expected ${expect.deadLetters} dead letters, saw ${dead}.`, expect.deadLetters, dead);
      this.held += 1;
      this.add('expect', `ok   dead letters: ${dead}`);
    }
  }

  private eventMatches(
    wanted: EventType | { type: EventType; data?: Record<string, unknown> },
    event: SandboxEvent,
    path: string,
  ): boolean {
    if (typeof wanted === 'string') return event.type === wanted;
    if (event.type !== wanted.type) return false;
    return wanted.data === undefined || difference(this.resolve(wanted.data, `${path}.data`), event.data, '') === null;
  }

  /** `value` with every {{name.field}} replaced by what an earlier step named so. */
  private resolve(value: unknown, path: string): unknown {
    if (typeof value === 'string') {
      const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value)?.[1];
      if (whole !== undefined) return this.lookup(whole, path);
      return value.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => String(this.lookup(name, path)));
    }
    if (Array.isArray(value)) return value.map((v, i) => this.resolve(v, `${path}[${i}]`));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v, `${path}.${k}`)]));
    return value;
  }

  private lookup(reference: string, path: string): unknown {
    const [head = '', ...rest] = reference.split('.');
    if (!this.named.has(head)) {
      const known = [...this.named.keys()].join(', ');
      this.fail(
        path,
        `${path}: {{${reference}}} names \`${head}\`, which no earlier step made: name a request, number or inbound step with \`as\` (named so far: ${known}).`,
        reference,
        null,
      );
    }
    let value: unknown = this.named.get(head);
    for (const key of rest) {
      if (value === null || typeof value !== 'object' || !(key in value))
        this.fail(path, `${path}: {{${reference}}}: \`${head}\` has no field \`${key}\`.`, reference, value);
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  }
}

function typeOf(w: EventType | { type: EventType }): EventType {
  return typeof w === 'string' ? w : w.type;
}

function describeBehavior(behavior: object | object[]): string {
  const one = (b: object) =>
    Object.entries(b)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'default';
  return Array.isArray(behavior) ? behavior.map(one).join(', then ') : one(behavior);
}
