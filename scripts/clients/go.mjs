/**
 * The Go helper's control layer (clients/go/operations.go), emitted from the served control
 * document's operations by scripts/generate-clients.mjs.
 *
 * One method per operation: on SessionControl for the operations below /sessions/{s} (the session
 * id comes from the Session), on ServerControl for the rest. Each takes `ctx context.Context` first,
 * then the other path parameters (percent-encoded into the path), `query url.Values` when the
 * operation reads a query, `body any` (sent as JSON) when it takes one, and `out any` (the JSON
 * answer is decoded into it, as encoding/json does) unless it answers 204. The hand-written
 * Session and Server methods (Advance, Trigger, Events, ...) are typed wrappers over these.
 *
 * The text is written gofmt-clean (tabs, no aligned columns), since the generator runs no gofmt;
 * clients/go/ci.sh checks it with `gofmt -l`.
 */

/** Operations a test does not make, left out of the Go client on purpose, each with its reason. */
export const EXCLUDED = {
  getConsole: 'the console is an HTML page for a browser: open Session.ConsoleURL()',
  getOpenApi: 'the OpenAPI document describes the control API; it is not a call a test makes (GET ControlURL()+"/openapi.json")',
  getOpenApi30: 'the OpenAPI 3.0 document describes the control API; it is not a call a test makes (GET ControlURL()+"/openapi-3.0.json")',
  streamSession: 'a server-sent event stream for the console, not a request with one answer',
  consoleCalls: "the console's view of the calls: Session.Calls gives them",
  consoleDeliveries: "the console's view of the deliveries: Session.Deliveries gives them",
  consoleMessages: "the console's view of the messages, for a browser",
  consoleNumbers: "the console's view of the provisioned numbers, for a browser",
  consoleRecordingAudio: "the console's WAV player source, audio and not JSON: the API serves a recording's audio at its url",
  consoleRecordings: "the console's view of the recordings, for a browser",
  consoleSubscriptions: "the console's view of the webhook subscriptions, for a browser",
  consoleTranscripts: "the console's view of the transcripts, for a browser",
};

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

function methodOf(operation) {
  const name = goName(operation.operationId);
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
  if (answers) params.push('out any');
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
  const ids = new Set(operations.map((operation) => operation.operationId));
  for (const id of Object.keys(EXCLUDED)) {
    if (!ids.has(id)) throw new Error(`go emitter: the excluded operation ${id} is no longer served; remove it from EXCLUDED`);
  }
  const kept = operations.filter((operation) => !(operation.operationId in EXCLUDED));
  const table = operations.map((operation) => {
    const reason = EXCLUDED[operation.operationId];
    const target = reason === undefined ? `${receiverOf(operation)}.${goName(operation.operationId)}` : '';
    return `\t{${goString(operation.operationId)}, ${goString(target)}, ${goString(reason ?? '')}},`;
  });
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
    '// operations is every operation of the served control document, by operationId: the method',
    '// that makes it, or why the Go client leaves it out.',
    'var operations = []struct{ id, method, excluded string }{',
    ...table,
    '}',
    '',
    ...kept.flatMap((operation) => [methodOf(operation), '']),
  ].join('\n');
  return [{ file: 'clients/go/operations.go', text }];
}
