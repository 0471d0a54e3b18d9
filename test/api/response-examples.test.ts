import { Ajv } from 'ajv';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startServer, type SandboxServer } from '../../src/index.js';

/**
 * Every success answer of both documents has an example of the whole body:
 * example-driven tools (Prism's mock, Portman, dredd) and readers of the document see an answer
 * the sandbox would give. Each example is valid against its response's schema, in the 3.1
 * documents and in the 3.0 rendering alike, and has the top-level fields of a real answer of the
 * operation. The examples are built from one per resource (src/state/resources.ts) by
 * src/api/openapi.ts `exampleOf`; a schema's own `examples` must fit that schema too, so an
 * example copied onto a wider schema (a console item, a call with its timeline) is caught here.
 */
type Json = Record<string, any>;
type Doc = { paths: Record<string, Record<string, Json>> };
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

/** Bodies no example can show: audio bytes, and the console's whole HTML page. */
const WITHOUT_EXAMPLE = new Set(['getRecordingAudio audio/wav', 'consoleRecordingAudio audio/wav', 'getConsole text/html']);

let server: SandboxServer;
let served: Doc;
let served30: Doc;
const library = createSandbox().openapi() as Doc;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 3 });
  served = (await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as Doc;
  served30 = (await (await fetch(`${server.url}/__sandbox/openapi-3.0.json`)).json()) as Doc;
});
afterAll(async () => {
  await server.close();
});

/** Every success answer's media types: `operationId media-type`, with its schema and example. */
function successMedia(doc: Doc): Array<{ where: string; schema: Json; media: Json; type: string }> {
  return Object.values(doc.paths).flatMap((operations) =>
    Object.values(operations).flatMap((op) =>
      Object.entries(op.responses as Record<string, Json>)
        .filter(([status, response]) => status.startsWith('2') && response.content)
        .flatMap(([, response]) =>
          Object.entries(response.content as Record<string, Json>).map(([type, media]) => ({
            where: `${op.operationId} ${type}`,
            schema: media.schema,
            media,
            type,
          })),
        ),
    ),
  );
}

/** A validator per schema, for the 3.1 dialect (JSON Schema 2020-12) or 3.0's (draft-07 with `nullable`). */
function validators(dialect: '3.1' | '3.0') {
  const ajv =
    dialect === '3.1' ? new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  return (schema: Json, value: unknown): string | null => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = ajv.compile(schema)));
    return validate(value) ? null : ajv.errorsText(validate.errors, { dataVar: 'example' });
  };
}

/** Every schema below a `schema` key of the paths that carries its own examples, with where it is. */
function schemasWithExamples(doc: Doc): Array<{ where: string; schema: Json; examples: unknown[] }> {
  const out: Array<{ where: string; schema: Json; examples: unknown[] }> = [];
  const inSchema = (node: unknown, at: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Json;
    const examples = 'examples' in schema ? schema.examples : 'example' in schema ? [schema.example] : [];
    if (examples.length > 0) out.push({ where: at, schema, examples });
    for (const key of ['items', 'not', 'additionalProperties']) if (typeof schema[key] === 'object') inSchema(schema[key], `${at}/${key}`);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      schema[key]?.forEach((sub: unknown, i: number) => {
        inSchema(sub, `${at}/${key}/${i}`);
      });
    for (const [name, sub] of Object.entries((schema.properties ?? {}) as Json)) inSchema(sub, `${at}/properties/${name}`);
  };
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) for (const [i, n] of node.entries()) walk(n, `${at}/${i}`);
    else if (typeof node === 'object' && node !== null)
      for (const [key, value] of Object.entries(node)) {
        if (key === 'schema') inSchema(value, `${at}/schema`);
        else if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
      }
  };
  walk(doc.paths, '#/paths');
  return out;
}

describe('the response examples', () => {
  it('every success body of both documents (and the 3.0 rendering) has a whole example, but audio and the console page', () => {
    for (const [name, doc] of [
      ['library', library],
      ['served', served],
      ['served 3.0', served30],
    ] as const) {
      const missing = successMedia(doc)
        .filter(({ where, media }) => !('example' in media) && !WITHOUT_EXAMPLE.has(where))
        .map(({ where }) => where);
      expect(missing, `${name}: success bodies without an example`).toEqual([]);
      const exempt = successMedia(doc).filter(({ where }) => WITHOUT_EXAMPLE.has(where));
      for (const { where, media } of exempt) expect(media, `${name} ${where}`).not.toHaveProperty('example');
    }
    // The served document holds the library's operations and the control API's.
    expect(successMedia(library).filter(({ media }) => 'example' in media)).toHaveLength(15);
    expect(successMedia(served).filter(({ media }) => 'example' in media)).toHaveLength(57);
  });

  it('each JSON example is valid against its schema: 2020-12 in the 3.1 documents, draft-07 with nullable in the 3.0 rendering', () => {
    for (const [name, doc, dialect] of [
      ['library', library, '3.1'],
      ['served', served, '3.1'],
      ['served 3.0', served30, '3.0'],
    ] as const) {
      const check = validators(dialect);
      const wrong = successMedia(doc)
        .filter(({ type, media }) => type === 'application/json' && 'example' in media)
        .map(({ where, schema, media }) => [where, check(schema, media.example)] as const)
        .filter(([, problem]) => problem !== null);
      expect(wrong, `${name}: examples their schema refuses`).toEqual([]);
    }
  });

  it("each schema's own examples fit that schema, where the examples are built from", () => {
    for (const [name, doc, dialect] of [
      ['library', library, '3.1'],
      ['served', served, '3.1'],
      ['served 3.0', served30, '3.0'],
    ] as const) {
      const check = validators(dialect);
      const found = schemasWithExamples(doc);
      expect(found.length, name).toBeGreaterThan(100);
      const wrong = found.flatMap(({ where, schema, examples }) => {
        const { examples: _examples, example: _example, ...bare } = schema;
        return examples.map((example) => [where, check(bare, example)] as const).filter(([, problem]) => problem !== null);
      });
      expect(wrong, `${name}: schema examples their own schema refuses`).toEqual([]);
    }
  });

  it('the streams are server-sent events as the sandbox writes them; the transcript stream ends with the transcript example', () => {
    const frames = (text: string) =>
      text
        .split('\n\n')
        .filter((block) => block.includes('data: '))
        .map((block) => ({ event: /^event: (.+)$/m.exec(block)![1], data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) }));
    const transcript = library.paths['/v1/transcripts/{id}']!.get!.responses['200'].content;
    const stream = frames(transcript['text/event-stream'].example);
    expect(stream.map((f) => f.event)).toEqual([...transcript['application/json'].example.segments.map(() => 'segment'), 'end']);
    expect(stream.at(-1)!.data).toEqual(transcript['application/json'].example);
    expect(stream[0]!.data).toEqual({ index: 0, ...transcript['application/json'].example.segments[0] });
    const session = frames(served.paths['/__sandbox/sessions/{s}/stream']!.get!.responses['200'].content['text/event-stream'].example);
    expect(session.map((f) => f.event)).toEqual(['event', 'change']);
    expect(session[0]!.data).toEqual(
      served.paths['/__sandbox/sessions/{s}/events']!.get!.responses['200'].content['application/json'].example.data[0],
    );
  });

  it('a list is a page holding its resource example', () => {
    const example = (path: string, method = 'get', status = '200') =>
      library.paths[path]![method]!.responses[status].content['application/json'].example;
    expect(example('/v1/calls')).toEqual({ data: [example('/v1/calls', 'post', '201')], next_cursor: null, has_more: false });
    expect(example('/v1/messages').data).toEqual([example('/v1/messages', 'post', '201')]);
    expect(example('/v1/recordings').data).toEqual([example('/v1/recordings/{id}')]);
  });
});

describe('the response examples have the fields of real answers', () => {
  const keys = (value: unknown) => Object.keys(value as object).sort();
  const example = (doc: Doc, path: string, method: string, status: string) =>
    doc.paths[path]![method]!.responses[status].content['application/json'].example;

  it('of /v1: a call placed, read and listed, a number provisioned and searched, a message sent, a subscription made', async () => {
    const sandbox = createSandbox({ seed: 3 });
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await sandbox.fetch(path, {
        method,
        headers: { authorization: 'Bearer SVC_TEST_examples', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    };
    const call = await send('POST', '/v1/calls', { to: '+14155550123', from: '+14155550100' });
    expect(keys(example(library, '/v1/calls', 'post', '201'))).toEqual(keys(call));
    expect(keys(example(library, '/v1/calls/{id}', 'get', '200'))).toEqual(keys(await send('GET', `/v1/calls/${call.id}`)));
    const page = await send('GET', '/v1/calls');
    expect(keys(example(library, '/v1/calls', 'get', '200'))).toEqual(keys(page));
    expect(keys(example(library, '/v1/calls', 'get', '200').data[0])).toEqual(keys(page.data[0]));
    const number = await send('POST', '/v1/numbers', { kind: 'local', country: 'US', area_code: '415' });
    expect(keys(example(library, '/v1/numbers', 'post', '201'))).toEqual(keys(number));
    expect(keys(example(library, '/v1/numbers', 'get', '200').data[0])).toEqual(
      keys((await send('GET', '/v1/numbers?area_code=415&limit=1')).data[0]),
    );
    const message = await send('POST', '/v1/messages', { from: number.number, to: '+14155550123', body: 'Your cleaning is booked.' });
    expect(keys(example(library, '/v1/messages', 'post', '201'))).toEqual(keys(message));
    expect(keys(example(library, '/v1/webhooks', 'post', '201'))).toEqual(
      keys(await send('POST', '/v1/webhooks', { url: 'https://example.com/webhooks', events: ['call.completed'] })),
    );
    await sandbox.close();
  });

  it('of the control API: a session made and read, the clock advanced, a call inspected', async () => {
    // The tests before this one compile schemas for seconds without yielding: a keep-alive
    // connection to the server has passed both ends' idle timeouts, but neither timer has run.
    // A fetch sent straight away would take that socket as the server's timer closes it
    // (ECONNRESET). One turn of the timers phase lets both timers close it first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const control = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${server.url}/__sandbox${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json();
    const session = await control('POST', '/sessions', { seed: 42 });
    expect(keys(example(served, '/__sandbox/sessions', 'post', '201'))).toEqual(keys(session));
    expect(keys(example(served, '/__sandbox/sessions/{s}', 'get', '200'))).toEqual(keys(await control('GET', `/sessions/${session.id}`)));
    const placed = await fetch(`${server.url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }),
    });
    const { id } = (await placed.json()) as { id: string };
    const advanced = await control('POST', `/sessions/${session.id}/advance`, { duration: '21s' });
    expect(keys(example(served, '/__sandbox/sessions/{s}/advance', 'post', '200'))).toEqual(keys(advanced));
    expect(keys(example(served, '/__sandbox/sessions/{s}/advance', 'post', '200').events[0])).toEqual(keys(advanced.events[0]));
    expect(keys(example(served, '/__sandbox/sessions/{s}/calls/{id}', 'get', '200'))).toEqual(
      keys(await control('GET', `/sessions/${session.id}/calls/${id}`)),
    );
    const listed = await control('GET', `/sessions/${session.id}/calls`);
    expect(keys(example(served, '/__sandbox/sessions/{s}/calls', 'get', '200').data[0])).toEqual(keys(listed.data[0]));
    expect(keys(example(served, '/__sandbox/sessions/{s}/keys', 'post', '201'))).toEqual(
      keys(await control('POST', `/sessions/${session.id}/keys`, { scopes: ['calls:read'] })),
    );
  });
});
