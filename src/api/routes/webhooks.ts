import { isThisMachine } from '../../core/hosts.js';
import { isLinkLocalOrMetadata, isLoopbackAddress } from '../../core/hosts.js';
import { array, custom, invalid, object, oneOf, show, type Schema } from '../../core/schema.js';
import { createdSubscriptionSchema, EVENT_TYPES, subscriptionSchema } from '../../state/events.js';
import { badRequest, notFound } from '../errors.js';
import { listOf, listQuery, paginate } from '../pagination.js';
import { defineRoute, type AnyRoute } from '../router.js';
import type { RouteDeps } from '../route-deps.js';

/** The parts of a sandbox these rows read. */
export type WebhookRoutesDeps = Pick<RouteDeps, 'subscriptions' | 'cursors' | 'sandboxOrigin'>;

const MAX_URL_LENGTH = 2048;
const URL_HINT = 'an https URL, e.g. https://example.com/webhooks (plain http only to 127.0.0.1, localhost or [::1])';

/** Loopback addresses (core/hosts.ts) and localhost: the hosts a plain-http receiver may use (a test's local server). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || isLoopbackAddress(hostname);
}

/** The URL's origin with a trailing dot of its host dropped (`api.svc.test.` is `api.svc.test`). */
function canonicalOrigin(url: URL): string {
  return `${url.protocol}//${url.hostname.replace(/\.$/, '')}${url.port ? `:${url.port}` : ''}`;
}

/**
 * Whether a receiver URL reaches the sandbox itself: its own origin, or, when the sandbox is
 * served on this machine (the standalone server on 127.0.0.1), any spelling of this machine at
 * the same port (`localhost`, `127.0.0.2`, `[::1]`, `0.0.0.0`, ...). A webhook must never be
 * a way to call the control API (docs/webhooks.md, "Receiver URLs").
 */
function isSandboxItself(url: URL, sandbox: URL): boolean {
  if (canonicalOrigin(url) === canonicalOrigin(sandbox)) return true;
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  return port(url) === port(sandbox) && isThisMachine(sandbox.hostname) && isThisMachine(url.hostname);
}

/**
 * Refuses a receiver URL that reaches the answering sandbox itself (400, `url`): checked by the
 * handler after the body's schema, because it depends on the sandbox's origin, and the route
 * table (and so the schema) is one for every sandbox.
 */
function refuseSandboxItself(value: string, sandboxOrigin: string): void {
  if (isSandboxItself(new URL(value), new URL(sandboxOrigin))) {
    throw badRequest(
      `\`url\` points at the sandbox itself (${sandboxOrigin}); give the address of your own receiver, e.g. http://127.0.0.1:<port>/webhooks.`,
      'url',
    );
  }
}

/**
 * The receiver URL of a subscription (rules in docs/webhooks.md, "Receiver URLs"; the sandbox's
 * own address: {@link refuseSandboxItself}).
 */
function webhookUrl(): Schema<string> {
  const fail = (message: string): never => {
    throw invalid(`\`url\` ${message}`, 'url');
  };
  return custom({
    hint: URL_HINT,
    parse(value) {
      if (typeof value !== 'string') return fail(`must be a string: ${URL_HINT} (got ${show(value)}).`);
      if (value.length > MAX_URL_LENGTH) fail(`must be at most ${MAX_URL_LENGTH} characters, got ${value.length}.`);
      if (/[\s\x00-\x1f\x7f]/.test(value)) fail('must not contain spaces, other whitespace or control characters (such as NUL).');
      if (!value.isWellFormed()) fail('must be well-formed Unicode (it contains a lone surrogate).');
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return fail(`must be an absolute URL: ${URL_HINT} (got ${show(value)}).`);
      }
      if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
        fail(`must use https: plain http is accepted only for loopback receivers (127.0.0.1, localhost, [::1]), got ${show(value)}.`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`must be ${URL_HINT} (got the scheme ${url.protocol}).`);
      if (url.username || url.password) {
        fail('must not carry credentials (user:password@): webhook requests are authenticated by the X-Service-Signature header instead.');
      }
      if (isLinkLocalOrMetadata(url.hostname)) {
        fail(
          `points at a link-local or cloud-metadata address (${url.hostname}), which the sandbox never calls; give the address of your own receiver.`,
        );
      }
      return value;
    },
    openapi: () => ({
      type: 'string',
      format: 'uri',
      maxLength: MAX_URL_LENGTH,
      // https anywhere, or http to a loopback host; no whitespace or control characters. The host rules
      // (link-local, metadata, the sandbox itself) and credentials are checked by the sandbox.
      pattern:
        '^([Hh][Tt][Tt][Pp][Ss]://[^\\s\\x00-\\x1f\\x7f]+|' +
        '[Hh][Tt][Tt][Pp]://([Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|\\[::1\\])([:/?#][^\\s\\x00-\\x1f\\x7f]*)?)$',
      description: `The receiver: ${URL_HINT}; never a link-local or cloud-metadata address, nor the sandbox itself (docs/webhooks.md).`,
    }),
  });
}

export const createWebhookBody = object(
  {
    url: webhookUrl(),
    events: array(oneOf(EVENT_TYPES, 'An event name, exactly as the event list names it.'), {
      description: 'The events to receive (each named once; a repeated name counts once).',
      min: 1,
      max: EVENT_TYPES.length,
    }),
  },
  { description: 'Subscribe a receiver URL to one or more events.' },
);

export const listWebhooksQuery = listQuery({}, 'List webhook subscriptions, newest first.');

/** GET, POST /v1/webhooks and DELETE /v1/webhooks/{id} (docs/contract.md; docs/webhooks.md). */
export const webhookRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/webhooks',
    resource: 'webhooks',
    summary: 'List webhook subscriptions',
    operationId: 'listWebhooks',
    description: "The account's webhook subscriptions, newest first, a page at a time, without their signing secrets.",
    query: listWebhooksQuery,
    response: {
      status: 200,
      description: 'A page of subscriptions, newest first (without secrets).',
      content: { 'application/json': { schema: () => listOf(subscriptionSchema) } },
    },
    handle: (ctx, { subscriptions, cursors }: WebhookRoutesDeps) => ({
      status: 200,
      body: paginate(cursors, 'webhooks', subscriptions.store, ctx.principal.account, ctx.query, (s) => subscriptions.toJson(s)),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks',
    resource: 'webhooks',
    summary: 'Subscribe to events',
    operationId: 'createWebhook',
    description:
      'Subscribes a receiver URL (https, or plain http to a loopback host) to one or more events. The answer carries the signing secret ' +
      '(`whsec_…`), shown only here: every delivery is signed with it in `X-Service-Signature`.',
    examples: {
      calls: {
        summary: 'Call events to an https receiver',
        value: { url: 'https://example.com/webhooks', events: ['call.started', 'call.answered', 'call.completed'] },
      },
    },
    body: createWebhookBody,
    response: {
      status: 201,
      description: 'The subscription, with its signing secret (shown only here).',
      content: { 'application/json': { schema: () => createdSubscriptionSchema.openapi() } },
    },
    handle(ctx, { subscriptions, sandboxOrigin }: WebhookRoutesDeps) {
      refuseSandboxItself(ctx.body.url, sandboxOrigin);
      const record = subscriptions.create(ctx.principal.account, ctx.body.url, [...new Set(ctx.body.events)]);
      return { status: 201, body: subscriptions.toJson(record, true) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    resource: 'webhooks',
    summary: 'Remove a subscription',
    operationId: 'deleteWebhook',
    description: "Removes one of the account's webhook subscriptions; its pending deliveries are canceled.",
    params: { id: { description: 'The subscription id (`wh_…`).', example: 'wh_2Jf6tY9cB4nRk8Ws' } },
    response: { status: 204, description: 'Removed: its pending deliveries are canceled.' },
    handle(ctx, { subscriptions }: WebhookRoutesDeps) {
      const record = subscriptions.store.get(ctx.principal.account, ctx.params.id);
      if (!record) throw notFound(`No webhook subscription ${ctx.params.id} in this account: use an id from GET /v1/webhooks.`);
      subscriptions.remove(record);
      return { status: 204 };
    },
  }),
];
