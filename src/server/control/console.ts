import { writtenExample } from '../../core/examples.js';
import { CONSOLE_ITEM_SCHEMAS, CONSOLE_KINDS, type ConsoleKind } from '../../scripting/console-view.js';
import { annotated, type Schema } from '../../core/schema.js';
import {
  callSchema,
  COMPLETED_EVENT_EXAMPLE,
  deliverySchema,
  messageSchema,
  phoneNumberSchema,
  recordingSchema,
  subscriptionSchema,
  transcriptSchema,
} from '../../scripting/json-schemas.js';
import { SandboxError } from '../../core/errors.js';
import { pageOf, pageParameters, slicePage, type PageQuery } from './pages.js';
import { json } from '../http.js';
import { controlRoute, type ControlRoute } from './route.js';

/** The path segment of each kind's list. */
const PLURAL: Record<ConsoleKind, string> = {
  call: 'calls',
  message: 'messages',
  number: 'numbers',
  recording: 'recordings',
  transcript: 'transcripts',
  subscription: 'subscriptions',
  delivery: 'deliveries',
};
const TITLE: Record<ConsoleKind, string> = {
  call: 'Every call of the session, newest first',
  message: 'Every message of the session, newest first',
  number: 'Every provisioned number of the session, newest first',
  recording: 'Every recording of the session, newest first',
  transcript: 'Every transcript of the session, newest first',
  subscription: 'Every webhook subscription of the session, newest first',
  delivery: 'Every webhook delivery of the session, oldest first, with the resource its event is about',
};

/** The key of the session that made the examples' resources. */
const ACCOUNT = 'SVC_TEST_ses_4kT9wQ2mX7bN1cRz_8Hd3Lp6Vs0Yf5JuA';
/** The call the example delivery's event (call.completed) is about. */
const CALL_ID = COMPLETED_EVENT_EXAMPLE.data.id;

/** A console item with its example: the resource's, and the account of the session that made it. */
const owned = <T extends object>(schema: Schema<T & { account: string }>, resource: T) =>
  annotated(schema, { example: { ...resource, account: ACCOUNT } });

/** Each kind's item, its example the resource's with its account (and, for a delivery, what its event is about). */
const ITEMS: Record<ConsoleKind, Schema<unknown>> = {
  call: owned(CONSOLE_ITEM_SCHEMAS.call, writtenExample(callSchema)),
  message: owned(CONSOLE_ITEM_SCHEMAS.message, writtenExample(messageSchema)),
  number: owned(CONSOLE_ITEM_SCHEMAS.number, writtenExample(phoneNumberSchema)),
  recording: owned(CONSOLE_ITEM_SCHEMAS.recording, writtenExample(recordingSchema)),
  transcript: owned(CONSOLE_ITEM_SCHEMAS.transcript, writtenExample(transcriptSchema)),
  subscription: owned(CONSOLE_ITEM_SCHEMAS.subscription, writtenExample(subscriptionSchema)),
  delivery: annotated(CONSOLE_ITEM_SCHEMAS.delivery, {
    example: { ...writtenExample(deliverySchema), account: ACCOUNT, about: { kind: 'call', id: CALL_ID }, call_id: CALL_ID },
  }),
};

/**
 * The console's reads (docs/console.md): each kind of resource across all of the session's
 * accounts, each item with the account it belongs to, paged as the other control lists; and a
 * recording's WAV for the page's audio player. The session stream's `change` frames carry
 * items of the same shape, so the page mirrors these lists and updates them in place.
 */
export const consoleRoutes: ControlRoute[] = [
  ...CONSOLE_KINDS.map(
    (kind): ControlRoute<undefined, PageQuery> => ({
      method: 'GET',
      path: `/sessions/{s}/console/${PLURAL[kind]}`,
      summary: `${TITLE[kind]}, each with its account (for the console)`,
      description:
        `${TITLE[kind]}, across all of the session's accounts: each item is the resource as the API shows it, plus ` +
        `\`account\`, the account (key) it belongs to${kind === 'delivery' ? ', `about` (the resource its event is about) and `call_id`' : ''}. ` +
        `The console reads it when its stream opens, then follows the stream's \`change\` frames, whose items have the same shape ` +
        `(docs/console.md).`,
      operationId: `console${PLURAL[kind].charAt(0).toUpperCase()}${PLURAL[kind].slice(1)}`,
      status: 200,
      response: pageOf(ITEMS[kind]),
      query: pageParameters,
      handle: ({ session, query }) =>
        json(
          200,
          slicePage(session.internals.view().list(kind), (item) => item.id, query, `console-${PLURAL[kind]}`, session.id),
        ),
    }),
  ),
  controlRoute({
    method: 'GET',
    path: '/sessions/{s}/console/recordings/{id}/audio',

    params: { id: { example: 'rec_5Hc2vN8qT1mXy7Ka' } },
    summary: "A ready recording's audio, 8 kHz 16-bit mono WAV (for the console's player)",
    description:
      "The same bytes as GET /v1/recordings/{id}/audio, for any account's recording of the session, without a key: the console's audio " +
      'player. 404 for an unknown recording, 409 while it is processing.',
    operationId: 'consoleRecordingAudio',
    status: 200,
    contentType: 'audio/wav',
    response: { type: 'string', contentMediaType: 'audio/wav' },
    handle: ({ session, params }) => {
      const audio = session.internals.view().audio(params.id);
      if (audio === undefined)
        throw new SandboxError(`No recording ${params.id} in session ${session.id}.`, { code: 'not_found', param: 'id' });
      if (audio === 'processing')
        throw new SandboxError(`Recording ${params.id} is still processing; its audio is ready at recording.ready.`, {
          code: 'conflict',
          param: 'id',
        });
      return new Response(audio.stream, {
        headers: {
          'content-type': 'audio/wav',
          'content-length': String(audio.byteLength),
          'content-disposition': `inline; filename="${params.id}.wav"`,
        },
      });
    },
  }),
];
