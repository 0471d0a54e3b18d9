// Longer than most files: every option of createSandbox with its schema, its default and how it resolves, in one
// place, so the option a user reads in docs/api.md is checked and documented by the same lines.
import { durationSchema, checkedMs, type Duration } from './core/duration.js';
import { field, SandboxError } from './core/errors.js';
import {
  array,
  boolean,
  custom,
  dateTime,
  either,
  integer,
  invalid,
  map,
  name,
  object,
  oneOf,
  optional,
  record,
  show,
  string,
  type Infer,
  said,
} from './core/schema.js';
import { processNow, SANDBOX_CLOCK_MODES, WALL_CLOCK, type ClockMode, type WallClock } from './core/clock.js';
import { HOST_NAME } from './core/hosts.js';
import { MAX_TIME_MS } from './core/time.js';
import { TEST_KEY, type KeyOptions } from './state/accounts.js';
import { MAX_BODY_CHARS } from './state/message-content.js';
import { TEMPLATE_ID } from './state/templates.js';
import { check } from './scripting/context.js';
import { keySettings } from './scripting/keys.js';
import { chaosProfile } from './scripting/chaos.js';
import type { ChaosProfile } from './state/chaos.js';
import { parseSnapshot, snapshotSchema, type SandboxSnapshot } from './scripting/snapshots.js';
import { JOURNAL_BYTES, JOURNAL_LIMIT } from './state/journal.js';
import { iso } from './core/time.js';

/** Options of {@link createSandbox}. Every field is optional. */
export interface SandboxOptions {
  /** Origin (and optional path prefix) the sandbox serves. Default `https://api.svc.test`. */
  baseUrl?: string;
  /** Ids and generated content derive from it. Default 0. */
  seed?: number;
  /** Virtual clock start. Default `2026-01-01T00:00:00Z`. Within the range a Date holds. */
  startTime?: string | number | Date;
  /** Per-key settings, by the full key (`SVC_TEST_…`). */
  keys?: Record<string, KeyOptions>;
  /** Accept only the keys in `keys` (and keys made with `sandbox.keys.create`); any other is 401 `invalid_api_key`. Default false. */
  onlyConfiguredKeys?: boolean;
  /** The AI receptionist's name, shown as `ai_handler`. Default `"ava"`. */
  aiHandler?: string;
  /** Virtual time between two dials of a campaign. Default `'1s'`. */
  dialInterval?: Duration;
  /**
   * Real (wall-clock) time a webhook receiver has to answer before the attempt counts as
   * failed. Default `'10s'` (docs/webhooks.md); lower it in tests of hanging receivers.
   */
  webhookTimeout?: Duration;
  /**
   * Message templates by id, added to those of fixtures/message-templates.json (same id:
   * yours wins). `{{name}}` is a variable (docs/messaging.md).
   */
  templates?: Record<string, string>;
  /**
   * How virtual time moves. `'manual'` (default): only by `advance`, byte-for-byte
   * deterministic. `'realtime'`: also with the wall clock from `startTime` (1 ms per ms),
   * due work runs by itself, and `advance(d)` still jumps ahead by `d`
   * (docs/clock-and-determinism.md, "Clock modes"). `'global'`: virtual time is the process's
   * own `Date` and timers, real or faked by the test (`vi.useFakeTimers()`, `jest.useFakeTimers()`,
   * sinon's `install()`), looked up when used; advancing the fake timers runs the sandbox's due
   * work, `advance(d)` is refused but `advance(0)` waits for webhook deliveries in flight, and
   * `startTime` cannot be given (docs/clock-and-determinism.md, "The test's own clock").
   *
   * @example
   * const sandbox = createSandbox({ clock: 'global' }).listen();
   * vi.useFakeTimers();
   * // ... place a call, then:
   * await vi.advanceTimersByTimeAsync(65_000); // it rang, was answered and completed
   */
  clock?: ClockMode;
  /**
   * Marks `/v1` deprecated: every `/v1` answer then carries `Deprecation` (RFC 9745, from
   * `date`, default `startTime`), `Sunset` (RFC 8594, from `sunset`) and, with `link`,
   * `Link: <link>; rel="successor-version"` (docs/api.md, "Deprecation").
   */
  deprecation?: DeprecationOptions;
  /**
   * What happens to a request from this process that must never leave a test: one to a host
   * in `productionHosts`, or one carrying a production key (`Bearer SVC_LIVE_…`) to any host
   * but the sandbox's. `'error'` (default) makes it fail at once (fetch rejects, `node:http`
   * emits `error`) and nothing is sent; `'warn'` lets it through with a console warning;
   * `'bypass'` lets it through (docs/interception.md, "Requests that must not leave a test").
   */
  onUnhandledRequest?: UnhandledRequestMode;
  /** Host names of the real service (`api.svc.com`): a request to one of them is an unhandled request. */
  productionHosts?: readonly string[];
  /**
   * Refuse every request from this process to any other host than the sandbox's and these, as
   * nock's `disableNetConnect()` with `enableNetConnect(host)` does: a host name (any port),
   * `'name:port'`, or a RegExp tried on both; `[]` refuses every other host. A refused request
   * fails at once (fetch rejects, `node:http` emits `error`, the `undici` package rejects) with a
   * `SandboxError` naming the host and this option, and nothing is sent; with
   * `onUnhandledRequest: 'warn'` it goes out with a console warning. A host answered in-process (an
   * msw handler) is not refused, nor are the sandbox's webhook deliveries to this machine
   * (docs/interception.md, "Refusing every other host").
   *
   * @example
   * createSandbox({ allowHosts: ['127.0.0.1', 'localhost'] }); // the app under test on loopback, nothing else
   */
  allowHosts?: readonly (string | RegExp)[];
  /**
   * A seeded chaos profile: injected 5xx, 429 and network faults and added latency per route,
   * a carrier mix for outbound calls and messages, and webhook deliveries that are duplicated
   * and reordered. Draws come from streams of their own, derived from `seed`: the same seed,
   * profile and requests fail the same way, byte for byte (docs/chaos.md).
   *
   * @example
   * createSandbox({
   *   seed: 7,
   *   chaos: { requests: { 'POST /v1/calls': { serverError: 0.05 } }, calls: { busy: 0.1 }, webhooks: { duplicate: 0.1 } },
   * });
   */
  chaos?: ChaosProfile;
  /**
   * Requests the request journal keeps (`sandbox.requests.list()`, docs/api.md): the latest ones,
   * a whole number from 0 up; 0 keeps none. Default 10,000, a suite's worth with a bounded memory
   * however long a server runs (as WireMock's `--max-request-journal-entries`). Past it the oldest
   * request is forgotten as each new one arrives; coverage (`sandbox.coverage()`) folds it into its
   * counts first, so it counts every request either way. A snapshot keeps the setting: a restored
   * sandbox lists the same requests. The server's `--max-journal-entries` sets it for every session.
   *
   * @example
   * createSandbox({ maxJournalEntries: 100_000 });
   */
  maxJournalEntries?: number;
  /**
   * Bytes of answered requests the request journal keeps, as it estimates them (two bytes a
   * character of each entry's text, plus its object): the oldest are forgotten past it, as past
   * `maxJournalEntries`, so a full journal costs a known amount however large each entry is.
   * Default 8 MiB (8,388,608), which the default 10,000 entries of a suite stay well under
   * (docs/snapshots.md, "Cost"). A snapshot keeps the setting.
   *
   * @example
   * createSandbox({ maxJournalBytes: 64 * 1024 * 1024 });
   */
  maxJournalBytes?: number;
  /**
   * Start from a snapshot (`sandbox.snapshot()`, or a server's `GET /__sandbox/sessions/{s}/snapshot`):
   * the new sandbox is the one the snapshot was taken of, at that instant, and the same inputs
   * then give the same answers, ids and events (docs/snapshots.md). The snapshot carries the
   * options it was made with; only `baseUrl`, `webhookTimeout`, `onUnhandledRequest`,
   * `productionHosts` and `allowHosts` may be given beside it. A snapshot of another svc-sandbox version is refused.
   */
  snapshot?: SandboxSnapshot;
}

/**
 * Internal option of a sandbox made from a snapshot only to be read (`svc-sandbox show`'s
 * history, src/server/history.ts): it is closed as its replay ends, before an attempt the
 * snapshot holds no result for (one in flight when it was taken) would be sent for real.
 */
export const REPLAY_ONLY: unique symbol = Symbol('svc-sandbox replay only');

/**
 * Internal option of the standalone server's sessions made from a snapshot (src/sandbox.ts
 * `openRestoredSandbox`): the replay runs in slices of real time, and this is handed the promise
 * of its end, so a long snapshot holds no other session.
 */
export const REPLAY_IN_SLICES: unique symbol = Symbol('svc-sandbox replay in slices');

/**
 * The key of an internal option: the base URL absolute URLs in answers and webhook bodies name
 * (a recording's `url`, `call.completed`'s `recording_url`) when it is not `baseUrl`. The standalone
 * server's sessions are served at a port the system may pick; their bodies name a stable origin
 * instead (docs/server.md, "Absolute URLs"), while `baseUrl` stays where requests really arrive.
 */
export const PUBLIC_URL: unique symbol = Symbol('svc-sandbox public url');

/** {@link SandboxOptions} with the internal ones: the tests of the realtime mode's ({@link WALL_CLOCK}), show's ({@link REPLAY_ONLY}), the server's {@link PUBLIC_URL} and {@link REPLAY_IN_SLICES}. */
export interface InternalOptions extends SandboxOptions {
  [WALL_CLOCK]?: WallClock;
  [REPLAY_ONLY]?: true;
  [PUBLIC_URL]?: string;
  [REPLAY_IN_SLICES]?: (restored: Promise<void>) => void;
}

/** The options that may be given beside `snapshot`: they say where and how this process serves, not what the sandbox holds. */
const BESIDE_SNAPSHOT = ['baseUrl', 'webhookTimeout', 'onUnhandledRequest', 'productionHosts', 'allowHosts', 'snapshot'];

/** See {@link SandboxOptions.onUnhandledRequest}. */
export type UnhandledRequestMode = 'bypass' | 'warn' | 'error';
export const UNHANDLED_REQUEST_MODES = ['bypass', 'warn', 'error'] as const satisfies readonly UnhandledRequestMode[];

/** The `deprecation` option: when `/v1` was deprecated, when it goes away, and its successor. */
export interface DeprecationOptions {
  /** When the API stops answering: an ISO 8601 string, epoch ms or a Date. */
  sunset: string | number | Date;
  /** A URL documenting the successor version, sent as `Link: <link>; rel="successor-version"`. */
  link?: string;
  /** When the API was deprecated. Default: the sandbox's `startTime`. Not after `sunset`. */
  date?: string | number | Date;
}

/** A deprecation as the pipeline sends it. */
export interface ResolvedDeprecation {
  dateMs: number;
  sunsetMs: number;
  link: string | null;
}

function defaults(): ResolvedOptions {
  return {
    baseUrl: 'https://api.svc.test',
    publicUrl: 'https://api.svc.test',
    origin: 'https://api.svc.test',
    basePath: '',
    seed: 0,
    startMs: DEFAULT_START_MS,
    keys: new Map(),
    onlyConfiguredKeys: false,
    aiHandler: 'ava',
    dialIntervalMs: 1000,
    webhookTimeoutMs: 10_000,
    templates: new Map(),
    clock: 'manual',
    wall: undefined,
    deprecation: null,
    unhandled: { mode: 'error', hosts: new Set(), allowHosts: null },
    chaos: null,
    maxJournalEntries: JOURNAL_LIMIT,
    maxJournalBytes: JOURNAL_BYTES,
    snapshot: null,
    replayOnly: false,
    replayInSlices: null,
  };
}

const DEFAULT_START_MS = Date.parse('2026-01-01T00:00:00Z');

export interface ResolvedOptions {
  baseUrl: string;
  /** What absolute URLs in answers and webhook bodies start with: `baseUrl`, unless the internal option {@link PUBLIC_URL} says otherwise. */
  publicUrl: string;
  origin: string;
  /** Path prefix of baseUrl without a trailing slash ('' for a bare origin). */
  basePath: string;
  seed: number;
  startMs: number;
  keys: Map<string, KeyOptions>;
  onlyConfiguredKeys: boolean;
  aiHandler: string;
  dialIntervalMs: number;
  webhookTimeoutMs: number;
  templates: Map<string, string>;
  clock: ClockMode;
  /**
   * What a realtime clock follows, and chaos latency is spent on, instead of the real wall clock (the internal option
   * {@link WALL_CLOCK}); undefined: the real one.
   */
  wall: WallClock | undefined;
  deprecation: ResolvedDeprecation | null;
  /**
   * The guard against requests that must not leave a test: its mode, the production host names
   * (lower case), and the hosts allowed when every other is refused (null: none is refused).
   */
  unhandled: { mode: UnhandledRequestMode; hosts: ReadonlySet<string>; allowHosts: readonly (string | RegExp)[] | null };
  /** The chaos profile, checked; null without one. */
  chaos: ChaosProfile | null;
  /** Requests the journal keeps. */
  maxJournalEntries: number;
  maxJournalBytes: number;
  /** The snapshot to start from (checked), or null; set to null as its replay begins (restore.ts). */
  snapshot: SandboxSnapshot | null;
  /** Closed as the snapshot's replay ends, nothing sent (the internal option {@link REPLAY_ONLY}). */
  replayOnly: boolean;
  /** Told the promise of a replay run in slices (the internal option {@link REPLAY_IN_SLICES}); null: the replay runs at once. */
  replayInSlices: ((restored: Promise<void>) => void) | null;
}

/**
 * The options that make a sandbox what it is, as JSON (a snapshot keeps them; durations in
 * ms, instants in ISO 8601). The guard against unhandled requests is the process's, not kept.
 */
export function optionsJson(o: ResolvedOptions): Record<string, unknown> {
  return {
    baseUrl: o.baseUrl,
    seed: o.seed,
    startTime: iso(o.startMs),
    keys: Object.fromEntries(o.keys),
    onlyConfiguredKeys: o.onlyConfiguredKeys,
    aiHandler: o.aiHandler,
    dialInterval: o.dialIntervalMs,
    webhookTimeout: o.webhookTimeoutMs,
    templates: Object.fromEntries(o.templates),
    clock: o.clock,
    ...(o.deprecation
      ? {
          deprecation: {
            sunset: iso(o.deprecation.sunsetMs),
            date: iso(o.deprecation.dateMs),
            ...(o.deprecation.link === null ? {} : { link: o.deprecation.link }),
          },
        }
      : {}),
    // The profile as given (its schema keeps values as written): a restored sandbox draws the same chaos.
    ...(o.chaos ? { chaos: o.chaos } : {}),
    ...(o.maxJournalEntries === JOURNAL_LIMIT ? {} : { maxJournalEntries: o.maxJournalEntries }),
    ...(o.maxJournalBytes === JOURNAL_BYTES ? {} : { maxJournalBytes: o.maxJournalBytes }),
  };
}

/** Options with a snapshot: the snapshot's own, under those that may be given beside it. */
function fromSnapshot(options: SandboxOptions): ResolvedOptions {
  const other = Object.keys(options).find((key) => !BESIDE_SNAPSHOT.includes(key));
  if (other !== undefined) {
    throw new SandboxError(
      [
        ...said`${field(other)} cannot be given with \`snapshot\`: the snapshot carries the options it was made with. Leave it out `,
        `(beside a snapshot only ${BESIDE_SNAPSHOT.slice(0, -1).join(', ')} may be given).`,
      ],
      { where: 'createSandbox', code: 'invalid_options', param: other },
    );
  }
  let snapshot: SandboxSnapshot;
  try {
    snapshot = parseSnapshot(options.snapshot);
  } catch (error) {
    if (error instanceof SandboxError)
      throw new SandboxError(error.where === undefined ? error.parts : [`${error.where}: `, ...error.parts], {
        where: 'createSandbox',
        code: 'invalid_options',
        param: error.param,
      });
    throw error;
  }
  const { snapshot: _snapshot, ...beside } = options;
  let resolved: ResolvedOptions;
  // A 'global' sandbox's copy is a 'manual' one at the snapshot's instant: the replay runs on a
  // clock of the sandbox's own, and the process's cannot be sent back to the start.
  const carried = snapshot.options.clock === 'global' ? { ...snapshot.options, clock: 'manual' } : snapshot.options;
  try {
    resolved = resolveOptions({ ...(carried as SandboxOptions), ...beside });
  } catch (error) {
    if (error instanceof SandboxError && error.param !== undefined && !(error.param in beside)) {
      throw new SandboxError(error.parts, { where: error.where, code: 'invalid_options', param: `snapshot.options.${error.param}` });
    }
    throw error;
  }
  const internal = options as InternalOptions;
  return { ...resolved, snapshot, replayOnly: internal[REPLAY_ONLY] === true, replayInSlices: internal[REPLAY_IN_SLICES] ?? null };
}

const baseUrl = custom<URL>({
  hint: "an absolute http(s) URL such as 'https://api.svc.test'",
  parse(value, path) {
    const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
    if (!url)
      throw invalid(
        said`${name(path)} ${JSON.stringify(value)} is not a URL; use an absolute http(s) URL such as 'https://api.svc.test'.`,
        path,
      );
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw invalid(said`${name(path)} must be http or https, got ${url.protocol}`, path);
    if (url.search || url.hash) throw invalid(said`${name(path)} must not have a query or fragment.`, path);
    if (url.username || url.password) throw invalid(said`${name(path)} must not carry credentials.`, path);
    return url;
  },
  like: string({ description: 'Where the sandbox serves: an absolute http(s) URL, no query, fragment or credentials', format: 'uri' }),
});

/** A duration within `max` ms, in milliseconds. */
const span = (max: number, hint: string) =>
  map(durationSchema, (value, path) => {
    const ms = checkedMs(value);
    if (ms > max || (max < Infinity && ms < 1)) throw invalid(said`${name(path)} must be ${hint}.`, path);
    return ms;
  });

/** An instant a Date can hold, as an ISO 8601 string, epoch milliseconds or a Date. */
export const instant = custom<number>({
  hint: "an ISO 8601 string such as '2026-01-01T00:00:00Z', epoch milliseconds or a Date",
  parse(value, path) {
    const ms =
      value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
    if (!Number.isFinite(ms))
      throw invalid(said`${name(path)} ${show(value)} is not a date; use an ISO 8601 string such as '2026-01-01T00:00:00Z'.`, path);
    if (Math.abs(ms) > MAX_TIME_MS)
      throw invalid(said`${name(path)} ${show(value)} is outside the range a Date can hold (±8.64e15 ms, years -271821 to 275760).`, path);
    return ms;
  },
  // A Date as well, which JSON has no form for.
  like: either(
    dateTime('An instant, ISO 8601.'),
    integer({ description: 'An instant, epoch milliseconds.', min: -MAX_TIME_MS, max: MAX_TIME_MS }),
    'an ISO 8601 string or epoch milliseconds',
  ),
});

const keysOption = custom<Map<string, KeyOptions>>({
  hint: 'an object of SVC_TEST_ key → { account?, plan?, scopes? }',
  parse(value, path) {
    // Any key first, so a production or malformed one is refused with words of its own.
    const all = record(keySettings, { description: 'Per-key settings.', key: /^/, keyHint: 'a key' }).parse(value, path);
    const keys = new Map<string, KeyOptions>();
    for (const [key, settings] of Object.entries(all)) {
      if (key.startsWith('SVC_LIVE_'))
        throw invalid(said`${name(path)}: ${key} is a production key; the sandbox accepts only SVC_TEST_ keys.`, `${path}.${key}`);
      if (!TEST_KEY.test(key))
        throw invalid(
          said`${name(path)}: '${key}' is not a test key; write SVC_TEST_ followed by letters, digits, _ or -.`,
          `${path}.${key}`,
        );
      keys.set(key, settings);
    }
    return keys;
  },
  like: record(keySettings, { description: 'Per-key settings.', key: TEST_KEY, keyHint: 'an SVC_TEST_ key' }),
});

const templates = record(string({ description: 'A template text with {{variable}} placeholders', max: MAX_BODY_CHARS, multiline: true }), {
  description: 'Templates.',
  key: TEMPLATE_ID,
  keyHint: 'a template id (1 to 64 letters, digits, _ . or -)',
});
const templatesOption = custom<Map<string, string>>({
  hint: "an object of template id → text, e.g. { welcome: 'Welcome, {{name}}!' }",
  parse: (value, path) => new Map(Object.entries(templates.parse(value, path))),
  like: templates,
});

const successorLink = custom<string>({
  hint: "an absolute URL such as 'https://docs.example.com/v2'",
  parse(value, path) {
    if (typeof value !== 'string' || !URL.canParse(value) || /[\s<>]/.test(value)) {
      throw invalid(said`${name(path)} ${show(value)} is not a URL; use an absolute URL such as 'https://docs.example.com/v2'.`, path);
    }
    return value;
  },
  like: string({ description: "The successor version's documentation", format: 'uri' }),
});

/** The `deprecation` option (and the server session's field of the same name). */
export const deprecationSchema = object(
  {
    sunset: instant,
    link: optional(successorLink),
    date: optional(instant),
  },
  { description: 'Marks /v1 deprecated: the Deprecation, Sunset and Link headers on every /v1 answer.', label: 'option' },
);

const HOST_WITH_PORT = /^(\[[0-9a-f:.]+\]|[^\s:/?#[\]@]+)(:\d{1,5})?$/i;

const allowHostsOption = custom<Array<string | RegExp>>({
  hint: "an array of host names ('localhost'), 'host:port' or RegExps, such as ['127.0.0.1', /\\.internal$/]",
  parse(value, path) {
    if (!Array.isArray(value) || value.length > 1000)
      throw invalid(said`${name(path)} must be an array of hosts, such as ['127.0.0.1', 'localhost'] ([] refuses every other host).`, path);
    return value.map((host: unknown, i) => {
      if (host instanceof RegExp) return host;
      if (typeof host === 'string' && HOST_WITH_PORT.test(host) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(host))
        return host.toLowerCase().replace(/\.(?=:|$)/, '');
      throw invalid(
        [
          ...said`${name(`${path}[${i}]`)} ${show(host)} is not a host; write a host name such as 'localhost', 'host:port' such as '127.0.0.1:3000', `,
          'or a RegExp (no scheme or path).',
        ],
        `${path}[${i}]`,
      );
    });
  },
  // RegExps as well, which JSON has no form for.
  like: array(string({ description: "A host name ('localhost') or 'host:port'" }), {
    description: 'The hosts a request may reach besides the sandbox.',
    max: 1000,
  }),
});

const optionsSchema = object(
  {
    baseUrl: optional(baseUrl),
    seed: optional(integer({ description: 'The seed', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })),
    startTime: optional(instant),
    keys: optional(keysOption),
    onlyConfiguredKeys: optional(boolean('Accept only the configured keys.')),
    aiHandler: optional(string({ description: "The AI receptionist's name", max: 64 })),
    dialInterval: optional(span(Infinity, 'a duration')),
    // Node turns a timer longer than 2^31-1 ms into 1 ms: refuse it rather than time out at once.
    webhookTimeout: optional(span(2 ** 31 - 1, "from 1 ms to 24 days, e.g. '10s' or '200ms'")),
    templates: optional(templatesOption),
    clock: optional(oneOf(SANDBOX_CLOCK_MODES, 'How virtual time moves.')),
    deprecation: optional(deprecationSchema),
    onUnhandledRequest: optional(
      oneOf(UNHANDLED_REQUEST_MODES, 'What happens to a request to a production host, or with a production key.'),
    ),
    productionHosts: optional(
      array(
        string({
          description: 'A host name of the real service',
          max: 253,
          pattern: HOST_NAME,
          patternHint: 'a host name such as "api.svc.com" (no scheme, port or path)',
        }),
        { description: 'Host names of the real service.', max: 100 },
      ),
    ),
    allowHosts: optional(allowHostsOption),
    chaos: optional(chaosProfile),
    maxJournalEntries: optional(integer({ description: 'Requests the request journal keeps', min: 0, max: Number.MAX_SAFE_INTEGER })),
    maxJournalBytes: optional(
      integer({ description: 'Bytes of answered requests the request journal keeps', min: 0, max: Number.MAX_SAFE_INTEGER }),
    ),
    // Given, it is taken apart before this schema (fromSnapshot); here only `snapshot: undefined`.
    snapshot: optional(custom<undefined>({ hint: 'a snapshot', parse: () => undefined, like: snapshotSchema })),
  },
  { description: 'createSandbox options.', label: 'option' },
);

/** Checks options once, at creation, so a mistake fails where it was written. */
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  // `createSandbox()` with no options, the common case in test suites: nothing to check.
  if (options !== null && typeof options === 'object' && Reflect.ownKeys(options).length === 0) return defaults();
  if (options !== null && typeof options === 'object' && options.snapshot !== undefined) return fromSnapshot(options);
  let o: Infer<typeof optionsSchema>;
  try {
    o = check(optionsSchema, options, 'createSandbox');
  } catch (error) {
    if (error instanceof SandboxError)
      throw new SandboxError(error.parts, { where: error.where, code: 'invalid_options', param: error.param, unknown: error.unknown });
    throw error;
  }
  if (o.allowHosts && o.onUnhandledRequest === 'bypass') {
    throw new SandboxError(
      "`allowHosts` refuses requests to other hosts, but `onUnhandledRequest: 'bypass'` lets every request through; " +
        "leave out one of them (or use 'warn' to be told about each request allowHosts would refuse).",
      { where: 'createSandbox', code: 'invalid_options', param: 'allowHosts' },
    );
  }
  const url = o.baseUrl ?? new URL('https://api.svc.test');
  if (o.clock === 'global' && o.startTime !== undefined) {
    throw new SandboxError(
      "`startTime` cannot be given with clock: 'global': the sandbox's time is then the process's own Date. Set " +
        'that instead: vi.setSystemTime(...) or vi.useFakeTimers({ now }) (vitest), jest.setSystemTime(...) (Jest), install({ now }) ' +
        '(@sinonjs/fake-timers); or leave `startTime` out.',
      { where: 'createSandbox', code: 'invalid_options', param: 'startTime' },
    );
  }
  // Global: the instant the sandbox was made, as a snapshot's `startTime` and the deprecation's default date.
  const startMs = o.startTime ?? (o.clock === 'global' ? processNow() : DEFAULT_START_MS);
  let deprecation: ResolvedDeprecation | null = null;
  if (o.deprecation) {
    const dateMs = o.deprecation.date ?? startMs;
    if (o.deprecation.sunset < dateMs) {
      throw new SandboxError(
        `\`deprecation.sunset\` (${new Date(o.deprecation.sunset).toISOString()}) is before the deprecation date ` +
          `(${new Date(dateMs).toISOString()}${o.deprecation.date === undefined ? ', the startTime' : ''}); a version goes away after it ` +
          `is deprecated, so give a later sunset.`,
        { where: 'createSandbox', code: 'invalid_options', param: 'deprecation.sunset' },
      );
    }
    deprecation = { dateMs, sunsetMs: o.deprecation.sunset, link: o.deprecation.link ?? null };
  }
  return {
    baseUrl: url.href.replace(/\/$/, ''),
    publicUrl: (options as InternalOptions)[PUBLIC_URL] ?? url.href.replace(/\/$/, ''),
    origin: url.origin,
    basePath: url.pathname.replace(/\/$/, ''),
    seed: o.seed ?? 0,
    startMs,
    keys: o.keys ?? new Map(),
    onlyConfiguredKeys: o.onlyConfiguredKeys ?? false,
    aiHandler: o.aiHandler ?? 'ava',
    dialIntervalMs: o.dialInterval ?? 1000,
    webhookTimeoutMs: o.webhookTimeout ?? 10_000,
    templates: o.templates ?? new Map(),
    clock: o.clock ?? 'manual',
    wall: (options as InternalOptions)[WALL_CLOCK],
    deprecation,
    unhandled: {
      mode: o.onUnhandledRequest ?? 'error',
      hosts: new Set((o.productionHosts ?? []).map((h) => h.toLowerCase().replace(/\.$/, ''))),
      allowHosts: o.allowHosts ?? null,
    },
    chaos: o.chaos ?? null,
    maxJournalEntries: o.maxJournalEntries ?? JOURNAL_LIMIT,
    maxJournalBytes: o.maxJournalBytes ?? JOURNAL_BYTES,
    snapshot: null,
    replayOnly: false,
    replayInSlices: null,
  };
}
