import { ApiError } from '../errors.js';
import type { Handler, Route } from '../router.js';
import { callHandlers, type CallRoutesDeps } from './calls.js';

export type RouteDeps = CallRoutesDeps;

/** An endpoint whose resource has not been built yet still answers through the whole pipeline. */
const notYet =
  (what: string): Handler =>
  () => {
    throw new ApiError(501, 'not_implemented', `${what} is not simulated by this version of svc-sandbox yet; see the CHANGELOG.`);
  };

/** The route table: the spec's 16 endpoints, in its order. */
export function routeTable(deps: RouteDeps): Route[] {
  const calls = callHandlers(deps);
  const numbers = notYet('Numbers');
  const messages = notYet('Messaging');
  const recordings = notYet('Recordings');
  const transcripts = notYet('Transcripts');
  const webhooks = notYet('Webhook subscriptions');
  return [
    { method: 'GET', path: '/v1/calls', resource: 'calls', summary: 'List calls', handle: calls.list },
    { method: 'POST', path: '/v1/calls', resource: 'calls', summary: 'Start a call or a dialer campaign', handle: calls.place },
    { method: 'GET', path: '/v1/calls/{id}', resource: 'calls', summary: 'Fetch a call (or campaign)', handle: calls.fetch },
    { method: 'POST', path: '/v1/calls/{id}/transfer', resource: 'calls', summary: 'Transfer an answered call', handle: calls.transfer },
    { method: 'GET', path: '/v1/numbers', resource: 'numbers', summary: 'Search numbers', handle: numbers },
    { method: 'POST', path: '/v1/numbers', resource: 'numbers', summary: 'Provision a number', handle: numbers },
    { method: 'PUT', path: '/v1/numbers/{id}', resource: 'numbers', summary: 'Update a number', handle: numbers },
    { method: 'DELETE', path: '/v1/numbers/{id}', resource: 'numbers', summary: 'Release a number', handle: numbers },
    { method: 'GET', path: '/v1/messages', resource: 'messages', summary: 'List messages', handle: messages },
    { method: 'POST', path: '/v1/messages', resource: 'messages', summary: 'Send a message', handle: messages },
    { method: 'GET', path: '/v1/recordings', resource: 'recordings', summary: 'List recordings', handle: recordings },
    { method: 'GET', path: '/v1/recordings/{id}', resource: 'recordings', summary: 'Fetch a recording', handle: recordings },
    { method: 'GET', path: '/v1/transcripts/{id}', resource: 'transcripts', summary: 'Fetch a transcript', handle: transcripts },
    { method: 'GET', path: '/v1/webhooks', resource: 'webhooks', summary: 'List webhook subscriptions', handle: webhooks },
    { method: 'POST', path: '/v1/webhooks', resource: 'webhooks', summary: 'Subscribe to events', handle: webhooks },
    { method: 'DELETE', path: '/v1/webhooks/{id}', resource: 'webhooks', summary: 'Remove a subscription', handle: webhooks },
  ];
}
