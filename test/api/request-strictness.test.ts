import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

/**
 * The request schemas of the document are exactly as strict as the server.
 * Each body below is judged twice: by the document's JSON Schema (ajv, draft 2020-12), and by
 * the sandbox (400 `invalid_parameter`/`missing_parameter`, or not). The verdicts must agree,
 * except for the rules JSON Schema cannot say, which are named below (and in the operation's
 * description).
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const KEY = 'SVC_TEST_strict';

/** Refusals JSON Schema cannot express: they compare two fields' values, or look a template up. */
const BEYOND_SCHEMA = [
  /same number/, // two fields' values compared
  /is not a template/,
  /needs the variable/,
  /has no variable/,
  /renders to/, // the template catalogue
  /cannot be .* itself/, // a forward to the number being routed
  /well-formed Unicode/, // a lone surrogate: no JSON Schema pattern can see one
  /link-local or cloud-metadata|points at the sandbox itself|must not carry credentials/, // a receiver URL's host
];

type Case = [what: string, body: unknown];
const CASES: Record<string, { method: string; path: string; cases: Case[] }> = {
  placeCall: {
    method: 'POST',
    path: '/v1/calls',
    cases: [
      ['a call', { to: '+14155550123', from: '+14155550100' }],
      ['a call with the AI receptionist', { to: '+14155550123', from: '+14155550100', ai_receptionist: true }],
      ['nothing', {}],
      ['no from', { to: '+14155550123' }],
      ['no to', { from: '+14155550100' }],
      ['only ai_receptionist', { ai_receptionist: true }],
      ['a campaign', { campaign: { to: ['+14155550123'], from: '+14155550100' } }],
      ['a campaign and a to', { to: '+14155550123', campaign: { to: ['+14155550123'], from: '+14155550100' } }],
      ['a campaign and ai_receptionist outside it', { ai_receptionist: true, campaign: { to: ['+14155550123'], from: '+14155550100' } }],
      ['an empty campaign', { campaign: { to: [], from: '+14155550100' } }],
      ['a campaign without from', { campaign: { to: ['+14155550123'] } }],
      ['a bad number', { to: '4155550123', from: '+14155550100' }],
      ['an unknown field', { to: '+14155550123', from: '+14155550100', record: true }],
      ['a string for a boolean', { to: '+14155550123', from: '+14155550100', ai_receptionist: 'yes' }],
      ['not an object', [1]],
    ],
  },
  transferCall: {
    method: 'POST',
    path: '/v1/calls/{call}/transfer',
    cases: [
      ['an agent', { agent: 'maria' }],
      ['an extension', { extension: '204' }],
      ['neither', {}],
      ['both', { agent: 'maria', extension: '204' }],
      ['an extension of letters', { extension: 'front' }],
      ['an empty agent', { agent: '' }],
      ['an agent with a line break', { agent: 'ma\nria' }],
    ],
  },
  provisionNumber: {
    method: 'POST',
    path: '/v1/numbers',
    cases: [
      ['by criteria', { kind: 'local', area_code: '415' }],
      ['by country', { country: 'GB' }],
      // The criteria forms go by the first criterion given: each later one alone, and with the rest.
      ['by area code and digits', { area_code: '415', contains: '55' }],
      ['by digits alone', { contains: '2233' }],
      ['by every criterion', { kind: 'local', country: 'US', area_code: '415', contains: '5', sms: { enabled: true } }],
      ['a searched number with configuration', { number: '+14155550100', caller_id: { name: 'Acme' } }],
      ['a number and a later criterion', { number: '+14155550100', contains: '5' }],
      ['nothing', {}],
      ['only configuration', { sms: { enabled: false } }],
      ['a number and criteria', { number: '+14155550100', kind: 'local' }],
      ['agent routing without a target', { kind: 'local', routing: { type: 'agent' } }],
      ['extension routing of letters', { kind: 'local', routing: { type: 'extension', target: 'front' } }],
      ['forward routing to a non-number', { kind: 'local', routing: { type: 'forward', target: 'front' } }],
      ['forward routing', { kind: 'local', routing: { type: 'forward', target: '+14155550123' } }],
      ['AI routing without a target', { kind: 'local', routing: { type: 'ai_receptionist' } }],
      ['null routing', { kind: 'local', routing: null }],
      ['a long caller ID', { kind: 'local', caller_id: { name: 'A name far too long' } }],
      ['an unknown kind', { kind: 'mobile' }],
    ],
  },
  updateNumber: {
    method: 'PUT',
    path: '/v1/numbers/{number}',
    cases: [
      ['sms', { sms: { enabled: false } }],
      ['nothing', {}],
      ['caller ID and sms', { caller_id: { name: 'Acme' }, sms: { enabled: true } }],
      ['all three', { routing: { type: 'ai_receptionist' }, caller_id: null, sms: { enabled: true } }],
      ['an unknown aspect', { voicemail: true }],
      ['agent routing', { routing: { type: 'agent', target: 'maria' } }],
      ['agent routing with a blank target', { routing: { type: 'agent', target: '  ' } }],
      ['extension routing without a target', { routing: { type: 'extension' } }],
      ['null caller ID', { caller_id: null }],
      ['null sms', { sms: null }],
    ],
  },
  sendMessage: {
    method: 'POST',
    path: '/v1/messages',
    cases: [
      ['a text', { from: '{from}', to: '+14155550123', body: 'hi' }],
      ['media only', { from: '{from}', to: '+14155550123', media_urls: ['https://example.com/a.png'] }],
      ['a text with media', { from: '{from}', to: '+14155550123', body: 'hi', media_urls: ['https://example.com/a.png'] }],
      ['a text with an empty media list', { from: '{from}', to: '+14155550123', body: 'hi', media_urls: [] }],
      [
        'a template with media',
        {
          from: '{from}',
          to: '+14155550123',
          template: { id: 'verification_code', variables: { code: '1' } },
          media_urls: ['https://example.com/a.png'],
        },
      ],
      ['a template', { from: '{from}', to: '+14155550123', template: { id: 'verification_code', variables: { code: '123' } } }],
      ['nothing to send', { from: '{from}', to: '+14155550123' }],
      ['no media in an empty list', { from: '{from}', to: '+14155550123', media_urls: [] }],
      [
        'body and template',
        { from: '{from}', to: '+14155550123', body: 'hi', template: { id: 'verification_code', variables: { code: '1' } } },
      ],
      ['no to', { from: '{from}', body: 'hi' }],
      ['http media', { from: '{from}', to: '+14155550123', media_urls: ['http://example.com/a.png'] }],
      [
        'eleven attachments',
        { from: '{from}', to: '+14155550123', media_urls: Array.from({ length: 11 }, (_, i) => `https://e.com/${i}.png`) },
      ],
      ['a NUL in the body', { from: '{from}', to: '+14155550123', body: 'a\u0000b' }],
      ['a number as a variable', { from: '{from}', to: '+14155550123', template: { id: 'verification_code', variables: { code: 123 } } }],
      ['to itself', { from: '{from}', to: '{from}', body: 'hi' }],
      ['an unknown template', { from: '{from}', to: '+14155550123', template: { id: 'nope' } }],
    ],
  },
  createWebhook: {
    method: 'POST',
    path: '/v1/webhooks',
    cases: [
      ['a subscription', { url: 'https://example.com/hooks', events: ['call.completed'] }],
      ['no events', { url: 'https://example.com/hooks', events: [] }],
      ['an unknown event', { url: 'https://example.com/hooks', events: ['call.start'] }],
      ['no url', { events: ['call.completed'] }],
      ['http to another host', { url: 'http://example.com/hooks', events: ['call.completed'] }],
      ['http to loopback', { url: 'http://127.0.0.1:9/hooks', events: ['call.completed'] }],
      ['HTTPS in capitals', { url: 'HTTPS://example.com/hooks', events: ['call.completed'] }],
      ['a space in the URL', { url: 'https://example.com/ho oks', events: ['call.completed'] }],
      ['the metadata address', { url: 'http://169.254.169.254/latest', events: ['call.completed'] }],
    ],
  },
};

async function setUp(): Promise<{ sandbox: Sandbox; call: string; number: { id: string; number: string } }> {
  const sandbox = createSandbox({ seed: 21 });
  const send = (method: string, path: string, body?: unknown) =>
    sandbox
      .fetch(path, {
        method,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      .then((r) => r.json());
  const call = (await send('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' })).id;
  const number = await send('POST', '/v1/numbers', { kind: 'local', area_code: '415' });
  await sandbox.advance('6s'); // answered: transfers are possible
  return { sandbox, call, number };
}

describe('request schemas are exactly as strict as the server', () => {
  it('the document and the sandbox give the same verdict on every body', async () => {
    const { sandbox, call, number } = await setUp();
    const doc = sandbox.openapi() as any;
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const disagreements: string[] = [];
    let judged = 0;
    for (const [operationId, { method, path, cases }] of Object.entries(CASES)) {
      const template = path.replace('{call}', '{id}').replace('{number}', '{id}');
      const op = doc.paths[template][method.toLowerCase()];
      expect(op.operationId).toBe(operationId);
      const validate = ajv.compile(op.requestBody.content['application/json'].schema);
      for (const [what, raw] of cases) {
        const body = JSON.parse(JSON.stringify(raw).replaceAll('{from}', number.number));
        const url = path.replace('{call}', call).replace('{number}', number.id);
        const res = await sandbox.fetch(url, {
          method,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = res.status === 204 ? null : await res.json();
        const refusedByServer = res.status === 400 && ['invalid_parameter', 'missing_parameter'].includes(answer?.error?.code);
        const acceptedByDocument = validate(body);
        judged++;
        if (refusedByServer === !acceptedByDocument) continue;
        if (refusedByServer && BEYOND_SCHEMA.some((rule) => rule.test(answer.error.message))) continue;
        disagreements.push(
          `${operationId}, ${what}: the server ${refusedByServer ? `refused it (${answer.error.message})` : `answered ${res.status}`}, the document ${acceptedByDocument ? 'accepts' : `refuses it (${ajv.errorsText(validate.errors)})`}`,
        );
      }
    }
    expect(disagreements).toEqual([]);
    expect(judged).toBeGreaterThan(50);
    sandbox.close();
  });
});
