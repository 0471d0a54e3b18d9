import { MAX_BODY_BYTES } from '../../src/core/body.js';
import { fieldCases } from './field-cases.js';
import {
  bad,
  error,
  GOOD_AUTH,
  invalidJson,
  json,
  KEY,
  notFound,
  OTHER_AUTH,
  TO,
  tooLarge,
  unsupportedType,
  type BadRequest,
  type Expected,
  type Transport,
} from './kit.js';

/**
 * A generated corpus of malformed requests over every endpoint (the spec's 16 and a
 * recording's audio), each with the exact answer the sandbox owes it: broken auth, wrong
 * methods, unknown paths and ids, bad list queries, and faults of the body itself here;
 * field-level faults in field-cases.ts.
 */

/** The 16 endpoints of the spec plus a recording's audio, each aimed at a seeded resource; body endpoints carry a body that would succeed. */
export const ENDPOINTS: ReadonlyArray<{ method: string; path: string; body?: string }> = [
  { method: 'GET', path: '/v1/calls' },
  { method: 'POST', path: '/v1/calls', body: json({ to: TO, from: '<<number>>' }) },
  { method: 'GET', path: '/v1/calls/<<call>>' },
  { method: 'POST', path: '/v1/calls/<<live_call>>/transfer', body: json({ agent: 'maria' }) },
  { method: 'GET', path: '/v1/numbers' },
  { method: 'POST', path: '/v1/numbers', body: json({ kind: 'local' }) },
  { method: 'PUT', path: '/v1/numbers/<<number_id>>', body: json({ sms: { enabled: false } }) },
  { method: 'DELETE', path: '/v1/numbers/<<number_id>>' },
  { method: 'GET', path: '/v1/messages' },
  { method: 'POST', path: '/v1/messages', body: json({ from: '<<number>>', to: TO, body: 'Hello' }) },
  { method: 'GET', path: '/v1/recordings' },
  { method: 'GET', path: '/v1/recordings/<<recording>>' },
  { method: 'GET', path: '/v1/recordings/<<recording>>/audio' },
  { method: 'GET', path: '/v1/transcripts/<<transcript>>' },
  { method: 'GET', path: '/v1/webhooks' },
  { method: 'POST', path: '/v1/webhooks', body: json({ url: 'https://example.com/hooks', events: ['call.started'] }) },
  { method: 'DELETE', path: '/v1/webhooks/<<webhook>>' },
];

/** Broken Authorization headers (null: no header at all). */
const AUTH_FAULTS: ReadonlyArray<[string, string | null, string]> = [
  ['no Authorization header', null, 'invalid_api_key'],
  ['an empty Authorization header', '', 'invalid_api_key'],
  ['Basic credentials', 'Basic U1ZDX1RFU1RfYWxpY2U6', 'invalid_api_key'],
  ['the scheme alone', 'Bearer', 'invalid_api_key'],
  ['another scheme', `Token ${KEY}`, 'invalid_api_key'],
  ['a space inside the key', 'Bearer SVC_TEST_ali ce', 'invalid_api_key'],
  ['two keys', `Bearer ${KEY}, ${OTHER_AUTH}`, 'invalid_api_key'],
  ['the key and a trailing word', `Bearer  ${KEY}  extra`, 'invalid_api_key'],
  ['a quoted key', `Bearer "${KEY}"`, 'invalid_api_key'],
  ['a lowercase scheme with a lowercase (invalid) key', 'bearer svc_test_alice', 'invalid_api_key'],
  ['an uppercase scheme with a punctuated key', 'BEARER SVC_TEST_al!ce', 'invalid_api_key'],
  ['the prefix without a suffix', 'Bearer SVC_TEST_', 'invalid_api_key'],
  ['a live key', 'Bearer SVC_LIVE_alice', 'live_key_not_allowed'],
  ['a live key with a long suffix', `Bearer SVC_LIVE_${'x'.repeat(300)}`, 'live_key_not_allowed'],
  ['a key with a Latin-1 letter', 'Bearer SVC_TEST_caf\u00e9', 'invalid_api_key'],
  ['a key of UTF-8 bytes read as Latin-1 (an emoji)', `Bearer SVC_TEST_${Buffer.from('😀').toString('latin1')}`, 'invalid_api_key'],
  ['an unconfigured key of 8,000 characters', `Bearer SVC_TEST_${'a'.repeat(8000)}`, 'invalid_api_key'],
  ['a very long key with a bad character', `Bearer SVC_TEST_${'b'.repeat(4000)}!`, 'invalid_api_key'],
  ['an unconfigured key', 'Bearer SVC_TEST_mallory', 'invalid_api_key'],
];

function authFaults(): BadRequest[] {
  return ENDPOINTS.flatMap(({ method, path, body }) =>
    AUTH_FAULTS.map(
      ([what, header, code]): BadRequest => ({
        name: `${method} ${path}: ${what}`,
        method,
        path,
        headers: { authorization: header },
        ...(body ? { body } : {}),
        expect: error(401, code, null),
      }),
    ),
  );
}

/** Every path of the table with the methods it allows. */
const PATHS: ReadonlyArray<[string, string[]]> = [
  ['/v1/calls', ['GET', 'POST']],
  ['/v1/calls/<<call>>', ['GET']],
  ['/v1/calls/<<call>>/transfer', ['POST']],
  ['/v1/numbers', ['GET', 'POST']],
  ['/v1/numbers/<<number_id>>', ['PUT', 'DELETE']],
  ['/v1/messages', ['GET', 'POST']],
  ['/v1/recordings', ['GET']],
  ['/v1/recordings/<<recording>>', ['GET']],
  ['/v1/recordings/<<recording>>/audio', ['GET']],
  ['/v1/transcripts/<<transcript>>', ['GET']],
  ['/v1/webhooks', ['GET', 'POST']],
  ['/v1/webhooks/<<webhook>>', ['DELETE']],
];

/** Every path answers HEAD beside GET, and OPTIONS (a CORS preflight): `Allow` lists them too. */
function methodFaults(): BadRequest[] {
  return PATHS.flatMap(([path, allowed]) =>
    ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']
      .filter((m) => !allowed.includes(m))
      .map(
        (method): BadRequest => ({
          name: `${method} ${path}: method not allowed`,
          method,
          path,
          ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { body: '{}' } : {}),
          expect: error(405, 'method_not_allowed', null, {
            allow: [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '),
          }),
        }),
      ),
  );
}

const UNKNOWN_PATHS = [
  '/',
  '/calls',
  '/v1',
  '/v1/',
  '/v2/calls',
  '/v0/calls',
  '/V1/calls',
  '/v1.1/calls',
  '/v1/call',
  '/v1/Calls',
  '/v1//calls',
  '/v1/calls/<<call>>/transfer/extra',
  '/v1/calls/<<call>>/recording',
  '/v1/messages/<<message>>',
  '/v1/numbers/<<number_id>>/release',
  '/v1/webhooks/<<webhook>>/test',
  '/v1/transcripts',
  '/v1/recordings/<<recording>>/audio/x',
  '/v1/conversations/<<conversation>>',
  '/v1/calls%2F<<call>>',
  `/v1/${'x'.repeat(12_000)}`,
  '/v1/%F0%9F%98%80',
  '/v1/calls%00',
  '/graphql',
  '/v1/graphql',
];

/**
 * A request line over Node's 16 KiB header limit never reaches the sandbox over `node:http`:
 * @mswjs/interceptors 0.41 ignores its parser's HPE_HEADER_OVERFLOW and the request hangs
 * (as under msw or nock; see the nock PR #3005). So the longest path goes through fetch only.
 */
const LONGEST_PATH = `/v1/${'x'.repeat(20_000)}`;

function pathFaults(): BadRequest[] {
  return [...UNKNOWN_PATHS, LONGEST_PATH].flatMap((path) =>
    ['GET', 'POST'].map(
      (method): BadRequest => ({
        name: `${method} ${path.length > 80 ? `${path.slice(0, 20)}… (${path.length} chars)` : path}: unknown path or version`,
        method,
        path,
        ...(method === 'POST' ? { body: '{}' } : {}),
        expect: notFound,
        ...(path === LONGEST_PATH ? { via: ['fetch', 'handle'] as const } : {}),
      }),
    ),
  );
}

/** Ids that are absent, foreign, odd or of another type, on every GET/PUT/DELETE by id. */
function idFaults(): BadRequest[] {
  const ids: Array<[string, string]> = [
    ['an unknown id', 'call_0000000000000000'],
    ['an emoji', '%F0%9F%98%80'],
    ['a NUL', '%00'],
    ['an encoded lone surrogate (bad UTF-8)', '%ED%A0%80'],
    ['a right-to-left mark before a real id', '%E2%80%8F<<call>>'],
    ['a real id with a trailing space', '<<call>>%20'],
    ['a malformed escape', '%E0%A4%A'],
    ['a 10,000-character id', 'x'.repeat(10_000)],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
  ];
  const routes: Array<[string, string, string?]> = [
    ['GET', '/v1/calls/{}'],
    ['POST', '/v1/calls/{}/transfer', json({ agent: 'maria' })],
    ['PUT', '/v1/numbers/{}', json({ sms: { enabled: false } })],
    ['DELETE', '/v1/numbers/{}'],
    ['GET', '/v1/recordings/{}'],
    ['GET', '/v1/recordings/{}/audio'],
    ['GET', '/v1/transcripts/{}'],
    ['DELETE', '/v1/webhooks/{}'],
  ];
  const out: BadRequest[] = routes.flatMap(([method, pattern, body]) =>
    ids.map(
      ([what, id]): BadRequest => ({
        name: `${method} ${pattern}: ${what}`,
        method,
        path: pattern.replace('{}', id),
        ...(body ? { body } : {}),
        expect: notFound,
      }),
    ),
  );
  // Real resources of the other account, and real ids of the wrong type.
  const foreign: Array<[string, string, string, string?]> = [
    ['GET', '/v1/calls/<<call>>', OTHER_AUTH],
    ['GET', '/v1/calls/<<recording>>', GOOD_AUTH],
    ['GET', '/v1/calls/camp_0000000000000000', GOOD_AUTH],
    ['POST', '/v1/calls/<<live_call>>/transfer', OTHER_AUTH, json({ agent: 'maria' })],
    ['PUT', '/v1/numbers/<<other_number_id>>', GOOD_AUTH, json({ sms: { enabled: false } })],
    ['PUT', '/v1/numbers/<<number_id>>', OTHER_AUTH, json({ caller_id: null })],
    ['DELETE', '/v1/numbers/<<other_number_id>>', GOOD_AUTH],
    ['DELETE', '/v1/numbers/<<number_id>>', OTHER_AUTH],
    ['DELETE', '/v1/numbers/<<call>>', GOOD_AUTH],
    ['GET', '/v1/recordings/<<recording>>', OTHER_AUTH],
    ['GET', '/v1/recordings/<<call>>', GOOD_AUTH],
    ['GET', '/v1/recordings/<<recording>>/audio', OTHER_AUTH],
    ['GET', '/v1/transcripts/<<transcript>>', OTHER_AUTH],
    ['GET', '/v1/transcripts/<<call>>', OTHER_AUTH],
    ['GET', '/v1/transcripts/<<recording>>', OTHER_AUTH],
    ['GET', '/v1/transcripts/<<busy_call>>', GOOD_AUTH],
    ['GET', '/v1/transcripts/<<message>>', GOOD_AUTH],
    ['GET', '/v1/transcripts/rec_0000000000000000', GOOD_AUTH],
    ['DELETE', '/v1/webhooks/<<webhook>>', OTHER_AUTH],
    ['DELETE', '/v1/webhooks/<<other_webhook>>', GOOD_AUTH],
  ];
  for (const [method, path, auth, body] of foreign) {
    out.push({
      name: `${method} ${path} as ${auth === OTHER_AUTH ? 'the other account' : 'the owner'}: not found`,
      method,
      path,
      headers: { authorization: auth },
      ...(body ? { body } : {}),
      expect: notFound,
    });
  }
  // A transcript streamed as server-sent events, resumed from a bad Last-Event-ID.
  for (const last of ['abc', '-1', '1.5', '1e3', '9999999999', '0x1', 'caf\u00e9']) {
    out.push({
      name: `GET /v1/transcripts/<<transcript>> as an event stream: Last-Event-ID ${JSON.stringify(last)}`,
      method: 'GET',
      path: '/v1/transcripts/<<transcript>>',
      headers: { accept: 'text/event-stream', 'last-event-id': last },
      expect: bad('Last-Event-ID'),
    });
  }
  return out;
}

/** Every list, with the filters of its own that the corpus breaks. */
const LISTS: ReadonlyArray<{ path: string; cursor: string; filters: Array<[string, string]> }> = [
  {
    path: '/v1/calls',
    cursor: '<<cursor_messages>>',
    filters: [
      ['status', 'done'],
      ['status', 'Ringing'],
      ['direction', 'out'],
      ['campaign_id', ''],
      ['campaign_id', 'c'.repeat(65)],
    ],
  },
  {
    path: '/v1/numbers',
    cursor: '<<cursor_calls>>',
    filters: [
      ['kind', 'tollfree'],
      ['country', 'USA'],
      ['country', '🇺🇸'],
      ['area_code', 'abc'],
      ['area_code', '123456'],
      ['contains', ''],
      ['contains', '5'.repeat(16)],
      ['contains', '(.*)'],
      ['provisioned', 'yes'],
      ['provisioned', 'TRUE'],
      ['created_after', '2026-01-01T00:00:00Z'],
      ['created_before', '2026-01-01'],
    ],
  },
  {
    path: '/v1/numbers?provisioned=true',
    cursor: '<<cursor_available>>',
    filters: [
      ['kind', 'LOCAL'],
      ['country', 'U'],
      ['area_code', '4 15'],
      ['contains', '*+'],
      ['provisioned', '1'],
    ],
  },
  {
    path: '/v1/messages',
    cursor: '<<cursor_calls>>',
    filters: [
      ['direction', 'sideways'],
      ['channel', 'fax'],
      ['status', 'sent2'],
      ['conversation_id', ''],
      ['conversation_id', 'v'.repeat(65)],
    ],
  },
  {
    path: '/v1/recordings',
    cursor: '<<cursor_messages>>',
    filters: [
      ['agent', ''],
      ['agent', 'a'.repeat(65)],
      ['call_id', ''],
      ['call_id', 'c'.repeat(65)],
      ['status', 'done'],
    ],
  },
  {
    path: '/v1/webhooks',
    cursor: '<<cursor_calls>>',
    filters: [
      ['events', 'call.started'],
      ['url', 'https://example.com'],
    ],
  },
];

const BAD_LIMITS = [
  '0',
  '-1',
  '201',
  '1000000',
  '1.5',
  'ten',
  '',
  '1e2',
  '0x10',
  ' 5',
  '5 ',
  '99999999999999999999',
  '½',
  '\uff15',
  '5abc',
];
const BAD_CURSORS = [
  '',
  'abc',
  'abc.def',
  '1.AAAAAAAAAAAAAAAA',
  'zzzzzzzzzzzz.AAAAAAAAAAAAAAAA',
  '.',
  '..',
  '%',
  'x'.repeat(201),
  '😀',
  '\u0000',
  '<<cursor_calls_tampered>>',
  '<<other_cursor_available>>',
  '\ud800',
];
const BAD_DATES = [
  'yesterday',
  '2026-02-30',
  '2026-02-29',
  '2026-04-31',
  '2026-13-01',
  '2026-01-32',
  '2026-01-01T25:00:00Z',
  '2026-01-01T00:00:60Z',
  '1767225600000',
  '',
  '2026-1-1',
  '2026-01-01T00:00:00+99:99',
  '2026-01-01 00:00:00',
  '2026-01-01T00:00:00ZZ',
  '\uff12\uff10\uff12\uff16-01-01',
];
const UNKNOWN_PARAMS = [
  'colour',
  'limt',
  'Limit',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'cursor[]',
  'p'.repeat(1000),
  '😀',
  '\u0000',
];

function listFaults(): BadRequest[] {
  const out: BadRequest[] = [];
  for (const list of LISTS) {
    const [base, fixed] = list.path.split('?') as [string, string | undefined];
    const at = (pairs: Array<[string, string]>, what: string, expect: Expected) => {
      const query = new URLSearchParams([...(fixed ? new URLSearchParams(fixed) : []), ...pairs])
        .toString()
        .replace(/%3C%3C(\w+)%3E%3E/g, '<<$1>>');
      out.push({ name: `GET ${list.path}: ${what}`, method: 'GET', path: `${base}?${query}`, expect });
    };
    for (const limit of BAD_LIMITS) at([['limit', limit]], `limit ${JSON.stringify(limit)}`, bad('limit'));
    for (const cursor of [...BAD_CURSORS, list.cursor])
      at([['cursor', cursor]], `cursor ${JSON.stringify(cursor.slice(0, 40))}`, bad('cursor'));
    for (const param of ['created_after', 'created_before']) {
      for (const date of BAD_DATES) at([[param, date]], `${param} ${JSON.stringify(date)}`, bad(param));
    }
    for (const name of UNKNOWN_PARAMS) at([[name, '1']], `unknown parameter ${JSON.stringify(name.slice(0, 40))}`, bad(name));
    at(
      [
        ['limit', '5'],
        ['limit', '6'],
      ],
      'limit given twice',
      bad('limit'),
    );
    at(
      [
        ['created_after', '2026-01-01'],
        ['created_after', '2026-01-02'],
      ],
      'created_after given twice',
      bad('created_after'),
    );
    for (const [name, value] of list.filters) at([[name, value]], `filter ${name}=${JSON.stringify(value.slice(0, 40))}`, bad(name));
  }
  return out;
}

/** A JSON object of exactly `bytes` UTF-8 bytes with one unknown field, `colour`, whose text is `fill` repeated. */
export function sizedBody(bytes: number, fill = 'x'): string {
  const frame = '{"colour":""}';
  const unit = Buffer.byteLength(fill);
  const room = bytes - frame.length;
  const text = fill.repeat(Math.floor(room / unit)) + 'x'.repeat(room % unit);
  return `{"colour":"${text}"}`;
}

/** Faults of the body itself, the same for every endpoint that takes one. */
function bodyFaults(method: string, path: string, valid: string): BadRequest[] {
  type Fault = [
    what: string,
    body: BadRequest['body'],
    expect: Expected,
    headers?: Record<string, string | null>,
    via?: readonly Transport[],
  ];
  const cases: Fault[] = [
    ['an empty body', '', invalidJson],
    ['only whitespace', ' \n\t ', invalidJson],
    ['an open brace', '{', invalidJson],
    ['a key without a value', '{"to":', invalidJson],
    ['single quotes', "{'to': '+14155550123'}", invalidJson],
    ['a trailing comma', '{"to": "+14155550123",}', invalidJson],
    ['unquoted keys', '{to: 1}', invalidJson],
    ['NaN', 'NaN', invalidJson],
    ['undefined', 'undefined', invalidJson],
    ['two objects', '{} {}', invalidJson],
    ['a comment', '// hi\n{}', invalidJson],
    ['a raw control character in a string', '{"to": "\u0001"}', invalidJson],
    ['a bad escape', '{"to": "\\x41"}', invalidJson],
    ['a short \\u escape', '{"to": "\\u12"}', invalidJson],
    ['a number with a leading zero', '{"to": 0123}', invalidJson],
    ['truncated after one byte', valid.slice(0, 1), invalidJson],
    ['truncated in the middle', valid.slice(0, Math.floor(valid.length / 2)), invalidJson],
    ['truncated before the last brace', valid.slice(0, -1), invalidJson],
    ['UTF-16LE text', new Uint8Array(Buffer.from(valid, 'utf16le')), invalidJson],
    ['a 0xFF byte (invalid UTF-8)', new Uint8Array([0x7b, 0xff, 0x7d]), invalidJson],
    ['an overlong UTF-8 "/"', Buffer.concat([Buffer.from('{"to":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), invalidJson],
    [
      'an encoded lone surrogate (CESU-8)',
      Buffer.concat([Buffer.from('{"to":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
      invalidJson,
    ],
    ['a truncated UTF-8 sequence', Buffer.concat([Buffer.from('{"to":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]), invalidJson],
    ['10,000 unclosed [', '['.repeat(10_000), invalidJson],
    ['10,000 unclosed {"a":', '{"a":'.repeat(10_000), invalidJson],
    ['null', 'null', bad(null)],
    ['a number', '42', bad(null)],
    ['a string', '"to"', bad(null)],
    ['true', 'true', bad(null)],
    ['an array', `[${valid}]`, bad(null)],
    // Refused where the 64-level limit of JSON nesting was passed (docs/errors.md, "Limits"), before any schema walks it.
    ['10,000 nested arrays', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, bad('[0]'.repeat(64))],
    ['10,000 nested objects', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, bad(Array(64).fill('a').join('.'))],
    ['a __proto__ key', '{"__proto__": {"admin": true}}', bad('__proto__')],
    ['a constructor key', '{"constructor": {"prototype": {"admin": true}}}', bad('constructor')],
    ['a prototype key', '{"prototype": {"admin": true}}', bad('prototype')],
    ['an unknown field', '{"colour": "red"}', bad('colour')],
    ['an unknown field of 100,000 characters', `{"${'k'.repeat(100_000)}": 1}`, bad('k'.repeat(100_000))],
    ['Content-Type text/plain', valid, unsupportedType, { 'content-type': 'text/plain' }],
    ['Content-Type text/plain;charset=UTF-8', valid, unsupportedType, { 'content-type': 'text/plain;charset=UTF-8' }],
    [
      'a form-urlencoded body',
      'to=%2B14155550123&from=%2B14155550100',
      unsupportedType,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    ['a multipart form', () => formData(), unsupportedType, { 'content-type': null }, ['fetch', 'handle']],
    ['an XML body', '<call><to>+14155550123</to></call>', unsupportedType, { 'content-type': 'application/xml' }],
    ['JSON labelled text/xml', valid, unsupportedType, { 'content-type': 'text/xml' }],
    ['JSON labelled text/html', valid, unsupportedType, { 'content-type': 'text/html; charset=utf-8' }],
    ['JSON labelled application/jsonx', valid, unsupportedType, { 'content-type': 'application/jsonx' }],
    ['JSON labelled application/javascript', valid, unsupportedType, { 'content-type': 'application/javascript' }],
    ['JSON labelled "json"', valid, unsupportedType, { 'content-type': 'json' }],
    ['JSON labelled with an empty Content-Type', valid, unsupportedType, { 'content-type': '' }, ['fetch', 'http', 'handle']],
    [
      'no Content-Type and invalid JSON',
      new Uint8Array(Buffer.from('{"to":')),
      invalidJson,
      { 'content-type': null },
      ['fetch', 'http', 'handle'],
    ],
    [
      'no Content-Type and an unknown field (read as JSON)',
      new Uint8Array(Buffer.from('{"colour":1}')),
      bad('colour'),
      { 'content-type': null },
      ['fetch', 'http', 'handle'],
    ],
    ['a 3 MB body', sizedBody(3_000_000), tooLarge],
    ['an 8 MB body', sizedBody(8_000_000), tooLarge],
    ['a 3 MB text/plain body (size is checked first)', sizedBody(3_000_000), tooLarge, { 'content-type': 'text/plain' }],
    ['8 MB of invalid UTF-8', new Uint8Array(8_000_000).fill(0xff), tooLarge],
    ['a body of exactly the limit (parsed)', sizedBody(MAX_BODY_BYTES), bad('colour')],
    ['a body of exactly the limit in 2-byte characters (parsed)', sizedBody(MAX_BODY_BYTES, '\u00e9'), bad('colour')],
    ['a body one byte over the limit', sizedBody(MAX_BODY_BYTES + 1), tooLarge],
    ['a body over the limit in bytes though not in characters', sizedBody(MAX_BODY_BYTES + 2, '\u00e9'), tooLarge],
    ['1 MiB of whitespace around nothing', ' '.repeat(MAX_BODY_BYTES), invalidJson],
  ];
  return cases.map(([what, body, expect, headers, via]) => ({
    name: `${method} ${path}: ${what}`,
    method,
    path,
    body,
    expect,
    ...(headers ? { headers } : {}),
    ...(via ? { via } : {}),
  }));
}

function formData(): FormData {
  const form = new FormData();
  form.set('to', TO);
  form.set('from', '+14155550100');
  return form;
}

/**
 * The whole corpus, in a fixed order. Every request must be answered 4xx with a JSON
 * error, change nothing, and never reach a 2xx or a 5xx.
 */
export function buildCorpus(): BadRequest[] {
  const bodies = ENDPOINTS.filter((e) => e.body !== undefined).flatMap((e) => bodyFaults(e.method, e.path, e.body!));
  const corpus = [...authFaults(), ...methodFaults(), ...pathFaults(), ...idFaults(), ...listFaults(), ...bodies, ...fieldCases()];
  const names = new Set<string>();
  const twice = corpus.filter((r) => names.size === names.add(r.name).size).map((r) => r.name);
  if (twice.length > 0) throw new Error(`corpus: names used twice: ${twice.join('; ')}`);
  return corpus;
}
