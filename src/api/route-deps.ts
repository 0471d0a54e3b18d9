import type { CallService } from '../state/calls.js';
import type { Dialer } from '../state/dialer.js';
import type { MessageService } from '../state/messages.js';
import type { Network } from '../state/network.js';
import type { NumberService } from '../state/numbers.js';
import type { RecordingService } from '../state/recordings.js';
import type { Subscriptions } from '../state/subscriptions.js';
import type { Templates } from '../state/templates.js';
import type { TranscriptService } from '../state/transcripts.js';
import type { Cursors } from './pagination.js';
import type { TranscriptStreams } from './transcript-stream.js';

/**
 * The parts of a sandbox its `/v1` handlers read (the composition root, root/parts.ts, provides
 * them once per sandbox). A handler's `deps` is this type: one that asks for a part not listed
 * here does not compile. Apart from the route files so the row type (api/router.ts) can name it
 * without importing a table.
 */
export interface RouteDeps {
  calls: CallService;
  dialer: Dialer;
  network: Network;
  cursors: Cursors;
  recordings: RecordingService;
  transcripts: TranscriptService;
  transcriptStreams: TranscriptStreams;
  subscriptions: Subscriptions;
  /** The sandbox's own origin: a subscription may not deliver to it. */
  sandboxOrigin: string;
  numbers: NumberService;
  messages: MessageService;
  templates: Templates;
}
