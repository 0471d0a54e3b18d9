# frozen_string_literal: true

require "svc_sandbox/version"
require "svc_sandbox/errors"
require "svc_sandbox/webhook"
require "svc_sandbox/server"
require "svc_sandbox/session"

# Test helpers for the svc-sandbox server, the Voice and Messaging API's sandbox, in Ruby's own
# idiom: a session per test, virtual time, signed webhooks, standard library only
# (docs/ruby.md).
#
# @example
#   require "svc_sandbox"
#   SvcSandbox.session(seed: 42) do |s|
#     s.api_key  # give it to your SDK, with s.base_url
#     s.advance("65s")
#   end
module SvcSandbox
  autoload :Minitest, "svc_sandbox/minitest"
  autoload :RSpec, "svc_sandbox/rspec"

  @server = nil
  @server_failure = nil
  @server_lock = Mutex.new

  class << self
    # The process's server, found once: under `svc-sandbox exec` (SVC_SANDBOX_URL set) the one
    # exec started; otherwise one this process starts from SVC_SANDBOX_BIN, `svc-sandbox` on PATH
    # or `npx --no-install svc-sandbox`, stopped when the process ends. A failure to find or
    # start it is raised again, unchanged, by every later call: one start per process.
    #
    # @return [Server]
    # @raise [ConnectionError, TimeoutError, ServerStartError]
    # @example
    #   SvcSandbox.server.url # => "http://127.0.0.1:40123"
    def server
      @server_lock.synchronize do
        raise @server_failure if @server_failure

        @server ||= Server.start
      rescue Error => e
        @server_failure = e
        raise
      end
    end

    # A new session of {server}: a sandbox of its own, with its own virtual clock, seed, ids and
    # webhook queues. With a block, yields it, closes it after (whatever the block does), and
    # returns the block's value.
    #
    # @param seed [Integer, nil] ids and generated content derive from it (default: the server's)
    # @param timeout [Numeric, nil] real seconds each control call of the session may take
    # @param options [Hash] more fields of `POST /__sandbox/sessions`: `start_time:`, `clock:`,
    #   `webhook_timeout:`, `deprecation:`, `chaos:`, `snapshot:`, `from:` (docs/server.md)
    # @return [Session, Object] the session, or the block's value
    # @example
    #   s = SvcSandbox.session(seed: 42)
    #   s.advance("65s") # => {"now" => "2026-01-01T00:01:05.000Z", "events" => [...]}
    #   s.close
    # @example With a block
    #   SvcSandbox.session(seed: 1) { |s| s.trigger("call.completed")["type"] } # => "call.completed"
    def session(seed: nil, timeout: nil, **options, &block)
      server.session(seed: seed, timeout: timeout, **options, &block)
    end
  end
end
