import { E164 } from '../../core/phone.js';
import { boolean, invalid, missing, nullable, object, oneOf, optional, phoneNumber, string, type Infer } from '../../core/schema.js';
import { NUMBER_KINDS } from '../../sim/inventory.js';
import type { NumberConfig, NumberRecord, NumberService } from '../../state/numbers.js';
import { availableNumberSchema, phoneNumberSchema, ROUTING_TYPES } from '../../state/resources.js';
import { notFound } from '../errors.js';
import { listOf, listQuery, paginate, type ListBody } from '../pagination.js';
import { defineRoute, type AnyRoute, type Reply, type IdContext, type RequestContext } from '../router.js';
import type { RouteDeps } from '../route-deps.js';

/** The parts of a sandbox these rows read. */
export type NumberRoutesDeps = Pick<RouteDeps, 'numbers' | 'cursors'>;

const kind = oneOf(NUMBER_KINDS, 'Number kind.');
const country = string({
  description: 'ISO 3166 alpha-2 country code',
  pattern: /^[A-Za-z]{2}$/,
  patternHint: 'a two-letter country code, e.g. "US"',
  example: 'US',
});
const areaCode = string({
  description: 'Area code (toll-free prefix for toll_free)',
  pattern: /^\d{1,5}$/,
  patternHint: '1 to 5 digits, e.g. "415"',
  example: '415',
});
const contains = string({
  description: 'Digits the number contains; letters stand for their keypad digits, * for any digit',
  max: 15,
  pattern: /^[0-9A-Za-z*]+$/,
  patternHint: 'digits, letters (keypad) or * (any digit), e.g. "555" or "CAFE"',
  example: '2233',
});

/**
 * The routing rule for one `type`: its `target` is required and matches `pattern`. The `then`
 * names `type` too, so validators that treat each subschema's properties as closed (Redocly's
 * example check) still accept a valid routing.
 */
function whenType(type: string, pattern: string) {
  const isType = { type: { const: type } };
  return {
    if: { required: ['type'], properties: isType },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword; this object is a schema, never awaited.
    then: { required: ['target'], properties: { ...isType, target: { type: 'string', pattern } } },
  };
}

const TARGET_EXAMPLE = {
  agent: 'an agent name, e.g. "maria"',
  extension: 'extension digits, e.g. "204"',
  forward: 'an E.164 number, e.g. +14155550123',
};
const routing = object(
  {
    type: oneOf(ROUTING_TYPES, 'Who takes inbound calls.'),
    target: optional(nullable(string({ description: 'Agent name, extension digits or E.164 number, by type', max: 64 }))),
  },
  {
    description:
      'Who takes inbound calls: the AI receptionist, an agent (`target`: a name), an extension (`target`: 1 to 8 digits), or a forward ' +
      'to another number (`target`: E.164).',
    check(value, path) {
      if (value.type === 'ai_receptionist') return;
      const target = value.target ?? null;
      const param = `${path}.target`;
      if (target === null || !target.trim())
        throw missing(`\`${param}\` is required for routing type ${value.type}: ${TARGET_EXAMPLE[value.type]}.`, param);
      if (value.type === 'extension' && !/^\d{1,8}$/.test(target))
        throw invalid(`\`${param}\` of an extension must be 1 to 8 digits, e.g. "204" (got ${JSON.stringify(target)}).`, param);
      if (value.type === 'forward' && !E164.test(target))
        throw invalid(`\`${param}\` of a forward must be E.164, e.g. +14155550123 (got ${JSON.stringify(target)}).`, param);
    },
    rules: { allOf: [whenType('agent', '\\S'), whenType('extension', '^\\d{1,8}$'), whenType('forward', E164.source)] },
  },
);
const callerId = object(
  {
    name: string({
      description: 'Name shown to the people called',
      max: 15,
      pattern: /^[\x20-\x7E]+$/,
      patternHint: 'printable ASCII (letters, digits, spaces, punctuation), as carriers show it',
      example: 'Acme Dental',
    }),
  },
  { description: 'Caller ID name, at most 15 characters.' },
);
const sms = object({ enabled: boolean('Whether the number sends and receives messages.') }, { description: 'SMS configuration.' });

const CONFIG = {
  routing: optional(nullable(routing)),
  caller_id: optional(nullable(callerId)),
  sms: optional(sms),
};

export const searchNumbersQuery = listQuery(
  {
    provisioned: optional(oneOf(['true', 'false'], "true lists the account's own numbers instead of the available ones.")),
    kind: optional(kind),
    country: optional(country),
    area_code: optional(areaCode),
    contains: optional(contains),
  },
  'Search available numbers, or list your own with provisioned=true (date filters need provisioned=true).',
  (q) => {
    if (q.provisioned === 'true') return;
    for (const param of ['created_after', 'created_before'] as const) {
      if (q[param] !== undefined) throw invalid(`\`${param}\` filters your own numbers by provisioning date: add provisioned=true.`, param);
    }
  },
);

const CRITERIA = ['kind', 'country', 'area_code', 'contains'] as const;
const CONFIG_FIELDS = ['routing', 'caller_id', 'sms'] as const;

export const provisionNumberBody = object(
  {
    number: optional(phoneNumber('A number from GET /v1/numbers.')),
    kind: optional(kind),
    country: optional(country),
    area_code: optional(areaCode),
    contains: optional(contains),
    ...CONFIG,
  },
  {
    description: 'Provision a searched `number`, or the first available match of kind/country/area_code/contains (one or the other).',
    check(body) {
      const criteria = CRITERIA.find((k) => body[k] !== undefined);
      if (body.number !== undefined && criteria)
        throw invalid(`Give either \`number\` or search criteria, not both: \`${criteria}\` cannot be combined with \`number\`.`, criteria);
      if (body.number === undefined && !criteria)
        throw missing(
          'Say which number to provision: `number` (from GET /v1/numbers), or criteria `kind`, `country`, `area_code` and/or `contains`.',
          'number',
        );
    },
    // By number, or by criteria: at least one, written as one form per first criterion given
    // (`kind`, else `country`, ...) so that the forms exclude each other.
    variants: [
      { title: 'A searched number', fields: ['number', ...CONFIG_FIELDS], required: ['number'] },
      ...CRITERIA.map((first, i) => ({
        title: `The first match, by ${first}`,
        fields: [...CRITERIA.slice(i), ...CONFIG_FIELDS],
        required: [first],
      })),
    ],
  },
);

export const updateNumberBody = object(CONFIG, {
  description: 'Replace the routing, caller ID and/or SMS configuration (at least one).',
  check(body) {
    if (body.routing === undefined && body.caller_id === undefined && body.sms === undefined)
      throw missing('Name at least one aspect to replace: `routing`, `caller_id` or `sms`.', 'routing');
  },
  // At least one aspect, as one form per first aspect given, so that the forms exclude each other.
  variants: CONFIG_FIELDS.map((first, i) => ({ title: `Replace ${first}`, fields: CONFIG_FIELDS.slice(i), required: [first] })),
});

const KEYPAD: Record<string, string> = Object.fromEntries(
  ['ABC', 'DEF', 'GHI', 'JKL', 'MNO', 'PQRS', 'TUV', 'WXYZ'].flatMap((letters, i) => [...letters].map((l) => [l, String(i + 2)])),
);

/** `contains` as a test on the number's digits (calling code included). */
function containsTest(pattern: string | undefined): (number: string) => boolean {
  if (pattern === undefined) return () => true;
  const digits = [...pattern.toUpperCase()].map((c) => (c === '*' ? '\\d' : (KEYPAD[c] ?? c))).join('');
  const re = new RegExp(digits);
  return (number) => re.test(number.slice(1));
}

type Criteria = Pick<Infer<typeof provisionNumberBody>, 'kind' | 'country' | 'area_code' | 'contains'>;
const blockFilter = (c: Criteria) => ({ kind: c.kind, country: c.country?.toUpperCase(), areaCode: c.area_code });
const criteriaText = (c: Criteria) =>
  (['kind', 'country', 'area_code', 'contains'] as const)
    .filter((k) => c[k] !== undefined)
    .map((k) => `${k}=${c[k]}`)
    .join(', ');

/** The configuration a body asks for (its shape already checked; the routing rules are the number service's). */
function config(body: Infer<typeof updateNumberBody>): NumberConfig {
  return {
    routing: body.routing && { type: body.routing.type, target: body.routing.target ?? null },
    callerIdName: body.caller_id === undefined ? undefined : (body.caller_id?.name ?? null),
    smsEnabled: body.sms?.enabled,
  };
}

/** The account's number that the path's `{id}` names, or 404. */
function findNumber(numbers: NumberService, ctx: IdContext): NumberRecord {
  const record = numbers.store.get(ctx.principal.account, ctx.params.id);
  if (!record)
    throw notFound(
      `No number ${ctx.params.id} in this account: use an id from POST /v1/numbers or GET /v1/numbers?provisioned=true (a released number is gone for good).`,
    );
  return record;
}

/** The handlers, apart from the table so each can be typed by its schemas. */
const handlers = {
  search(ctx: RequestContext<undefined, Infer<typeof searchNumbersQuery>>, { numbers, cursors }: NumberRoutesDeps): Reply {
    const q = ctx.query;
    const account = ctx.principal.account;
    const filter = blockFilter(q);
    const matches = containsTest(q.contains);
    if (q.provisioned === 'true') {
      const where = (n: NumberRecord) =>
        (!filter.kind || n.kind === filter.kind) &&
        (!filter.country || n.country === filter.country) &&
        (!filter.areaCode || n.areaCode === filter.areaCode) &&
        matches(n.number);
      return { status: 200, body: paginate(cursors, 'numbers', numbers.store, account, q, (n) => numbers.toJson(n), where) };
    }
    const limit = q.limit ?? 50;
    const from = q.cursor === undefined ? 0 : cursors.decode('numbers:available', account, q.cursor) + 1;
    const page: ListBody<ReturnType<NumberService['availableJson']>> = { data: [], next_cursor: null, has_more: false };
    let last = -1;
    for (const entry of numbers.available(filter, matches, from)) {
      if (page.data.length === limit) {
        page.has_more = true;
        page.next_cursor = cursors.encode('numbers:available', account, last);
        break;
      }
      page.data.push(numbers.availableJson(entry));
      last = entry.position;
    }
    return { status: 200, body: page };
  },

  provision(ctx: RequestContext<Infer<typeof provisionNumberBody>>, { numbers }: NumberRoutesDeps): Reply {
    const body = ctx.body;
    const criteria = CRITERIA.find((k) => body[k] !== undefined);
    const wanted =
      body.number !== undefined
        ? { number: body.number }
        : { filter: blockFilter(body), matches: containsTest(body.contains), describe: criteriaText(body), param: criteria! };
    const record = numbers.provision(ctx.principal.account, wanted, config(body));
    return { status: 201, body: numbers.toJson(record) };
  },

  update(ctx: RequestContext<Infer<typeof updateNumberBody>, undefined, '/v1/numbers/{id}'>, { numbers }: NumberRoutesDeps): Reply {
    const body = ctx.body;
    const record = findNumber(numbers, ctx);
    numbers.configure(record, config(body));
    return { status: 200, body: numbers.toJson(record) };
  },

  release(ctx: RequestContext<undefined, undefined, '/v1/numbers/{id}'>, { numbers }: NumberRoutesDeps): Reply {
    numbers.release(findNumber(numbers, ctx));
    return { status: 204 };
  },
};
const number = () => phoneNumberSchema.openapi();

/** GET, POST /v1/numbers, PUT and DELETE /v1/numbers/{id} (docs/numbers.md). */
export const numberRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/numbers',
    resource: 'numbers',
    summary: 'Search numbers',
    operationId: 'searchNumbers',
    description:
      'Searches the pool of available numbers by `kind`, `country`, `area_code` and `contains` (letters stand for their keypad digits, ' +
      "`*` for any digit). With `provisioned=true` it lists the account's own numbers instead, newest first; the date filters apply to " +
      'those only.',
    query: searchNumbersQuery,
    response: {
      status: 200,
      description: "A page of available numbers; with provisioned=true, of the account's own, newest first.",
      content: { 'application/json': { schema: () => listOf({ oneOf: [availableNumberSchema.openapi(), number()] }) } },
    },
    handle: handlers.search,
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/numbers',
    resource: 'numbers',
    summary: 'Provision a number',
    operationId: 'provisionNumber',
    description:
      'Provisions a number for the account: a `number` found by a search, or the first available match of `kind`, `country`, `area_code` ' +
      'and `contains` (one or the other, never both). Routing, caller ID and SMS can be set at once. A number already held, or no ' +
      'match, is 422 `number_unavailable`.',
    examples: {
      byArea: { summary: 'The first local number in an area code', value: { kind: 'local', country: 'US', area_code: '415' } },
      withConfig: {
        summary: 'A toll-free number answered by the AI receptionist',
        value: { kind: 'toll_free', country: 'US', routing: { type: 'ai_receptionist' }, caller_id: { name: 'Acme Dental' } },
      },
    },
    body: provisionNumberBody,
    errors: [422],
    response: { status: 201, description: 'The number, provisioned.', content: { 'application/json': { schema: number } } },
    handle: handlers.provision,
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/numbers/{id}',
    resource: 'numbers',
    summary: 'Update a number',
    operationId: 'updateNumber',
    description:
      "Replaces one or more aspects of a number's configuration: `routing` (who takes inbound calls), `caller_id` (the name shown) and " +
      '`sms` (enabled or not); `null` clears routing or caller ID, and aspects not named stay as they are.',
    params: { id: { description: "The id (`num_…`) of one of the account's numbers.", example: 'num_3Vd8sKq1Lx5Tn0Pw' } },
    examples: {
      agent: {
        summary: 'Route inbound calls to an agent, with a caller ID name',
        value: { routing: { type: 'agent', target: 'maria' }, caller_id: { name: 'Acme Dental' } },
      },
      forward: {
        summary: 'Forward inbound calls and enable SMS',
        value: { routing: { type: 'forward', target: '+14155550123' }, sms: { enabled: true } },
      },
    },
    body: updateNumberBody,
    errors: [422],
    response: { status: 200, description: 'The number, updated.', content: { 'application/json': { schema: number } } },
    handle: handlers.update,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/numbers/{id}',
    resource: 'numbers',
    summary: 'Release a number',
    operationId: 'releaseNumber',
    description: "Releases one of the account's numbers for good: it goes back to the pool, and its id is 404 from then on.",
    params: { id: { description: "The id (`num_…`) of one of the account's numbers.", example: 'num_3Vd8sKq1Lx5Tn0Pw' } },
    response: { status: 204, description: 'Released, for good: the number is back in the pool.' },
    handle: handlers.release,
  }),
];
