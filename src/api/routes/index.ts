import type { Route } from '../router.js';
import { callHandlers, listCallsQuery, placeCallBody, transferBody, type CallRoutesDeps } from './calls.js';
import { listMessagesQuery, messageHandlers, sendMessageBody, type MessageRoutesDeps } from './messages.js';
import { numberHandlers, provisionNumberBody, searchNumbersQuery, updateNumberBody, type NumberRoutesDeps } from './numbers.js';
import { listRecordingsQuery, recordingHandlers, type MediaRoutesDeps } from './recordings.js';
import { transcriptHandlers } from './transcripts.js';
import { createWebhookBody, listWebhooksQuery, webhookHandlers, type WebhookRoutesDeps } from './webhooks.js';

export type RouteDeps = CallRoutesDeps & WebhookRoutesDeps & NumberRoutesDeps & MessageRoutesDeps & MediaRoutesDeps;

/** The route table: the spec's 16 endpoints, in its order, plus a recording's audio. */
export function routeTable(deps: RouteDeps): Route[] {
  const calls = callHandlers(deps);
  const numbers = numberHandlers(deps);
  const messages = messageHandlers(deps);
  const recordings = recordingHandlers(deps);
  const transcripts = transcriptHandlers(deps);
  const webhooks = webhookHandlers(deps);
  return [
    { method: 'GET', path: '/v1/calls', resource: 'calls', summary: 'List calls', handle: calls.list, query: listCallsQuery },
    { method: 'POST', path: '/v1/calls', resource: 'calls', summary: 'Start a call or a dialer campaign', handle: calls.place, body: placeCallBody },
    { method: 'GET', path: '/v1/calls/{id}', resource: 'calls', summary: 'Fetch a call (or campaign)', handle: calls.fetch },
    { method: 'POST', path: '/v1/calls/{id}/transfer', resource: 'calls', summary: 'Transfer an answered call', handle: calls.transfer, body: transferBody, status: 200 },
    { method: 'GET', path: '/v1/numbers', resource: 'numbers', summary: 'Search numbers', handle: numbers.search, query: searchNumbersQuery },
    { method: 'POST', path: '/v1/numbers', resource: 'numbers', summary: 'Provision a number', handle: numbers.provision, body: provisionNumberBody },
    { method: 'PUT', path: '/v1/numbers/{id}', resource: 'numbers', summary: 'Update a number', handle: numbers.update, body: updateNumberBody },
    { method: 'DELETE', path: '/v1/numbers/{id}', resource: 'numbers', summary: 'Release a number', handle: numbers.release },
    { method: 'GET', path: '/v1/messages', resource: 'messages', summary: 'List messages', handle: messages.list, query: listMessagesQuery },
    { method: 'POST', path: '/v1/messages', resource: 'messages', summary: 'Send a message', handle: messages.send, body: sendMessageBody },
    { method: 'GET', path: '/v1/recordings', resource: 'recordings', summary: 'List recordings', handle: recordings.list, query: listRecordingsQuery },
    { method: 'GET', path: '/v1/recordings/{id}', resource: 'recordings', summary: 'Fetch a recording', handle: recordings.fetch },
    // Sandbox addition: the recording's `url`, a WAV file (docs/recordings.md).
    { method: 'GET', path: '/v1/recordings/{id}/audio', resource: 'recordings', summary: 'Download a recording (audio/wav)', handle: recordings.audio },
    { method: 'GET', path: '/v1/transcripts/{id}', resource: 'transcripts', summary: 'Fetch a transcript (JSON, or server-sent events)', handle: transcripts.fetch },
    { method: 'GET', path: '/v1/webhooks', resource: 'webhooks', summary: 'List webhook subscriptions', handle: webhooks.list, query: listWebhooksQuery },
    { method: 'POST', path: '/v1/webhooks', resource: 'webhooks', summary: 'Subscribe to events', handle: webhooks.create, body: createWebhookBody(deps.sandboxOrigin) },
    { method: 'DELETE', path: '/v1/webhooks/{id}', resource: 'webhooks', summary: 'Remove a subscription', handle: webhooks.remove },
  ];
}
