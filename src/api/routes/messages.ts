import {
  either,
  integer,
  invalid,
  map,
  missing,
  object,
  oneOf,
  optional,
  phoneNumber,
  record,
  string,
  type Infer,
} from '../../core/schema.js';
import { nearest } from '../../core/suggest.js';
import type { MessageRecord } from '../../state/messages.js';
import { DIRECTIONS, MESSAGE_CHANNELS, MESSAGE_STATUSES, messageSchema } from '../../state/resources.js';
import { MAX_BODY_CHARS, mediaUrls, messageText } from '../../state/message-content.js';
import type { Templates } from '../../state/templates.js';
import { ApiError, badRequest } from '../errors.js';
import { listOf, listQuery, paginate } from '../pagination.js';
import { defineRoute, type AnyRoute, type Reply, type RequestContext } from '../router.js';
import type { RouteDeps } from '../route-deps.js';

/** The parts of a sandbox these rows read. */
export type MessageRoutesDeps = Pick<RouteDeps, 'messages' | 'numbers' | 'templates' | 'network' | 'cursors'>;

/** Template variables: names to text (a number is taken as its text). */
const variables = record(
  map(
    either(
      string({ description: 'A value', max: MAX_BODY_CHARS, min: 0 }),
      integer({ description: 'A value', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      'a string or a number',
    ),
    String,
  ),
  { description: "Values of the template's {{variables}}.", key: /^[^\x00-\x1f\x7f]{1,64}$/, keyHint: 'variable name' },
);

export const sendMessageBody = object(
  {
    from: phoneNumber('One of your provisioned numbers with SMS enabled.'),
    to: phoneNumber('The recipient, in E.164.'),
    body: optional(messageText),
    media_urls: optional(mediaUrls),
    template: optional(
      object(
        {
          id: string({ description: 'A template id (fixtures/message-templates.json or the `templates` option)', max: 64 }),
          variables: optional(variables),
        },
        { description: "Send a template's text instead of `body`." },
      ),
    ),
  },
  {
    description:
      'Send an SMS, or an MMS when it has media: `body`, `media_urls` and/or `template` (a template instead of `body`). `to` must differ from `from`.',
    check(body) {
      if (body.template && body.body !== undefined)
        throw invalid('Give either `body` or `template`, not both: the template supplies the text.', 'template');
      if (!body.template && body.body === undefined && !body.media_urls?.length)
        throw missing('A message needs `body` (text), `media_urls` (https URLs) and/or `template` ({id, variables}).', 'body');
      if (body.to === body.from) throw invalid('`to` and `from` are the same number: send to another number.', 'to');
    },
    variants: [
      { title: 'Text', fields: ['from', 'to', 'body', 'media_urls'], required: ['body'] },
      { title: 'A template', fields: ['from', 'to', 'template', 'media_urls'], required: ['template'] },
      { title: 'Media alone', fields: ['from', 'to', 'media_urls'], required: ['media_urls'], narrow: { media_urls: { minItems: 1 } } },
    ],
  },
);

export const listMessagesQuery = listQuery(
  {
    direction: optional(oneOf(DIRECTIONS, 'Only messages in this direction.')),
    channel: optional(oneOf(MESSAGE_CHANNELS, 'Only messages of this channel.')),
    status: optional(oneOf(MESSAGE_STATUSES, 'Only messages in this status.')),
    conversation_id: optional(string({ description: 'Only messages of this conversation (conv_…)', max: 64 })),
  },
  'List messages, newest first.',
);

/** A message needs text and/or media; a template gives the text. */
function textOf(body: Infer<typeof sendMessageBody>, templates: Templates): { text: string | null; template: MessageRecord['template'] } {
  const { template } = body;
  if (!template) return { text: body.body ?? null, template: null };
  const found = templates.get(template.id);
  if (!found) {
    const guess = nearest(template.id, templates.ids);
    throw badRequest(
      `\`template.id\` ${JSON.stringify(template.id)} is not a template of this sandbox: ` +
        `${guess ? `did you mean "${guess}"?` : `use one of ${templates.ids.slice(0, 10).join(', ')}`} (add your own with the ` +
        `\`templates\` option).`,
      'template.id',
    );
  }
  const values = template.variables ?? {};
  for (const name of found.variables) {
    if (!Object.hasOwn(values, name))
      throw missing(`Template ${found.id} needs the variable \`${name}\`: add it to \`template.variables\`.`, `template.variables.${name}`);
  }
  for (const name of Object.keys(values)) {
    if (!found.variables.includes(name)) {
      const guess = nearest(name, found.variables);
      throw badRequest(
        `Template ${found.id} has no variable \`${name}\`: ` +
          `${guess ? `did you mean \`${guess}\`?` : `its variables are ${found.variables.join(', ') || 'none'}.`}`,
        `template.variables.${name}`,
      );
    }
  }
  const text = templates.render(found, values);
  if (text.length > MAX_BODY_CHARS)
    throw badRequest(
      `Template ${found.id} renders to ${text.length} characters; a message holds at most ${MAX_BODY_CHARS}: shorten the variables.`,
      'template.variables',
    );
  return { text, template: { id: found.id, variables: values } };
}

/** The two handlers, apart from the table so each can be typed by its schemas. */
const handlers = {
  send(ctx: RequestContext<Infer<typeof sendMessageBody>>, { messages, numbers, templates, network }: MessageRoutesDeps): Reply {
    const body = ctx.body;
    const { text, template } = textOf(body, templates);
    const mediaUrls = body.media_urls ?? [];
    const own = numbers.holderOf(body.from);
    if (!own || own.account !== ctx.principal.account) {
      throw new ApiError(
        422,
        'number_not_provisioned',
        `\`from\` ${body.from} is not a number of this account: provision it with POST /v1/numbers, or send from one listed by GET ` +
          `/v1/numbers?provisioned=true.`,
        'from',
      );
    }
    if (!own.smsEnabled) {
      throw new ApiError(
        422,
        'number_not_provisioned',
        `\`from\` ${body.from} has SMS disabled: enable it with PUT /v1/numbers/${own.id} {"sms": {"enabled": true}}.`,
        'from',
      );
    }
    if (mediaUrls.length > 0 && !own.capabilities.mms) {
      throw new ApiError(
        422,
        'number_not_provisioned',
        `\`from\` ${body.from} cannot send MMS (a ${own.country} number carries SMS only): send without \`media_urls\`, or from a US or CA number.`,
        'from',
      );
    }
    const message = messages.send(
      { account: ctx.principal.account, from: body.from, to: body.to, body: text, mediaUrls, template },
      network.routeMessage(body.to, 'to'),
    );
    return { status: 201, body: messages.toJson(message) };
  },

  list(ctx: RequestContext<undefined, Infer<typeof listMessagesQuery>>, { messages, cursors }: MessageRoutesDeps): Reply {
    const q = ctx.query;
    const where =
      q.direction || q.channel || q.status || q.conversation_id
        ? (m: MessageRecord) =>
            (!q.direction || m.direction === q.direction) &&
            (!q.channel || m.channel === q.channel) &&
            (!q.status || m.status === q.status) &&
            (!q.conversation_id || m.conversationId === q.conversation_id)
        : undefined;
    return { status: 200, body: paginate(cursors, 'messages', messages.store, ctx.principal.account, q, (m) => messages.toJson(m), where) };
  },
};

/** GET and POST /v1/messages (docs/messaging.md). */
export const messageRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/messages',
    resource: 'messages',
    summary: 'List messages',
    operationId: 'listMessages',
    description:
      "The account's messages, sent and received, newest first, a page at a time. Filter by `direction`, `channel` (sms or mms), " +
      '`status`, `conversation_id` and creation time.',
    query: listMessagesQuery,
    response: {
      status: 200,
      description: 'A page of messages, newest first.',
      content: { 'application/json': { schema: () => listOf(messageSchema) } },
    },
    handle: handlers.list,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/messages',
    resource: 'messages',
    summary: 'Send a message',
    operationId: 'sendMessage',
    description:
      "Sends an SMS from one of the account's SMS-enabled numbers, or an MMS when it has `media_urls` (from US and CA numbers). The text " +
      'is `body`, or a `template` filled with its variables; 201 with the message `queued`, whose delivery then follows on the sandbox ' +
      "clock with webhooks. A `from` that is not the account's is 422 `number_not_provisioned`.",
    examples: {
      sms: {
        summary: 'An SMS (`from`: one of your numbers)',
        value: { from: '+14155550100', to: '+14155550123', body: 'Your appointment is confirmed for 3 pm tomorrow.' },
      },
      mms: {
        summary: 'An MMS with a picture',
        value: { from: '+14155550100', to: '+14155550123', body: 'Here is your receipt.', media_urls: ['https://example.com/receipt.jpg'] },
      },
      template: {
        summary: 'A template with its variables',
        value: { from: '+14155550100', to: '+14155550123', template: { id: 'verification_code', variables: { code: '482913' } } },
      },
    },
    body: sendMessageBody,
    errors: [422],
    response: {
      status: 201,
      description: 'The message, queued.',
      content: { 'application/json': { schema: () => messageSchema.openapi() } },
    },
    handle: handlers.send,
  }),
];
