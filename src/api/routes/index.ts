import type { AnyRoute } from '../router.js';
import { callRoutes } from './calls.js';
import { messageRoutes } from './messages.js';
import { numberRoutes } from './numbers.js';
import { recordingRoutes } from './recordings.js';
import { transcriptRoutes } from './transcripts.js';
import { webhookRoutes } from './webhooks.js';

export type { RouteDeps } from '../route-deps.js';

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
