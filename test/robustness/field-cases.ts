import { bad, json, missing, notFound, OTHER_AUTH, TO, unprocessable, type BadRequest, type Expected } from './kit.js';

/**
 * Field-level faults of every body endpoint: a wrong type for every field, an invalid
 * E.164 in every phone field, missing and extra fields, odd Unicode, overlong strings,
 * `__proto__`/`constructor` keys in nested objects, and requests that are well formed
 * but refer to what cannot be (422). Each starts from a body that would succeed and breaks
 * one thing, so the field at fault is certain.
 */

type Body = Record<string, unknown>;
type Case = [what: string, body: Body | string, expect: Expected];

const NUMBER = '<<number>>';
const NOWHERE = '+9991234567';

/** One value of each JSON type; a field gets every one that is not its own type. */
const TYPED: Record<string, unknown> = { number: 42, float: 1.5, boolean: true, null: null, array: [TO], object: {}, string: 'yes' };

/** Strings that are not E.164 numbers. */
export const BAD_PHONES: readonly string[] = [
  '',
  '14155550123',
  '+',
  '+1',
  '+0123456789',
  '+1234567890123456',
  '+1 415 555 0123',
  '+1-415-555-0123',
  '(415) 555-0123',
  '+1415555012a',
  '+\u0661\u0664\u0661\u0665\u0665\u0665\u0660\u0661\u0662\u0663',
  '\uff0b14155550123',
  ' +14155550123',
  '+14155550123\n',
  '+14155550123\u0000',
  '+1\u200f4155550123',
  '+1415\ud8005550123',
  '+1415😀5550123',
  `+${'1'.repeat(10_000)}`,
];

interface Endpoint {
  method: string;
  path: string;
  /** A body that would succeed. */
  valid: Body;
  /** Field path → its JSON type (`string`, `boolean`, `array`, `object`; `|null` when null is a value). */
  types: Record<string, string>;
  /** Phone fields: the param, and the body that puts a bad number there. */
  phones: Array<[param: string, make: (n: string) => Body]>;
  cases: Case[];
}

/** A copy of `body` with the value at a dotted path (`template.id`, `media_urls.0`) replaced. */
function setAt(body: Body, path: string, value: unknown): Body {
  const copy = structuredClone(body);
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at: any = copy;
  for (const key of keys.slice(0, -1)) at = at[key];
  at[keys[keys.length - 1]!] = value;
  return copy;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/v1/calls',
    valid: { to: TO, from: NUMBER, ai_receptionist: true },
    types: { to: 'string', from: 'string', ai_receptionist: 'boolean' },
    phones: [
      ['to', (n) => ({ to: n, from: NUMBER })],
      ['from', (n) => ({ to: TO, from: n })],
      ['campaign.to[1]', (n) => ({ campaign: { to: [TO, n], from: NUMBER } })],
      ['campaign.from', (n) => ({ campaign: { to: [TO], from: n } })],
    ],
    cases: [
      ['an empty object', {}, missing('to')],
      ['no to', { from: NUMBER }, missing('to')],
      ['no from', { to: TO }, missing('from')],
      ['a misspelt field', { to: TO, from: NUMBER, ai_recepcionist: true }, bad('ai_recepcionist')],
      ['an extra field', { to: TO, from: NUMBER, priority: 'high' }, bad('priority')],
      ['an unreachable destination', { to: '+15005550001', from: NUMBER }, unprocessable('unreachable_destination', 'to')],
      ['an unassigned prefix', { to: NOWHERE, from: NUMBER }, unprocessable('unreachable_destination', 'to')],
      ['campaign and to together', { campaign: { to: [TO], from: NUMBER }, to: TO }, bad('to')],
      ['campaign of a wrong type', { campaign: [TO] }, bad('campaign')],
      ['an empty campaign', { campaign: {} }, missing('campaign.to')],
      ['a campaign without from', { campaign: { to: [TO] } }, missing('campaign.from')],
      ['a campaign of no numbers', { campaign: { to: [], from: NUMBER } }, bad('campaign.to')],
      ['a campaign of 1,001 numbers', { campaign: { to: Array(1001).fill(TO), from: NUMBER } }, bad('campaign.to')],
      ['a campaign to a string', { campaign: { to: TO, from: NUMBER } }, bad('campaign.to')],
      [
        'a campaign with an unreachable number',
        { campaign: { to: [TO, '+15005550001'], from: NUMBER } },
        unprocessable('unreachable_destination', 'campaign.to[1]'),
      ],
      [
        'a campaign ai_receptionist "yes"',
        { campaign: { to: [TO], from: NUMBER, ai_receptionist: 'yes' } },
        bad('campaign.ai_receptionist'),
      ],
      ['a campaign with an extra field', { campaign: { to: [TO], from: NUMBER, interval: 5 } }, bad('campaign.interval')],
      [
        'a nested __proto__ key',
        `{"campaign": {"to": ["${TO}"], "from": "${NUMBER}", "__proto__": {"admin": true}}}`,
        bad('campaign.__proto__'),
      ],
      [
        'a nested constructor key',
        `{"campaign": {"to": ["${TO}"], "from": "${NUMBER}", "constructor": {"prototype": {}}}}`,
        bad('campaign.constructor'),
      ],
    ],
  },
  {
    method: 'POST',
    path: '/v1/calls/<<live_call>>/transfer',
    valid: { agent: 'maria' },
    types: { agent: 'string', extension: 'string' },
    phones: [],
    cases: [
      ['an empty object', {}, missing('agent')],
      ['both agent and extension', { agent: 'maria', extension: '204' }, bad('extension')],
      ['an extension with a letter', { extension: '20a' }, bad('extension')],
      ['an extension of 9 digits', { extension: '123456789' }, bad('extension')],
      ['an extension of Arabic-Indic digits', { extension: '\u0662\u0660\u0664' }, bad('extension')],
      ['an empty agent', { agent: '' }, bad('agent')],
      ['an agent of 65 characters', { agent: 'a'.repeat(65) }, bad('agent')],
      ['a misspelt field', { agnet: 'maria' }, bad('agnet')],
      ['a __proto__ key beside a valid agent', '{"agent": "maria", "__proto__": {"extension": "204"}}', bad('__proto__')],
    ],
  },
  {
    method: 'POST',
    path: '/v1/numbers',
    valid: { kind: 'local', routing: { type: 'agent', target: 'maria' }, caller_id: { name: 'Acme' }, sms: { enabled: true } },
    types: {
      kind: 'string',
      country: 'string',
      area_code: 'string',
      contains: 'string',
      routing: 'object|null',
      caller_id: 'object|null',
      sms: 'object',
      'routing.type': 'string',
      'routing.target': 'string|null',
      'caller_id.name': 'string',
      'sms.enabled': 'boolean',
    },
    phones: [
      ['number', (n) => ({ number: n })],
      ['routing.target', (n) => ({ kind: 'local', routing: { type: 'forward', target: n } })],
    ],
    cases: [
      ['an empty object', {}, missing('number')],
      ['routing only', { routing: { type: 'ai_receptionist' } }, missing('number')],
      ['its own provisioned number', { number: NUMBER }, unprocessable('number_unavailable', 'number')],
      ["the other account's number", { number: '<<other_number>>' }, unprocessable('number_unavailable', 'number')],
      ['a number outside the pool', { number: NOWHERE }, unprocessable('number_unavailable', 'number')],
      ['number and kind together', { number: NUMBER, kind: 'local' }, bad('kind')],
      ['kind "tollfree"', { kind: 'tollfree' }, bad('kind')],
      ['kind "LOCAL"', { kind: 'LOCAL' }, bad('kind')],
      ['kind with a right-to-left mark', { kind: 'local\u200f' }, bad('kind')],
      ['no number in country ZZ', { kind: 'local', country: 'ZZ' }, unprocessable('number_unavailable', 'kind')],
      ['no number containing 13 zeros', { contains: '0'.repeat(13) }, unprocessable('number_unavailable', 'contains')],
      ['country "USA"', { country: 'USA' }, bad('country')],
      ['country "U1"', { country: 'U1' }, bad('country')],
      ['a flag emoji for country', { country: '🇺🇸' }, bad('country')],
      ['area_code of 6 digits', { area_code: '415555' }, bad('area_code')],
      ['an empty area_code', { area_code: '' }, bad('area_code')],
      ['contains of 16 characters', { contains: '5'.repeat(16) }, bad('contains')],
      ['contains with a dash', { contains: '55-55' }, bad('contains')],
      ['contains as a regular expression', { contains: '(.*)' }, bad('contains')],
      ['agent routing without a target', { kind: 'local', routing: { type: 'agent' } }, missing('routing.target')],
      ['agent routing to blanks', { kind: 'local', routing: { type: 'agent', target: '   ' } }, missing('routing.target')],
      ['an extension target with letters', { kind: 'local', routing: { type: 'extension', target: 'abc' } }, bad('routing.target')],
      [
        'a forward to an unreachable number',
        { kind: 'local', routing: { type: 'forward', target: '+15005550001' } },
        unprocessable('unreachable_destination', 'routing.target'),
      ],
      ['a misspelt routing type', { kind: 'local', routing: { type: 'forwrd', target: TO } }, bad('routing.type')],
      ['routing without a type', { kind: 'local', routing: {} }, missing('routing.type')],
      ['routing with an extra field', { kind: 'local', routing: { type: 'agent', target: 'm', priority: 1 } }, bad('routing.priority')],
      ['a caller ID of 16 characters', { kind: 'local', caller_id: { name: 'Sixteen chars!!!' } }, bad('caller_id.name')],
      ['a caller ID with a Latin-1 letter', { kind: 'local', caller_id: { name: 'Caf\u00e9' } }, bad('caller_id.name')],
      ['a caller ID with a NUL', { kind: 'local', caller_id: { name: 'A\u0000B' } }, bad('caller_id.name')],
      ['a caller ID with a right-to-left mark', { kind: 'local', caller_id: { name: '\u200fAcme' } }, bad('caller_id.name')],
      ['a caller ID with an emoji', { kind: 'local', caller_id: { name: 'Acme 😀' } }, bad('caller_id.name')],
      ['a caller ID with a lone surrogate', { kind: 'local', caller_id: { name: 'Acme\ud800' } }, bad('caller_id.name')],
      ['an empty caller_id', { kind: 'local', caller_id: {} }, missing('caller_id.name')],
      ['an empty sms', { kind: 'local', sms: {} }, missing('sms.enabled')],
      ['sms null', { kind: 'local', sms: null }, bad('sms')],
      [
        'a nested __proto__ key',
        '{"kind": "local", "routing": {"type": "agent", "target": "m", "__proto__": {"type": "forward"}}}',
        bad('routing.__proto__'),
      ],
      ['a nested constructor key', '{"kind": "local", "sms": {"enabled": true, "constructor": {}}}', bad('sms.constructor')],
      ['a nested prototype key', '{"kind": "local", "caller_id": {"name": "Acme", "prototype": {}}}', bad('caller_id.prototype')],
    ],
  },
  {
    method: 'PUT',
    path: '/v1/numbers/<<number_id>>',
    valid: { routing: { type: 'agent', target: 'maria' }, caller_id: { name: 'Acme' }, sms: { enabled: true } },
    types: {
      routing: 'object|null',
      caller_id: 'object|null',
      sms: 'object',
      'routing.type': 'string',
      'routing.target': 'string|null',
      'caller_id.name': 'string',
      'sms.enabled': 'boolean',
    },
    phones: [['routing.target', (n) => ({ routing: { type: 'forward', target: n } })]],
    cases: [
      ['an empty object', {}, missing('routing')],
      ['a number field', { number: TO }, bad('number')],
      ['a kind field', { kind: 'local', sms: { enabled: true } }, bad('kind')],
      ['a forward to itself', { routing: { type: 'forward', target: NUMBER } }, bad('routing.target')],
      [
        'a forward to an unassigned prefix',
        { routing: { type: 'forward', target: NOWHERE } },
        unprocessable('unreachable_destination', 'routing.target'),
      ],
      ['an agent target of 65 characters', { routing: { type: 'agent', target: 'a'.repeat(65) } }, bad('routing.target')],
      ['an empty caller ID', { caller_id: { name: '' } }, bad('caller_id.name')],
      ['a caller ID of 10,000 characters', { caller_id: { name: 'A'.repeat(10_000) } }, bad('caller_id.name')],
      ['a caller_id with an extra field', { caller_id: { name: 'Acme', colour: 'red' } }, bad('caller_id.colour')],
      ['sms null', { sms: null }, bad('sms')],
      ['a nested __proto__ key', '{"sms": {"enabled": false, "__proto__": {"enabled": true}}}', bad('sms.__proto__')],
    ],
  },
  {
    method: 'POST',
    path: '/v1/messages',
    valid: { from: NUMBER, to: TO, body: 'Hello', media_urls: ['https://example.com/a.jpg'] },
    types: { from: 'string', to: 'string', body: 'string', media_urls: 'array', template: 'object', 'media_urls[0]': 'string' },
    phones: [
      ['from', (n) => ({ from: n, to: TO, body: 'Hi' })],
      ['to', (n) => ({ from: NUMBER, to: n, body: 'Hi' })],
    ],
    cases: [
      ['an empty object', {}, missing('from')],
      ['no to', { from: NUMBER, body: 'Hi' }, missing('to')],
      ['no text, media or template', { from: NUMBER, to: TO }, missing('body')],
      ['no media and no text', { from: NUMBER, to: TO, media_urls: [] }, missing('body')],
      ['an empty body text', { from: NUMBER, to: TO, body: '' }, bad('body')],
      ['a body of 1,601 characters', { from: NUMBER, to: TO, body: 'x'.repeat(1601) }, bad('body')],
      ['a body of 1,601 emoji', { from: NUMBER, to: TO, body: '😀'.repeat(1601) }, bad('body')],
      [
        'body and template together',
        { from: NUMBER, to: TO, body: 'Hi', template: { id: 'missed_call', variables: { name: 'A' } } },
        bad('template'),
      ],
      ['an unknown template', { from: NUMBER, to: TO, template: { id: 'nope' } }, bad('template.id')],
      ['a misspelt template', { from: NUMBER, to: TO, template: { id: 'missed_cal', variables: { name: 'A' } } }, bad('template.id')],
      ['template id __proto__', { from: NUMBER, to: TO, template: { id: '__proto__' } }, bad('template.id')],
      ['template id constructor', { from: NUMBER, to: TO, template: { id: 'constructor' } }, bad('template.id')],
      ['template id toString', { from: NUMBER, to: TO, template: { id: 'toString' } }, bad('template.id')],
      ['template id of 65 characters', { from: NUMBER, to: TO, template: { id: 't'.repeat(65) } }, bad('template.id')],
      ['template id with a NUL', { from: NUMBER, to: TO, template: { id: 'missed_call\u0000' } }, bad('template.id')],
      ['template id with a lone surrogate', { from: NUMBER, to: TO, template: { id: '\udc00missed_call' } }, bad('template.id')],
      ['template id of the wrong type', { from: NUMBER, to: TO, template: { id: 7 } }, bad('template.id')],
      ['a template without its variable', { from: NUMBER, to: TO, template: { id: 'missed_call' } }, missing('template.variables.name')],
      [
        'a misspelt template variable',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: { name: 'A', nmae: 'B' } } },
        bad('template.variables.nmae'),
      ],
      [
        'a boolean template variable',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: { name: true } } },
        bad('template.variables.name'),
      ],
      [
        'an object template variable',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: { name: {} } } },
        bad('template.variables.name'),
      ],
      [
        'template variables as an array',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: ['A'] } },
        bad('template.variables'),
      ],
      [
        'a template rendering past 1,600 characters',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: { name: 'x'.repeat(1600) } } },
        bad('template.variables'),
      ],
      [
        'a template with an extra field',
        { from: NUMBER, to: TO, template: { id: 'missed_call', variables: { name: 'A' }, lang: 'en' } },
        bad('template.lang'),
      ],
      [
        'a __proto__ template variable',
        `{"from": "${NUMBER}", "to": "${TO}", "template": {"id": "missed_call", "variables": {"name": "A", "__proto__": "x"}}}`,
        bad('template.variables.__proto__'),
      ],
      [
        'a constructor template variable',
        `{"from": "${NUMBER}", "to": "${TO}", "template": {"id": "missed_call", "variables": {"name": "A", "constructor": "x"}}}`,
        bad('template.variables.constructor'),
      ],
      [
        'a nested __proto__ key in template',
        `{"from": "${NUMBER}", "to": "${TO}", "template": {"id": "missed_call", "__proto__": {"id": "x"}}}`,
        bad('template.__proto__'),
      ],
      ['an http media URL', { from: NUMBER, to: TO, media_urls: ['http://example.com/a.jpg'] }, bad('media_urls[0]')],
      ['a media URL that is not a URL', { from: NUMBER, to: TO, media_urls: ['https://exa mple.com/a.jpg', 'x'] }, bad('media_urls[0]')],
      ['a javascript: media URL', { from: NUMBER, to: TO, media_urls: ['javascript:alert(1)'] }, bad('media_urls[0]')],
      [
        'a media URL of 2,049 characters',
        { from: NUMBER, to: TO, media_urls: [`https://example.com/${'a'.repeat(2029)}`] },
        bad('media_urls[0]'),
      ],
      ['a media URL with a NUL', { from: NUMBER, to: TO, media_urls: ['https://example.com/a.jpg\u0000'] }, bad('media_urls[0]')],
      [
        'a media URL with a control character',
        { from: NUMBER, to: TO, media_urls: ['\u0001https://example.com/a.jpg'] },
        bad('media_urls[0]'),
      ],
      [
        'a media URL with a lone surrogate host',
        { from: NUMBER, to: TO, media_urls: ['https://\ud800.example.com/a.jpg'] },
        bad('media_urls[0]'),
      ],
      ['11 media URLs', { from: NUMBER, to: TO, media_urls: Array(11).fill('https://example.com/a.jpg') }, bad('media_urls')],
      ['the same number twice', { from: NUMBER, to: NUMBER, body: 'Hi' }, bad('to')],
      [
        "the other account's number as from",
        { from: '<<other_number>>', to: TO, body: 'Hi' },
        unprocessable('number_not_provisioned', 'from'),
      ],
      ['an unprovisioned from', { from: NOWHERE, to: TO, body: 'Hi' }, unprocessable('number_not_provisioned', 'from')],
      [
        'odd Unicode text from an unprovisioned number',
        { from: NOWHERE, to: TO, body: '\u202e😀\ufeff\n\t' },
        unprocessable('number_not_provisioned', 'from'),
      ],
      // One rule for free text (docs/errors.md, "Text"): no control characters, no lone surrogates.
      ['a NUL in the text', { from: NUMBER, to: TO, body: 'a\u0000b' }, bad('body')],
      ['a lone surrogate in the text', { from: NUMBER, to: TO, body: 'a\ud800b' }, bad('body')],
      ['an unreachable destination', { from: NUMBER, to: '+15005550001', body: 'Hi' }, unprocessable('unreachable_destination', 'to')],
      ['a channel field', { from: NUMBER, to: TO, body: 'Hi', channel: 'sms' }, bad('channel')],
    ],
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    valid: { url: 'https://example.com/hooks', events: ['call.started'] },
    types: { url: 'string', events: 'array', 'events[0]': 'string' },
    phones: [],
    cases: [
      ['an empty object', {}, missing('url')],
      ['no events', { url: 'https://example.com/hooks' }, missing('events')],
      ['no url', { events: ['call.started'] }, missing('url')],
      ['the name call.start (from the spec example)', { url: 'https://example.com/hooks', events: ['call.start'] }, bad('events[0]')],
      ['a capitalised event name', { url: 'https://example.com/hooks', events: ['message.received', 'Call.Started'] }, bad('events[1]')],
      ['no event', { url: 'https://example.com/hooks', events: [] }, bad('events')],
      ['8 events', { url: 'https://example.com/hooks', events: Array(8).fill('call.started') }, bad('events')],
      ['event __proto__', { url: 'https://example.com/hooks', events: ['__proto__'] }, bad('events[0]')],
      ['event constructor', { url: 'https://example.com/hooks', events: ['constructor'] }, bad('events[0]')],
      ['an event with a NUL', { url: 'https://example.com/hooks', events: ['call.started\u0000'] }, bad('events[0]')],
      ['an event with a right-to-left mark', { url: 'https://example.com/hooks', events: ['\u200fcall.started'] }, bad('events[0]')],
      ['an emoji event', { url: 'https://example.com/hooks', events: ['😀'] }, bad('events[0]')],
      ['a lone-surrogate event', { url: 'https://example.com/hooks', events: ['\ud800'] }, bad('events[0]')],
      ['an event of 100,000 characters', { url: 'https://example.com/hooks', events: ['e'.repeat(100_000)] }, bad('events[0]')],
      ['an ftp URL', { url: 'ftp://example.com/hooks', events: ['call.started'] }, bad('url')],
      ['a plain-http public URL', { url: 'http://example.com/hooks', events: ['call.started'] }, bad('url')],
      ['a plain-http look-alike of localhost', { url: 'http://localhost.example.com/hooks', events: ['call.started'] }, bad('url')],
      ['the sandbox itself', { url: 'https://api.svc.test/hooks', events: ['call.started'] }, bad('url')],
      ['a URL with credentials', { url: 'https://user:pass@example.com/hooks', events: ['call.started'] }, bad('url')],
      ['a URL with a space', { url: 'https://exa mple.com/hooks', events: ['call.started'] }, bad('url')],
      ['not a URL', { url: 'not a url', events: ['call.started'] }, bad('url')],
      ['an empty URL', { url: '', events: ['call.started'] }, bad('url')],
      ['a javascript: URL', { url: 'javascript:alert(1)', events: ['call.started'] }, bad('url')],
      ['a data: URL', { url: 'data:text/plain,hi', events: ['call.started'] }, bad('url')],
      ['a file: URL', { url: 'file:///etc/passwd', events: ['call.started'] }, bad('url')],
      ['a URL of 2,049 characters', { url: `https://example.com/${'a'.repeat(2029)}`, events: ['call.started'] }, bad('url')],
      ['a URL with a right-to-left mark in the host', { url: 'https://exa\u200fmple.com/hooks', events: ['call.started'] }, bad('url')],
      ['a URL with a lone surrogate in the host', { url: 'https://\ud800.example.com/hooks', events: ['call.started'] }, bad('url')],
      ['a URL with a trailing NUL', { url: 'https://example.com/hooks\u0000', events: ['call.started'] }, bad('url')],
      ['a URL with a leading control character', { url: '\u0001https://example.com/hooks', events: ['call.started'] }, bad('url')],
      ['a secret field', { url: 'https://example.com/hooks', events: ['call.started'], secret: 'whsec_mine' }, bad('secret')],
    ],
  },
];

/** Transfers of calls that cannot be transferred, and writes to resources that are not there. */
const STATE_CASES: BadRequest[] = [
  {
    name: 'POST /v1/calls/<<call>>/transfer: a completed call',
    method: 'POST',
    path: '/v1/calls/<<call>>/transfer',
    body: json({ agent: 'maria' }),
    expect: unprocessable('call_not_active', null),
  },
  {
    name: 'POST /v1/calls/<<busy_call>>/transfer: a busy call',
    method: 'POST',
    path: '/v1/calls/<<busy_call>>/transfer',
    body: json({ extension: '204' }),
    expect: unprocessable('call_not_active', null),
  },
  {
    name: 'POST /v1/calls/<<call>>/transfer: odd Unicode agent to a completed call',
    method: 'POST',
    path: '/v1/calls/<<call>>/transfer',
    body: json({ agent: '\u202eairam😀' }),
    expect: unprocessable('call_not_active', null),
  },
  {
    name: 'POST /v1/calls/<<call>>/transfer: a NUL in the agent',
    method: 'POST',
    path: '/v1/calls/<<call>>/transfer',
    body: json({ agent: 'mar\u0000ia' }),
    expect: bad('agent'),
  },
  {
    name: 'POST /v1/calls/<<call>>/transfer: a lone surrogate in the agent',
    method: 'POST',
    path: '/v1/calls/<<call>>/transfer',
    body: json({ agent: 'mar\udc00ia' }),
    expect: bad('agent'),
  },
  {
    name: 'POST /v1/calls/call_0000000000000000/transfer: an unknown call',
    method: 'POST',
    path: '/v1/calls/call_0000000000000000/transfer',
    body: json({ agent: 'maria' }),
    expect: notFound,
  },
  {
    name: 'PUT /v1/numbers/num_0000000000000000: an unknown number',
    method: 'PUT',
    path: '/v1/numbers/num_0000000000000000',
    body: json({ sms: { enabled: false } }),
    expect: notFound,
  },
  {
    name: 'PUT /v1/numbers/<<number_id>> as the other account',
    method: 'PUT',
    path: '/v1/numbers/<<number_id>>',
    headers: { authorization: OTHER_AUTH },
    body: json({ routing: null }),
    expect: notFound,
  },
];

function fieldFaults(e: Endpoint): BadRequest[] {
  const out: BadRequest[] = [];
  const push = (what: string, body: Body | string, expect: Expected) =>
    out.push({
      name: `${e.method} ${e.path}: ${what}`,
      method: e.method,
      path: e.path,
      body: typeof body === 'string' ? body : json(body),
      expect,
    });
  for (const [field, type] of Object.entries(e.types)) {
    const own = type.split('|');
    for (const [kind, value] of Object.entries(TYPED)) {
      if (own.includes(kind) || (kind === 'float' && own.includes('number'))) continue;
      push(`\`${field}\` is ${kind === 'null' ? 'null' : `a ${kind}`}`, setAt(e.valid, field, value), bad(field));
    }
  }
  for (const [param, make] of e.phones) {
    for (const phone of BAD_PHONES) {
      const shown = phone.length > 30 ? `${phone.slice(0, 12)}… (${phone.length} chars)` : phone;
      push(`\`${param}\` is not E.164: ${JSON.stringify(shown)}`, make(phone), bad(param));
    }
  }
  for (const [what, body, expect] of e.cases) push(what, body, expect);
  return out;
}

/** Every field-level fault of every body endpoint. */
export function fieldCases(): BadRequest[] {
  return [...ENDPOINTS.flatMap(fieldFaults), ...STATE_CASES];
}
