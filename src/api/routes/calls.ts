import { array, boolean, invalid, missing, object, oneOf, optional, phoneNumber, string } from '../../core/schema.js';
import type { CallRecord, CallService } from '../../state/calls.js';
import { CALL_STATUSES, callSchema, campaignSchema, DIRECTIONS } from '../../state/resources.js';
import { notFound } from '../errors.js';
import { listOf, listQuery, paginate } from '../pagination.js';
import { defineRoute, type AnyRoute, type IdContext } from '../router.js';
import type { RouteDeps } from '../route-deps.js';

/** The parts of a sandbox these rows read. */
export type CallRoutesDeps = Pick<RouteDeps, 'calls' | 'dialer' | 'network' | 'cursors'>;

/** The body of POST /v1/calls: one call, or a dialer campaign (see docs/calls.md). */
export const placeCallBody = object(
  {
    to: optional(phoneNumber('Destination number in E.164.')),
    from: optional(phoneNumber('Originating number in E.164.')),
    ai_receptionist: optional(boolean('When true, an AI receptionist handles the call.')),
    campaign: optional(
      object(
        {
          to: array(phoneNumber('A number to dial.'), { description: 'Numbers to dial, in order.', min: 1, max: 1000 }),
          from: phoneNumber('Originating number of every call.'),
          ai_receptionist: optional(boolean('When true, an AI receptionist handles every call.')),
        },
        { description: 'A dialer campaign: its calls are dialled one after another on the clock.' },
      ),
    ),
  },
  {
    description: 'Start an outbound call (`to` and `from`), or a dialer campaign (`campaign` alone).',
    check(body) {
      if (body.campaign) {
        for (const field of ['to', 'from', 'ai_receptionist'] as const) {
          if (body[field] !== undefined)
            throw invalid(`\`${field}\` cannot be combined with \`campaign\`: put it inside campaign (campaign.${field}).`, field);
        }
        return;
      }
      if (body.to === undefined)
        throw missing('`to` is required: the destination number in E.164, e.g. +14155550123 (or send `campaign` to dial several).', 'to');
      if (body.from === undefined) throw missing('`from` is required: the originating number in E.164, e.g. +14155550100.', 'from');
    },
    variants: [
      { title: 'One call', fields: ['to', 'from', 'ai_receptionist'], required: ['to', 'from'] },
      { title: 'A dialer campaign', fields: ['campaign'], required: ['campaign'] },
    ],
  },
);

export const transferBody = object(
  {
    agent: optional(string({ description: 'Name of the agent who takes the call.', max: 64 })),
    extension: optional(
      string({ description: 'Extension that takes the call.', pattern: /^\d{1,8}$/, patternHint: '1 to 8 digits, e.g. "204"' }),
    ),
  },
  {
    description: 'Transfer an answered call to exactly one of an agent or an extension.',
    check(body) {
      if (body.agent !== undefined && body.extension !== undefined)
        throw invalid('Give exactly one of `agent` or `extension`, not both.', 'extension');
      if (body.agent === undefined && body.extension === undefined)
        throw missing('Give one of `agent` (an agent name) or `extension` (digits, e.g. "204") to transfer to.', 'agent');
    },
    variants: [
      { title: 'To an agent', fields: ['agent'], required: ['agent'] },
      { title: 'To an extension', fields: ['extension'], required: ['extension'] },
    ],
  },
);

export const listCallsQuery = listQuery(
  {
    status: optional(oneOf(CALL_STATUSES, 'Only calls in this status.')),
    direction: optional(oneOf(DIRECTIONS, 'Only calls in this direction.')),
    campaign_id: optional(string({ description: 'Only calls of this dialer campaign.', max: 64 })),
  },
  'List calls, newest first.',
);

const callOrCampaign = () => ({ oneOf: [callSchema.openapi(), campaignSchema.openapi()] });

/** The account's call that the path's `{id}` names, or 404. */
function findCall(calls: CallService, ctx: IdContext): CallRecord {
  const call = calls.store.get(ctx.principal.account, ctx.params.id);
  if (!call) throw notFound(`No call ${ctx.params.id} in this account: check the id returned by POST /v1/calls.`);
  return call;
}

/** GET, POST /v1/calls, GET /v1/calls/{id} and the transfer (docs/contract.md; docs/calls.md). */
export const callRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/calls',
    resource: 'calls',
    summary: 'List calls',
    operationId: 'listCalls',
    description:
      "The account's calls, newest first, a page at a time: pass `next_cursor` back as `cursor` for the next page. Filter by `status`, " +
      '`direction`, `campaign_id` and creation time (`created_after`, `created_before`: a date or a date-time).',
    query: listCallsQuery,
    response: {
      status: 200,
      description: 'A page of calls, newest first.',
      content: { 'application/json': { schema: () => listOf(callSchema) } },
    },
    handle(ctx, { calls, cursors }: CallRoutesDeps) {
      const q = ctx.query;
      const where =
        q.status || q.direction || q.campaign_id
          ? (c: CallRecord) =>
              (!q.status || c.status === q.status) &&
              (!q.direction || c.direction === q.direction) &&
              (!q.campaign_id || c.campaignId === q.campaign_id)
          : undefined;
      return { status: 200, body: paginate(cursors, 'calls', calls.store, ctx.principal.account, q, (c) => calls.toJson(c), where) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/calls',
    resource: 'calls',
    summary: 'Start a call or a dialer campaign',
    operationId: 'placeCall',
    description:
      'Starts an outbound call from `from` to `to`: 201 with the call `ringing`, which then moves through its lifecycle on the sandbox ' +
      'clock (answered, completed), sending webhooks on the way. With `campaign` alone it starts a dialer campaign instead, which ' +
      'dials its numbers one after another. An unreachable destination is 422 `unreachable_destination`.',
    examples: {
      call: { summary: 'One call', value: { to: '+14155550123', from: '+14155550100' } },
      aiReceptionist: {
        summary: 'A call the AI receptionist handles',
        value: { to: '+14155550123', from: '+14155550100', ai_receptionist: true },
      },
      campaign: { summary: 'A dialer campaign', value: { campaign: { to: ['+14155550123', '+14155550124'], from: '+14155550100' } } },
    },
    body: placeCallBody,
    errors: [422],
    response: {
      status: 201,
      description: 'The call, ringing; or the campaign.',
      content: { 'application/json': { schema: callOrCampaign } },
    },
    handle(ctx, { calls, dialer, network }: CallRoutesDeps) {
      const body = ctx.body;
      const account = ctx.principal.account;
      if (body.campaign) {
        const { to, from, ai_receptionist } = body.campaign;
        const campaign = dialer.start(account, { to, from, aiReceptionist: ai_receptionist ?? false }, 'campaign.to');
        return { status: 201, body: dialer.toJson(campaign) };
      }
      const { to, from } = body;
      // The body's schema lets no call through without both (its either/or rule with `campaign`).
      if (to === undefined || from === undefined) throw new Error('POST /v1/calls: a call body without `to` or `from` passed its schema');
      const behavior = network.routeCall(to, 'to');
      const call = calls.place({
        account,
        from,
        to,
        aiReceptionist: body.ai_receptionist ?? false,
        direction: 'outbound',
        campaignId: null,
        behavior,
      });
      return { status: 201, body: calls.toJson(call) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/calls/{id}',
    resource: 'calls',
    summary: 'Fetch a call (or campaign)',
    operationId: 'getCall',
    description:
      'A call with its full metadata: status, disposition, duration, agent, and its recording and transcript ids. A `camp_` id gives the ' +
      "dialer campaign instead; another account's call is 404.",
    params: { id: { description: 'The call id (`call_…`), or a dialer campaign id (`camp_…`).', example: 'call_7mQ2xK9pR4tLw8Zb' } },
    response: {
      status: 200,
      description: 'The call with full metadata (a camp_ id gives the campaign).',
      content: { 'application/json': { schema: callOrCampaign } },
    },
    handle(ctx, { calls, dialer }: CallRoutesDeps) {
      const id = ctx.params.id;
      if (id.startsWith('camp_')) {
        const campaign = dialer.store.get(ctx.principal.account, id);
        if (!campaign) throw notFound(`No campaign ${id} in this account.`);
        return { status: 200, body: dialer.toJson(campaign) };
      }
      return { status: 200, body: calls.toJson(findCall(calls, ctx)) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/calls/{id}/transfer',
    resource: 'calls',
    summary: 'Transfer an answered call',
    operationId: 'transferCall',
    description:
      'Hands an answered (`in_progress`) call to exactly one of an `agent` or an `extension`. A call that is not in progress is 422 `call_not_active`.',
    params: { id: { description: 'The id (`call_…`) of an answered call.', example: 'call_7mQ2xK9pR4tLw8Zb' } },
    examples: {
      agent: { summary: 'To an agent', value: { agent: 'maria' } },
      extension: { summary: 'To an extension', value: { extension: '204' } },
    },
    body: transferBody,
    errors: [422],
    response: {
      status: 200,
      description: 'The call, with its new agent or extension.',
      content: { 'application/json': { schema: () => callSchema.openapi() } },
    },
    handle(ctx, { calls }: CallRoutesDeps) {
      const { agent, extension } = ctx.body;
      const target = agent !== undefined ? { agent } : extension !== undefined ? { extension } : undefined;
      // The body's schema asks for exactly one of the two.
      if (target === undefined)
        throw new Error('POST /v1/calls/{id}/transfer: a body with neither `agent` nor `extension` passed its schema');
      const call = findCall(calls, ctx);
      calls.transfer(call, target);
      return { status: 200, body: calls.toJson(call) };
    },
  }),
];
