/**
 * The Ruby helper's control layer, emitted from the served control document.
 *
 * scripts/generate-clients.mjs calls `emit(operations)` with every control operation and writes
 * what it returns: clients/ruby/lib/svc_sandbox/operations.rb, the module `SvcSandbox::Operations`
 * with one method per operation (snake_case of its operationId). The module is mixed into
 * `SvcSandbox::Control` (clients/ruby/lib/svc_sandbox/control.rb), which sends each request;
 * the hand-written `Session` and `Server` are thin, typed wrappers over it.
 *
 * A method takes the operation's path parameters in order (percent-encoded into the path), then
 * the body as a Hash when the operation takes one, then its query parameters as keywords; it
 * returns the decoded JSON answer, the bytes of a binary answer (a recording's WAV), the text of
 * an HTML page, or nil for a 204. Every operation gets a method, none is left out: the session's
 * server-sent event stream, which never ends by itself, is read for a bound (`max_events:`,
 * `timeout:`) and returns its parsed events, or yields each to a block.
 */

const FILE = 'clients/ruby/lib/svc_sandbox/operations.rb';

/** `getOpenApi30` → `get_open_api30`, `listSessionCalls` → `list_session_calls`. */
export function snake(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** A path parameter's Ruby name: `{s}` is the session's id. */
function paramName(name) {
  return name === 's' ? 'session_id' : snake(name);
}

/** A Ruby double-quoted string literal of `text`. */
function rubyString(text) {
  return JSON.stringify(text).replace(/#\{/g, '\\#{');
}

/** A `#` comment from a summary, with no trailing space. */
function comment(text, indent) {
  return `${indent}# ${text.replace(/\s+/g, ' ').trim()}`;
}

/** How a 2xx answer is decoded: `:json`, `:text`, `:bytes` or `:events` (a server-sent event stream). */
function expectOf(operation) {
  const type = operation.contentType ?? '';
  if (operation.status === 204 || type === '' || /json/.test(type)) return 'json';
  if (type === 'text/event-stream') return 'events';
  return /^text\//.test(type) ? 'text' : 'bytes';
}

function streamMethodOf(operation) {
  const name = snake(operation.operationId);
  const params = operation.pathParams.map(paramName);
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, p) => `#{segment(${paramName(p)})}`);
  return [
    comment(operation.summary || operation.operationId, '    '),
    `    # ${operation.method} /__sandbox${operation.path} (operationId ${operation.operationId}); a stream that never ends by`,
    "    # itself, read until `max_events` events came or `timeout` seconds passed (at most the call's timeout,",
    '    # SVC_SANDBOX_TIMEOUT; at most 64 MiB read). Returns the events read, each',
    '    # `{"event" => ..., "data" => decoded JSON, "id" => ...}`; with a block, also yields each as it comes',
    '    # (a `break` ends the read).',
    `    def ${name}(${[...params, 'max_events: nil', 'timeout: nil', `operation: ${rubyString(name)}`].join(', ')}, &block)`,
    `      operation_stream("${path}", operation, max_events: max_events, timeout: timeout, &block)`,
    '    end',
  ].join('\n');
}

function methodOf(operation) {
  if (expectOf(operation) === 'events') return streamMethodOf(operation);
  const name = snake(operation.operationId);
  const expect = expectOf(operation);
  const params = operation.pathParams.map(paramName);
  const args = [...params];
  if (operation.body) args.push('body = {}');
  for (const q of operation.query) args.push(`${snake(q)}: nil`);
  args.push(`operation: ${rubyString(name)}`);
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, p) => `#{segment(${paramName(p)})}`);
  const query = operation.query.length ? `{ ${operation.query.map((q) => `${rubyString(q)} => ${snake(q)}`).join(', ')} }` : '{}';
  const status =
    operation.status === 204
      ? 'nil (204)'
      : expect === 'json'
        ? `the decoded answer (${operation.status ?? 200})`
        : `the answer's ${expect === 'text' ? 'text' : 'bytes'} (${operation.status ?? 200} ${operation.contentType})`;
  return [
    comment(operation.summary || operation.operationId, '    '),
    `    # ${operation.method} /__sandbox${operation.path} (operationId ${operation.operationId}); returns ${status}.`,
    `    def ${name}(${args.join(', ')})`,
    `      operation_call(${rubyString(operation.method)}, "${path}", ${operation.body ? 'body' : 'nil'}, ${query}, operation${expect === 'json' ? '' : `, expect: :${expect}`})`,
    '    end',
  ].join('\n');
}

/** @param {Array<{operationId: string, method: string, path: string, summary: string, pathParams: string[], query: string[], body: boolean, status?: number}>} operations */
export function emit(operations) {
  const included = operations;
  const width = Math.max(...operations.map((op) => op.operationId.length)) + 3;
  const key = (op) => rubyString(op.operationId).padEnd(width);
  const table = included.map((op) => `      ${key(op)} => :${snake(op.operationId)},`);
  const text = `# frozen_string_literal: true

# Generated by scripts/generate-clients.mjs from the served control document. Do not edit.
# Regenerate with \`npm run build && node scripts/generate-clients.mjs\` (the emitter is
# scripts/clients/ruby.mjs).

module SvcSandbox
  # One method per control operation of the svc-sandbox server (docs/server.md), mixed into
  # {Control}, which defines \`operation_call(method, path, body, query, operation, expect:)\` and
  # \`operation_stream(path, operation, max_events:, timeout:)\`.
  #
  # A method takes the operation's path parameters in order (\`session_id\` is the session's id),
  # then the body as a Hash when the operation takes one, then its query parameters as keywords;
  # it returns the decoded JSON answer (string keys), the bytes of a recording's audio, the text of
  # the console page, or nil for a 204. \`stream_session\` reads the session's server-sent events for
  # a bound. \`operation:\` names the call in an error's message.
  #
  # @example
  #   SvcSandbox.server.control.list_events(session.id, limit: 10)["data"]
  module Operations
    # Each control operation's operationId and the method that calls it.
    OPERATIONS = {
${table.join('\n')}
    }.freeze

${included.map(methodOf).join('\n\n')}

    private

    # A path segment, percent-encoded (a \`+\` of a phone number included: the server decodes once).
    def segment(value)
      value.to_s.b.gsub(/[^A-Za-z0-9\\-._~]/) { |byte| format("%%%02X", byte.ord) }
    end
  end
end
`;
  return [{ file: FILE, text }];
}
