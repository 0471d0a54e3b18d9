# frozen_string_literal: true

require "svc_sandbox/errors"
require "svc_sandbox/operations"

module SvcSandbox
  # Every control operation of a server, one method each ({Operations}, generated from the
  # served control document), sent through its {Server}. {Session} and {Server} wrap the calls a
  # test makes most in friendlier names; this reaches all of them, the rest included.
  #
  # @example
  #   control = SvcSandbox.server.control
  #   control.list_events(s.id, limit: 5)["data"]       # one page
  #   control.all(:list_events, s.id).size                # every page
  #   control.set_conversation_script(s.id, call_id, { lines: [{ speaker: "agent", text: "Hi" }] })
  class Control
    include Operations

    # A listing helper walks at most this many pages: past it, the server is not one to trust.
    MAX_PAGES = 10_000
    # Items asked for per page.
    PAGE_SIZE = 200

    # @return [Server]
    attr_reader :server
    # @return [Numeric] real seconds each call may take, in all (connect, headers and body)
    attr_reader :timeout

    # @param server [Server]
    # @param session [String, nil] the session the calls are made for, named in errors
    # @param timeout [Numeric, nil] real seconds per call (default: the server's)
    def initialize(server, session: nil, timeout: nil)
      @server = server
      @session = session
      @timeout = timeout || server.timeout
    end

    # Every item of a paginated list operation, following `next_cursor`, at most
    # {MAX_PAGES} pages.
    #
    # @param name [Symbol] a list method (`:list_events`, `:list_sessions`, `:list_keys`, ...)
    # @param args [Array] its path parameters
    # @return [Array<Hash>]
    # @raise [Error] `too_many_pages` when the server still has more after `max_pages` pages
    # @example
    #   SvcSandbox.server.control.all(:list_session_calls, s.id)
    def all(name, *args, operation: name.to_s, max_pages: MAX_PAGES)
      items = []
      cursor = nil
      max_pages.times do
        page = public_send(name, *args, limit: PAGE_SIZE, cursor: cursor, operation: operation)
        unless page.is_a?(Hash) && page["data"].is_a?(Array)
          raise Error.new("#{describe(operation)}: #{@server.url} answered a page with no `data` list.", code: "bad_response")
        end

        items.concat(page["data"])
        cursor = page["next_cursor"]
        return items if cursor.nil?
      end
      raise Error.new("#{describe(operation)}: #{@server.url} still had more after #{max_pages} pages of #{PAGE_SIZE}; " \
                      "a listing stops there (is SVC_SANDBOX_URL a svc-sandbox server?).", code: "too_many_pages")
    end

    private

    def describe(operation)
      @session ? "#{operation} on session #{@session}" : operation
    end

    def operation_call(method, path, body, query, operation, expect: :json)
      @server.call(method, path, body, query: query.compact, operation: operation, session: @session, timeout: @timeout,
                                       expect: expect)
    end

    # A stream's read is bounded by the call's own timeout; a shorter `timeout` ends it sooner.
    def operation_stream(path, operation, max_events:, timeout:, &block)
      if !max_events.nil? && (!max_events.is_a?(Integer) || max_events < 1)
        raise ArgumentError, "max_events: #{max_events.inspect}: give a positive number of events, or nil to read until the timeout"
      end

      @server.stream(path, operation: operation, session: @session, timeout: timeout ? [timeout, @timeout].min : @timeout,
                           max_events: max_events, &block)
    end
  end
end
