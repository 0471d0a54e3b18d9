import { SandboxError } from './core/errors.js';
import { toMs, type Duration } from './core/duration.js';
import { checkTemplates } from './state/templates.js';

/** The resources a key's scopes can name. */
export const RESOURCES = ['calls', 'numbers', 'messages', 'recordings', 'transcripts', 'webhooks'] as const;
export type Resource = (typeof RESOURCES)[number];

/** `calls:read`, `calls:write`, `calls:*` or `*`. Reads are GET; writes are POST, PUT and DELETE. */
export type Scope = `${Resource}:${'read' | 'write' | '*'}` | '*';

/** How one API key behaves. Keys not listed behave as `{}` unless `onlyConfiguredKeys` is set. */
export interface KeyOptions {
  /** Keys naming the same account share its resources. Default: the key is its own account. */
  account?: string;
  /** `enterprise` has no rate cap (spec, Limits). Default `standard`: 100 requests per second. */
  plan?: 'standard' | 'enterprise';
  /** Restricts the key; a request outside them is 403 `forbidden`. Default: everything. */
  scopes?: Scope[];
}

/** Options of {@link createSandbox}. Every field is optional. */
export interface SandboxOptions {
  /** Origin (and optional path prefix) the sandbox serves. Default `https://api.svc.test`. */
  baseUrl?: string;
  /** Ids and generated content derive from it. Default 0. */
  seed?: number;
  /** Virtual clock start. Default `2026-01-01T00:00:00Z`. */
  startTime?: string | number | Date;
  /** Per-key settings, by the full key (`SVC_TEST_…`). */
  keys?: Record<string, KeyOptions>;
  /** Accept only the keys in `keys`; any other is 401 `invalid_api_key`. Default false. */
  onlyConfiguredKeys?: boolean;
  /** The AI receptionist's name, shown as `ai_handler`. Default `"ava"`. */
  aiHandler?: string;
  /** Virtual time between two dials of a campaign. Default `'1s'`. */
  dialInterval?: Duration;
  /**
   * Real (wall-clock) time a webhook receiver has to answer before the attempt counts as
   * failed. Default `'10s'` (CONTRACT §6); lower it in tests of hanging receivers.
   */
  webhookTimeout?: Duration;
  /**
   * Message templates by id, added to those of fixtures/message-templates.json (same id:
   * yours wins). `{{name}}` is a variable (docs/messaging.md).
   */
  templates?: Record<string, string>;
}

export interface ResolvedOptions {
  baseUrl: string;
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
}

export const TEST_KEY = /^SVC_TEST_[A-Za-z0-9_-]+$/;
const SCOPE = new RegExp(`^(\\*|(${RESOURCES.join('|')}):(read|write|\\*))$`);
const KNOWN = ['baseUrl', 'seed', 'startTime', 'keys', 'onlyConfiguredKeys', 'aiHandler', 'dialInterval', 'webhookTimeout', 'templates'];

const fail = (message: string): never => {
  throw new SandboxError(`createSandbox: ${message}`);
};

/** Checks options once, at creation, so a mistake fails where it was written. */
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  if (options === null || typeof options !== 'object') fail('options must be an object, e.g. { seed: 42 }.');
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) fail(`unknown option '${key}'; the options are ${KNOWN.join(', ')}.`);
  }
  let url: URL;
  try {
    url = new URL(options.baseUrl ?? 'https://api.svc.test');
  } catch {
    return fail(`baseUrl ${JSON.stringify(options.baseUrl)} is not a URL; use an absolute http(s) URL such as 'https://api.svc.test'.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`baseUrl must be http or https, got ${url.protocol}`);
  if (url.search || url.hash) fail('baseUrl must not have a query or fragment.');
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed)) fail(`seed must be an integer, got ${String(seed)}.`);
  const start = options.startTime ?? '2026-01-01T00:00:00Z';
  const startMs = start instanceof Date ? start.getTime() : typeof start === 'number' ? start : Date.parse(start);
  if (!Number.isFinite(startMs)) fail(`startTime ${JSON.stringify(start)} is not a date; use an ISO 8601 string such as '2026-01-01T00:00:00Z'.`);

  const keys = new Map<string, KeyOptions>();
  for (const [key, settings] of Object.entries(options.keys ?? {})) {
    if (key.startsWith('SVC_LIVE_')) fail(`keys: ${key} is a production key; the sandbox accepts only SVC_TEST_ keys.`);
    if (!TEST_KEY.test(key)) fail(`keys: '${key}' is not a test key; write SVC_TEST_ followed by letters, digits, _ or -.`);
    if (settings.plan !== undefined && settings.plan !== 'standard' && settings.plan !== 'enterprise')
      fail(`keys.${key}.plan must be 'standard' or 'enterprise', got ${JSON.stringify(settings.plan)}.`);
    for (const scope of settings.scopes ?? []) {
      if (!SCOPE.test(scope)) fail(`keys.${key}.scopes: '${scope}' is not a scope; use '<resource>:read', '<resource>:write', '<resource>:*' or '*' with a resource among ${RESOURCES.join(', ')}.`);
    }
    if (settings.account !== undefined && (typeof settings.account !== 'string' || !settings.account))
      fail(`keys.${key}.account must be a non-empty string.`);
    keys.set(key, settings);
  }
  const aiHandler = options.aiHandler ?? 'ava';
  if (typeof aiHandler !== 'string' || !aiHandler) fail('aiHandler must be a non-empty string.');
  const dialIntervalMs = toMs(options.dialInterval ?? '1s', 'createSandbox: dialInterval');
  const webhookTimeoutMs = toMs(options.webhookTimeout ?? '10s', 'createSandbox: webhookTimeout');
  // Node turns a timer longer than 2^31-1 ms into 1 ms: refuse it rather than time out at once.
  if (webhookTimeoutMs < 1 || webhookTimeoutMs > 2 ** 31 - 1) fail('webhookTimeout must be from 1 ms to 24 days, e.g. \'10s\' or \'200ms\'.');

  return {
    baseUrl: url.href.replace(/\/$/, ''),
    origin: url.origin,
    basePath: url.pathname.replace(/\/$/, ''),
    seed,
    startMs,
    keys,
    onlyConfiguredKeys: options.onlyConfiguredKeys ?? false,
    aiHandler,
    dialIntervalMs,
    webhookTimeoutMs,
    templates: checkTemplates(options.templates, 'createSandbox: templates'),
  };
}
