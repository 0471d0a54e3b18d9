// Longer than most files: the resources refer to each other (a recording's transcript, a call's recording) and the
// generated public types are read from here in one pass, so they are written in one file.
import {
  array,
  boolean,
  integer,
  literal,
  nullable,
  number,
  object,
  oneOf,
  phoneNumber,
  record,
  string,
  timestamp,
} from '../core/schema.js';
import { ANSWERED_BY, DISPOSITIONS } from '../sim/carrier.js';
import { NUMBER_KINDS } from '../sim/inventory.js';

/**
 * Every resource as the API shows it, written once. Each schema gives the public TypeScript
 * type (`Call = Infer<typeof callSchema>`), the response schema of the OpenAPI document,
 * and a check the tests run on every response they see (src/api/openapi.ts,
 * test/setup/conformance.ts). The fields beyond the spec are the sandbox's
 * choices (docs/contract.md and the page of each resource).
 *
 * One file, though long: the resources refer to each other (an event's data is a call, a
 * message...), and the generated types of the public surface are read from here in one pass.
 */

/** An id of the sandbox: `evt_` and 16 characters, say; every resource's, and an event's. */
export const id = (prefix: string, what: string) =>
  string({
    description: `${what} id: \`${prefix}_\` and 16 characters [0-9A-Za-z].`,
    pattern: new RegExp(`^${prefix}_[0-9A-Za-z]{16}$`),
    patternHint: `a ${prefix}_ id`,
  });
const at = (what: string) => timestamp(`${what} (ISO 8601 UTC).`);
const atOrNull = (what: string) => nullable(at(what));
/** Free text the sandbox stores as given (names, bodies). */
const text = (description: string, max: number, multiline = false) => string({ description, max, min: 0, multiline });

// Enumerations, shared with every schema and type that names them.
export const CALL_STATUSES = ['ringing', 'answered', 'completed'] as const;
export const DIRECTIONS = ['outbound', 'inbound'] as const;
export const CAMPAIGN_STATUSES = ['running', 'completed'] as const;
export const ROUTING_TYPES = ['ai_receptionist', 'agent', 'extension', 'forward'] as const;
export const MESSAGE_CHANNELS = ['sms', 'mms'] as const;
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'received'] as const;
export const RECORDING_STATUSES = ['processing', 'ready'] as const;
export const TRANSCRIPT_STATUSES = ['live', 'processing', 'ready'] as const;

export type CallStatus = (typeof CALL_STATUSES)[number];
export type CallDirection = (typeof DIRECTIONS)[number];
export type RoutingType = (typeof ROUTING_TYPES)[number];
export type MessageDirection = (typeof DIRECTIONS)[number];
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
/** Outbound: `queued` → `sent` → `delivered` or `failed`. Inbound: `received`. */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];
/**
 * `live` while the call is answered (segments so far), `processing` from the hang-up
 * until `transcript.ready`, then `ready` with the summary (see docs/transcripts.md).
 */
export type TranscriptStatus = (typeof TRANSCRIPT_STATUSES)[number];

/*
 * Each resource carries one example, as a fresh sandbox (its default start,
 * 2026-01-01T00:00:00Z) writes it: the document's `examples` of the schema, from which every
 * response's example is built (src/api/openapi.ts `exampleOf`). They tell one story: a call
 * placed at the start, answered at 5 s and ended at 21 s, its recording ready 10 s later and its
 * transcript 20 s after that; test/api/response-examples.test.ts checks each against its schema.
 */
const CALL_ID = 'call_7mQ2xK9pR4tLw8Zb';
const RECORDING_ID = 'rec_5Hc2vN8qT1mXy7Ka';
const TRANSCRIPT_ID = 'trn_9Rb4wL2sK7pQx3Mf';
const START = '2026-01-01T00:00:00.000Z';

/** The call resource (docs/contract.md; docs/calls.md). */
export const callSchema = object(
  {
    id: id('call', 'The call'),
    status: oneOf(CALL_STATUSES, '`ringing` → `answered` → `completed`, or `ringing` → `completed`.'),
    ai_handler: string({ description: 'The AI receptionist\'s name when `ai_receptionist` is true, else "none".', max: 64 }),
    direction: oneOf(DIRECTIONS, 'Who placed the call.'),
    from: phoneNumber('The calling number.'),
    to: phoneNumber('The called number.'),
    ai_receptionist: boolean('Whether the AI receptionist handles the call.'),
    answered_by: nullable(oneOf(ANSWERED_BY, 'Who picked up; null until answered, and for a call never answered.')),
    disposition: nullable(oneOf(DISPOSITIONS, 'How the call ended; null until completed.')),
    duration: nullable(
      integer({
        description: 'Whole seconds from answer to end; 0 for a call never answered; null while live.',
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
      }),
    ),
    agent: nullable(text('The agent who has the call (the AI handler for AI receptionist calls).', 64)),
    extension: nullable(string({ description: 'The extension that has the call.', pattern: /^\d{1,8}$/ })),
    campaign_id: nullable(id('camp', 'The dialer campaign')),
    recording_id: nullable(id('rec', 'The recording')),
    recording_url: nullable(string({ description: "The recording's audio (GET with the same key).", format: 'uri', max: 4096 })),
    transcript_id: nullable(id('trn', 'The transcript (set at the answer)')),
    created_at: at('When the call was placed'),
    answered_at: atOrNull('When it was answered'),
    ended_at: atOrNull('When it ended'),
  },
  {
    description: 'A voice call.',
    // Just placed, as POST /v1/calls answers.
    example: {
      id: CALL_ID,
      status: 'ringing',
      ai_handler: 'none',
      direction: 'outbound',
      from: '+14155550100',
      to: '+14155550123',
      ai_receptionist: false,
      answered_by: null,
      disposition: null,
      duration: null,
      agent: null,
      extension: null,
      campaign_id: null,
      recording_id: null,
      recording_url: null,
      transcript_id: null,
      created_at: START,
      answered_at: null,
      ended_at: null,
    },
  },
);

/** A dialer campaign (docs/calls.md). */
export const campaignSchema = object(
  {
    id: id('camp', 'The campaign'),
    object: literal('campaign', 'Tells a campaign from a call in POST /v1/calls answers.'),
    status: oneOf(CAMPAIGN_STATUSES, '`completed` once its last call has completed.'),
    from: phoneNumber('The originating number of every call.'),
    to: array(phoneNumber('A number to dial.'), { description: 'The numbers, in dialling order.', min: 1 }),
    ai_receptionist: boolean('Whether the AI receptionist handles every call.'),
    ai_handler: string({ description: 'The AI receptionist\'s name, or "none".', max: 64 }),
    call_ids: array(id('call', 'A dialled call'), { description: 'The calls dialled so far, in order.' }),
    calls_dialed: integer({ description: 'Calls dialled so far.', min: 0, max: 1000 }),
    calls_completed: integer({ description: 'Calls completed so far.', min: 0, max: 1000 }),
    created_at: at('When the campaign started'),
    completed_at: atOrNull('When its last call completed'),
  },
  {
    description: 'A dialer campaign: its calls are dialled one after another on the virtual clock.',
    // Just started: its first call dialled.
    example: {
      id: 'camp_4Wq8Zt1Kx6Rm3Pd9',
      object: 'campaign',
      status: 'running',
      from: '+14155550100',
      to: ['+14155550123', '+14155550124'],
      ai_receptionist: false,
      ai_handler: 'none',
      call_ids: ['call_2Xb7Nc4Vm9Qs1Lk6'],
      calls_dialed: 1,
      calls_completed: 0,
      created_at: START,
      completed_at: null,
    },
  },
);

export const capabilitiesSchema = object(
  {
    voice: boolean('Takes calls.'),
    sms: boolean('Sends and receives SMS.'),
    mms: boolean('Sends and receives MMS (US and CA numbers).'),
  },
  { description: 'What the number can carry.' },
);

const capabilitiesExample = { voice: true, sms: true, mms: true };

const numberFields = {
  number: phoneNumber('The number, E.164.'),
  kind: oneOf(NUMBER_KINDS, 'The kind of number.'),
  country: string({ description: 'ISO 3166 alpha-2 country code.', pattern: /^[A-Z]{2}$/ }),
  area_code: string({ description: 'Area code (toll-free prefix for toll_free).', pattern: /^\d{1,5}$/ }),
  capabilities: capabilitiesSchema,
};

/** Who takes a number's inbound calls (docs/numbers.md). */
export const routingSchema = object(
  {
    type: oneOf(ROUTING_TYPES, 'Who takes inbound calls.'),
    target: nullable(text('Agent name, extension digits or E.164 number, by type.', 64)),
  },
  { description: 'Who takes inbound calls: the AI receptionist, an agent, an extension, or a forward to another number.' },
);

/** A provisioned number (docs/contract.md; docs/numbers.md). */
export const phoneNumberSchema = object(
  {
    id: id('num', 'The number'),
    ...numberFields,
    routing: nullable(routingSchema),
    caller_id: nullable(
      object({ name: string({ description: 'Caller ID name.', max: 15 }) }, { description: 'Caller ID, null until set.' }),
    ),
    sms: object({ enabled: boolean('Whether the number sends and receives messages.') }, { description: 'SMS configuration.' }),
    status: literal('provisioned', 'A number of the account.'),
    created_at: at('When it was provisioned'),
  },
  {
    description: 'A number of the account.',
    example: {
      id: 'num_3Vd8sKq1Lx5Tn0Pw',
      number: '+14152585288',
      kind: 'local',
      country: 'US',
      area_code: '415',
      capabilities: capabilitiesExample,
      routing: { type: 'ai_receptionist', target: null },
      caller_id: { name: 'Acme Dental' },
      sms: { enabled: true },
      status: 'provisioned',
      created_at: START,
    },
  },
);

/** A number of the pool nobody holds, as GET /v1/numbers shows it. */
export const availableNumberSchema = object(
  { ...numberFields, status: literal('available', 'Nobody holds it: POST /v1/numbers provisions it.') },
  {
    description: 'A number available to provision.',
    example: {
      number: '+14152585288',
      kind: 'local',
      country: 'US',
      area_code: '415',
      capabilities: capabilitiesExample,
      status: 'available',
    },
  },
);

const templateUse = object(
  {
    id: string({ description: 'The template id.', max: 64 }),
    variables: record(text("A variable's value.", 1600), {
      description: "Values of the template's variables.",
      key: /^[A-Za-z_][A-Za-z0-9_]*$/,
      keyHint: 'a variable name',
    }),
  },
  { description: 'The template the text came from.' },
);

/** One attachment of an MMS. */
export const mediaSchema = object(
  {
    url: string({ description: 'An https URL of the attachment.', format: 'uri', max: 2048 }),
    content_type: string({ description: "Guessed from the URL's extension.", max: 100 }),
  },
  { description: 'One attachment.' },
);

/** A message (docs/contract.md; docs/messaging.md). */
export const messageSchema = object(
  {
    id: id('msg', 'The message'),
    direction: oneOf(DIRECTIONS, 'Sent by the account (outbound) or received (inbound).'),
    channel: oneOf(MESSAGE_CHANNELS, '`mms` when it carries media.'),
    from: phoneNumber('The sender.'),
    to: phoneNumber('The recipient.'),
    body: nullable(text("The text (a template's rendered text); null for an MMS without text.", 1600, true)),
    media: array(mediaSchema, { description: 'Attachments of an MMS.', max: 10 }),
    template: nullable(templateUse),
    conversation_id: id('conv', 'The conversation (the pair of numbers)'),
    status: oneOf(MESSAGE_STATUSES, 'Outbound: queued → sent → delivered or failed. Inbound: received.'),
    segments: integer({ description: 'SMS segments as carriers count them; 1 for an MMS.', min: 1, max: 1600 }),
    created_at: at('When it was accepted or received'),
    sent_at: atOrNull('When the carrier took it'),
    delivered_at: atOrNull('When the carrier reported delivery'),
    failed_at: atOrNull('When the carrier reported failure'),
  },
  {
    description: 'An SMS or MMS.',
    // Just accepted, as POST /v1/messages answers.
    example: {
      id: 'msg_3Jk8Vw2Qp5Rt9Lx1',
      direction: 'outbound',
      channel: 'sms',
      from: '+14152585288',
      to: '+14155550123',
      body: 'Your cleaning is booked for Wednesday at 2:00 pm. Reply STOP to opt out.',
      media: [],
      template: null,
      conversation_id: 'conv_8Lm2Rt5Wq9Xk1Vb4',
      status: 'queued',
      segments: 1,
      created_at: START,
      sent_at: null,
      delivered_at: null,
      failed_at: null,
    },
  },
);

export const segmentSchema = object(
  {
    speaker: text('Who speaks.', 64),
    text: text('What was said.', 2000, true),
    start: number({ description: 'Seconds from the answer when the line starts.', min: 0 }),
    end: number({ description: 'Seconds from the answer when the line ends.', min: 0 }),
  },
  { description: 'One speaker-labelled stretch of speech.' },
);

/** The conversation of the example call, as its transcript gives it. */
const SEGMENTS = [
  { speaker: 'agent', text: 'Harbour Dental, good morning. How can I help?', start: 0.8, end: 4.1 },
  { speaker: 'customer', text: 'Hi, I would like to book a cleaning, Wednesday if you can.', start: 5, end: 9.6 },
  { speaker: 'agent', text: 'Wednesday at 2:00 pm is free. You are booked. Goodbye!', start: 10.5, end: 15.2 },
];
const SUMMARY =
  'A 16-second call between the agent and the customer. The customer wanted to book an appointment. The appointment was booked for Wednesday at 2:00 pm.';
/** Ready: 30 s after the call ended. */
const TRANSCRIPT_EXAMPLE = {
  id: TRANSCRIPT_ID,
  call_id: CALL_ID,
  recording_id: RECORDING_ID,
  status: 'ready' as const,
  segments: SEGMENTS,
  text: SEGMENTS.map((s) => `${s.speaker}: ${s.text}`).join('\n'),
  summary: SUMMARY,
  created_at: '2026-01-01T00:00:05.000Z',
  ready_at: '2026-01-01T00:00:51.000Z',
};

/** A transcript (docs/contract.md; docs/transcripts.md). */
export const transcriptSchema = object(
  {
    id: id('trn', 'The transcript'),
    call_id: id('call', 'The call'),
    recording_id: nullable(id('rec', 'The recording (set when the call ends)')),
    status: oneOf(TRANSCRIPT_STATUSES, '`live` while the call is answered, `processing` after it, `ready` with the summary.'),
    segments: array(segmentSchema, { description: 'What has been said, in order.' }),
    text: text('The segments as lines of `speaker: text`.', 1_000_000, true),
    summary: nullable(text('The AI summary, once ready.', 10_000, true)),
    created_at: at('When the call was answered'),
    ready_at: atOrNull('When transcript.ready was emitted'),
  },
  { description: 'The transcript of a call.', example: TRANSCRIPT_EXAMPLE },
);

/** A recording (docs/contract.md; docs/recordings.md). */
export const recordingSchema = object(
  {
    id: id('rec', 'The recording'),
    call_id: id('call', 'The call'),
    agent: nullable(text('Who had the call when it ended.', 64)),
    duration: integer({ description: "Whole seconds, the call's duration.", min: 0, max: Number.MAX_SAFE_INTEGER }),
    status: oneOf(RECORDING_STATUSES, '`ready` once recording.ready was emitted.'),
    url: string({ description: 'The audio (WAV), served with the same key; 409 until ready.', format: 'uri', max: 4096 }),
    transcript_id: id('trn', 'The transcript'),
    transcript: nullable(transcriptSchema),
    summary: nullable(text('The AI summary, with the transcript.', 10_000, true)),
    created_at: at('When the call ended'),
    ready_at: atOrNull('When recording.ready was emitted'),
  },
  {
    description: 'The recording of an answered call, with its transcript and AI summary once ready.',
    // Read once the transcript is ready too.
    example: {
      id: RECORDING_ID,
      call_id: CALL_ID,
      agent: null,
      duration: 16,
      status: 'ready',
      url: `https://api.svc.test/v1/recordings/${RECORDING_ID}/audio`,
      transcript_id: TRANSCRIPT_ID,
      transcript: TRANSCRIPT_EXAMPLE,
      summary: SUMMARY,
      created_at: '2026-01-01T00:00:21.000Z',
      ready_at: '2026-01-01T00:00:31.000Z',
    },
  },
);

/*
 * The public types of the resources are interfaces generated from these schemas, with each
 * field's description as its JSDoc (src/state/resource-types.ts, scripts/resource-types.mjs),
 * so an editor's hover explains the data; test/types/resource-types.test-d.ts holds each equal
 * to its schema's type, and test/types/resource-types.test.ts the file to the schemas.
 */
export type {
  AvailableNumber,
  Call,
  Campaign,
  Message,
  MessageMedia,
  NumberCapabilities,
  NumberRouting,
  PhoneNumber,
  Recording,
  Transcript,
  TranscriptSegment,
  WebhookSubscription,
} from './resource-types.js';
