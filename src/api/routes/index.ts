import type { AnyRoute } from '../router.js';
import { callRoutes, type CallRoutesDeps } from './calls.js';
import { messageRoutes, type MessageRoutesDeps } from './messages.js';
import { numberRoutes, type NumberRoutesDeps } from './numbers.js';
import { recordingRoutes, type MediaRoutesDeps } from './recordings.js';
import { transcriptRoutes } from './transcripts.js';
import { webhookRoutes, type WebhookRoutesDeps } from './webhooks.js';

export type RouteDeps = CallRoutesDeps & WebhookRoutesDeps & NumberRoutesDeps & MessageRoutesDeps & MediaRoutesDeps;

/**
 * The route table: the spec's 16 endpoints, in its order, plus a recording's audio. Each
 * resource's file holds its routes whole: schemas, handler and the answers the OpenAPI
 * document describes. Made once per process and shared by every sandbox: a handler is given
 * the parts of the sandbox it answers for (`RouteDeps`) with each request.
 */
export const ROUTES: readonly AnyRoute[] = [
  ...callRoutes,
  ...numberRoutes,
  ...messageRoutes,
  ...recordingRoutes,
  ...transcriptRoutes,
  ...webhookRoutes,
];
