/**
 * The Go helper's control layer (clients/go/operations.go), emitted from the served control
 * document's operations by scripts/generate-clients.mjs.
 *
 * One method per operation: on SessionControl for the operations below /sessions/{s} (the session
 * id comes from the Session), on ServerControl for the rest. Each takes `ctx context.Context` first,
 * then the other path parameters (percent-encoded into the path), `query url.Values` when the
 * operation reads a query, `body any` (sent as JSON) when it takes one, and `out any` (the JSON
 * answer is decoded into it, as encoding/json does) unless it answers 204 or answers no JSON
 * (then it returns the text, the bytes, or the stream's events). The hand-written
 * Session and Server methods (Advance, Trigger, Events, ...) are typed wrappers over these.
 *
 * The text is written gofmt-clean (tabs, no aligned columns), since the generator runs no gofmt;
 * clients/go/ci.sh checks it with `gofmt -l`.
 */

/**
 * Every operation gets a method. One that answers with no JSON returns what it answers instead:
 * the HTML page as a string, a recording's WAV as bytes, and the session's server-sent event
 * stream, which never ends by itself, as the events read within a bound (StreamSession).
 */

const GO_METHODS = {
  GET: 'http.MethodGet',
  POST: 'http.MethodPost',
  PUT: 'http.MethodPut',
  DELETE: 'http.MethodDelete',
  PATCH: 'http.MethodPatch',
};

/** The Go method name of an operation: its operationId, first letter upper-case. */
export function goName(operationId) {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function goString(text) {
  return JSON.stringify(text);
}

function receiverOf(operation) {
  return operation.path.startsWith('/sessions/{s}') ? 'SessionControl' : 'ServerControl';
}

/** The Go expression of the operation's path: literal parts, and each parameter percent-encoded. */
function pathExpression(operation) {
  const parts = [];
  for (const piece of operation.path.split(/(\{[^}]+\})/)) {
    if (piece === '') continue;
    const param = /^\{([^}]+)\}$/.exec(piece);
    if (!param) parts.push(goString(piece));
    else parts.push(`url.PathEscape(${param[1] === 's' ? 'c.session' : param[1]})`);
  }
  return parts.join(' + ');
}

/** How a 2xx answer is returned: decoded JSON into out, a string, bytes, or a stream's events. */
function answerOf(operation) {
  const type = operation.contentType ?? '';
  if (operation.status === 204 || type === '' || /json/.test(type)) return 'json';
  if (type === 'text/event-stream') return 'events';
  return /^text\//.test(type) ? 'text' : 'bytes';
}

function methodOf(operation) {
  const name = goName(operation.operationId);
  const answer = answerOf(operation);
  const receiver = receiverOf(operation);
  const method = GO_METHODS[operation.method];
  if (!method) throw new Error(`go emitter: ${operation.operationId}: no Go constant for the method ${operation.method}`);
  const answers = operation.status !== 204;
  const params = ['ctx context.Context'];
  for (const param of operation.pathParams) {
    if (param === 's') continue;
    if (!/^[a-z][A-Za-z0-9]*$/.test(param) || ['ctx', 'query', 'body', 'out', 'c'].includes(param)) {
      throw new Error(`go emitter: ${operation.operationId}: the path parameter ${param} is no usable Go name`);
    }
    params.push(`${param} string`);
  }
  if (operation.query.length > 0) params.push('query url.Values');
  if (operation.body) params.push('body any');
  if (answer === 'events') {
    if (operation.method !== 'GET' || operation.body || operation.query.length > 0) {
      throw new Error(`go emitter: ${operation.operationId}: an event stream read takes no body nor query`);
    }
    return [
      `// ${name} is the operation ${operation.operationId}: ${operation.method} /__sandbox${operation.path}, a stream of`,
      '// server-sent events that never ends by itself. It reads the stream until max events came (max <= 0:',
      "// no count) or the call's bound passed (ctx's deadline, or the session's Timeout, SVC_SANDBOX_TIMEOUT,",
      '// whichever comes first; at most MaxAnswerBytes read), and returns the events read: running out of',
      '// time once the stream began is no error.',
      `// ${operation.summary.replace(/\s+/g, ' ').trim()}.`.replace(/\.\.$/, '.'),
      `func (c ${receiver}) ${name}(${[...params, 'max int'].join(', ')}) ([]StreamEvent, error) {`,
      `\tpath := ${pathExpression(operation)}`,
      `\treturn c.srv.stream(ctx, c.op(${goString(name)}), path, max)`,
      '}',
    ].join('\n');
  }
  if (answers && answer === 'json') params.push('out any');
  const args = [
    'ctx',
    `c.op(${goString(name)})`,
    method,
    'path',
    operation.query.length > 0 ? 'query' : 'nil',
    operation.body ? 'body' : 'nil',
    answers ? 'out' : 'nil',
  ];
  const what = [`${operation.method} /__sandbox${operation.path}`];
  if (operation.query.length > 0) what.push(`query ${operation.query.join(', ')}`);
  what.push(answers ? `answers ${operation.status}, decoded into out` : 'answers 204');
  if (answer !== 'json') {
    const goType = answer === 'text' ? 'string' : '[]byte';
    args[args.length - 1] = '&out';
    return [
      `// ${name} is the operation ${operation.operationId}: ${operation.method} /__sandbox${operation.path}; answers ${operation.status}, its ${operation.contentType} body returned as ${answer === 'text' ? 'text' : 'bytes'}.`,
      `// ${operation.summary.replace(/\s+/g, ' ').trim()}.`.replace(/\.\.$/, '.'),
      `func (c ${receiver}) ${name}(${params.join(', ')}) (${goType}, error) {`,
      `\tpath := ${pathExpression(operation)}`,
      `\tvar out ${goType}`,
      `\terr := c.srv.send(${args.join(', ')})`,
      '\treturn out, err',
      '}',
    ].join('\n');
  }
  return [
    `// ${name} is the operation ${operation.operationId}: ${what.join('; ')}.`,
    `// ${operation.summary.replace(/\s+/g, ' ').trim()}.`.replace(/\.\.$/, '.'),
    `func (c ${receiver}) ${name}(${params.join(', ')}) error {`,
    `\tpath := ${pathExpression(operation)}`,
    `\treturn c.srv.send(${args.join(', ')})`,
    '}',
  ].join('\n');
}

/** @param {Array<{operationId: string, method: string, path: string, summary: string, pathParams: string[], query: string[], body: boolean, status?: number}>} operations */
export function emit(operations) {
  const kept = operations;
  const table = operations.map(
    (operation) => `\t{${goString(operation.operationId)}, ${goString(`${receiverOf(operation)}.${goName(operation.operationId)}`)}},`,
  );
  const text = [
    '// Code generated by scripts/generate-clients.mjs; DO NOT EDIT.',
    '',
    '// Generated by scripts/generate-clients.mjs from the served control document. Do not edit.',
    '// Regenerate: npm run build && node scripts/generate-clients.mjs (the emitter is scripts/clients/go.mjs).',
    '',
    'package svcsandbox',
    '',
    'import (',
    '\t"context"',
    '\t"net/http"',
    '\t"net/url"',
    ')',
    '',
    '// operations is every operation of the served control document, by operationId, and the method',
    '// that makes it: none is left out.',
    'var operations = []struct{ id, method string }{',
    ...table,
    '}',
    '',
    ...kept.flatMap((operation) => [methodOf(operation), '']),
  ].join('\n');
  return [{ file: 'clients/go/operations.go', text }];
}
