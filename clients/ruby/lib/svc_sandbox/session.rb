# frozen_string_literal: true

require "json"
require "svc_sandbox/errors"
require "svc_sandbox/control"
require "svc_sandbox/fake_sleep"

module SvcSandbox
  # One session of a svc-sandbox server: a sandbox of its own, with its own virtual clock, seed,
  # ids, accounts, events and webhook queues. Its key ({#api_key}) routes `/v1` requests on
  # {#base_url} to it.
  #
  # Every method is one call of the control API (docs/server.md), made through the generated
  # control layer ({Control}, which {#control} gives for the rest), and returns its decoded JSON
  # with string keys, or nil when the answer has no body. Keyword arguments are the control API's
  # fields in snake_case (`retry_after:` is `retryAfter`); hashes nested in them are sent as given.
  # A refusal raises {Error} with the answer's `status`, `code` and `param`.
  #
  # @example
  #   SvcSandbox.session(seed: 42) do |s|
  #     # point your SDK at s.base_url with s.api_key, place a call, then:
  #     s.advance("65s") # => {"now" => "2026-01-01T00:01:05.000Z", "events" => [...]}
  #   end
  class Session
    # @return [String] the session's id (`ses_…`)
    attr_reader :id
    # @return [String] a test key of this session: give it to your SDK
    attr_reader :api_key
    # @return [Server]
    attr_reader :server
    # @return [Numeric] real seconds a control call of this session may take
    attr_reader :timeout
    # Every control operation of the server (one method each, generated from the served control
    # document), with this session's timeout and its id named in errors: for the operations this
    # class has no method of its own for (`s.control.list_events(s.id, limit: 5)["data"]`).
    #
    # @return [Control]
    attr_reader :control

    # Creates a session on `server`; see {SvcSandbox.session}.
    #
    # @api private
    def self.open(server, seed: nil, timeout: nil, **options)
      body = camel(options)
      body["seed"] = seed unless seed.nil?
      timeout ||= server.timeout
      answer = server.control(timeout: timeout).create_session(body, operation: "create a session")
      session = new(server, answer.fetch("id"), answer.fetch("apiKey"), timeout)
      return session unless block_given?

      begin
        result = yield session
      rescue Exception # whatever ended the block (a failed assertion too): close, then re-raise it
        begin
          session.close
        rescue Error
          nil # the block's own failure is the one to see
        end
        raise
      end
      session.close
      result
    end

    # `{start_time: 1}` as the control API spells it: `{"startTime" => 1}`.
    #
    # @api private
    def self.camel(options)
      options.to_h { |key, value| [key.to_s.gsub(/_([a-z0-9])/) { Regexp.last_match(1).upcase }, value] }
    end

    # Use {SvcSandbox.session} or {Server#session}.
    def initialize(server, id, api_key, timeout)
      @server = server
      @id = id
      @api_key = api_key
      @timeout = timeout
      @control = Control.new(server, session: id, timeout: timeout)
      @clock = VirtualClock.new(self)
      @closed = false
    end

    # @return [String] the API's base URL, `http://HOST:PORT`: requests go to `#{base_url}/v1/...`
    def base_url
      @server.url
    end

    # @return [String] this session's control URL, `http://HOST:PORT/__sandbox/sessions/ID`
    def control_url
      "#{@server.control_url}/sessions/#{escape(@id)}"
    end

    # @return [Boolean] whether {#close} has ended the session
    def closed?
      @closed
    end

    # Ends the session: its keys are 401 from then on. Closing twice does nothing.
    #
    # @return [nil]
    def close
      return if @closed

      ops("close").delete_session(@id, operation: "close")
      @closed = true
      nil
    end

    def inspect
      "#<#{self.class} #{@id} #{base_url}#{" closed" if @closed}>"
    end
    alias to_s inspect

    # --- The clock -------------------------------------------------------------------------

    # Moves the virtual clock; answers once everything due has run (webhook attempts included).
    #
    # @param duration [String, Integer] `"500ms"`, `"30s"`, `"5m"`, `"2h"`, `"1d"`, or milliseconds
    # @return [Hash] `{"now" => ISO time, "events" => [the events emitted meanwhile, oldest first]}`
    # @example
    #   s.advance("65s")["events"].map { |e| e["type"] } # => ["call.answered", "call.completed"]
    def advance(duration)
      answer = ops("advance").advance(@id, { duration: duration }, operation: "advance")
      @clock.observe(answer["now"])
      answer
    end

    # Moves the virtual clock until an event of `type` is emitted, `max` at most (default 1 day).
    #
    # @return [Hash] the event that stopped the clock
    # @raise [Error] 404 `not_found` (param `until`) when none came within `max`
    # @example
    #   s.advance_until("call.completed", max: "1h")["data"]["disposition"] # => "answered"
    def advance_until(type, max: nil)
      body = { until: type }
      body[:max] = max unless max.nil?
      answer = ops("advance_until").advance(@id, body, operation: "advance_until")
      @clock.observe(answer["now"])
      answer["event"]
    end

    # @return [Time] the session's virtual now
    def now
      Time.iso8601(info.fetch("now"))
    end

    # @return [Hash] `{"id", "seed", "now"}`
    def info
      ops("info").get_session(@id, operation: "info")
    end

    # Empties the session and sets its clock back to its start; keys it made stay valid.
    #
    # @return [nil]
    def reset
      ops("reset").reset(@id, operation: "reset").tap { @clock.forget }
    end

    # Inside the block, `sleep(x)` (Kernel#sleep, in any thread) moves this session's virtual
    # clock instead of sleeping: until virtual time reaches the virtual now at which that sleep
    # began, plus x. Many threads sleeping at one virtual instant move the clock once, by the
    # longest of their sleeps. Kernel#sleep is itself again after the block, however it ends.
    # Only one fake_sleep may be active in a process at a time. Sleeps of the timeout library
    # stay real, as they measure real time (docs/ruby.md, "Testing back-off").
    #
    # The block gets the record of the sleeps ({Sleeps}, emptied as the outermost block begins), which
    # {#sleeps} still gives after it.
    #
    # @yieldparam sleeps [Sleeps]
    # @return the block's value
    # @example An SDK that sleeps Retry-After on a 429 retries at once, on virtual time
    #   s.fake_sleep { client.create_call(to: "+14155550123") }
    #   s.sleeps.calls # => [2]
    def fake_sleep(&block)
      raise ArgumentError, "fake_sleep needs a block: s.fake_sleep { ... }" unless block

      @clock.refresh
      @clock.sleeps.clear unless FakeSleep.active?(@clock) # a nested fake_sleep keeps the outer one's record
      FakeSleep.activate(@clock) { block.call(@clock.sleeps) }
    end

    # The sleeps on this session's virtual clock, in the order they began: those of the latest
    # {#fake_sleep} (from its start, kept after it) and of {#sleep}.
    #
    # @return [Sleeps]
    # @example
    #   s.fake_sleep { my_sdk.create_call(to: "+14155550123") }
    #   assert_equal [2, 4], s.sleeps.calls
    def sleeps
      @clock.sleeps
    end

    # Sleeps `seconds` on this session's virtual clock, as `sleep` does inside {#fake_sleep}:
    # for an SDK that takes a sleeper (`Client.new(sleeper: s.method(:sleep))`).
    #
    # @param seconds [Numeric]
    # @return [Integer] the seconds slept, rounded, as Kernel#sleep returns them
    def sleep(seconds)
      @clock.sleep(seconds)
    end

    # --- Events and webhooks ---------------------------------------------------------------

    # @return [Array<Hash>] the event log, oldest first
    def events
      list(:list_events, "events")
    end

    # @return [Array<Hash>] webhook deliveries with their attempts, oldest first
    def deliveries
      list(:list_deliveries, "deliveries")
    end

    # @return [Array<Hash>] the dead-letter queue, oldest first
    def dead_letters
      list(:list_dead_letters, "dead_letters")
    end

    # @return [Array<Hash>] every webhook delivery attempt, in the order sent
    def attempts
      ops("attempts").list_attempts(@id, operation: "attempts")["data"]
    end

    # Replays a dead letter now (a `dlv_` id, or an `evt_` id for every dead delivery of it).
    #
    # @return [Array<Hash>] the attempts it made
    def replay(id)
      ops("replay").replay_dead_letter(@id, id, operation: "replay")["data"]
    end

    # Replays every dead letter matching the filter whose subscription still exists.
    #
    # @param filter [Hash] `type:`, `event_id:`, `subscription_id:`, `api_key:`, `state:`
    # @return [Array<Hash>] the attempts made
    def replay_all(**filter)
      ops("replay_all").replay_all_dead_letters(@id, self.class.camel(filter), operation: "replay_all")["data"]
    end

    # Makes one event of `type` through a real state change (virtual time moves as far as needed).
    #
    # @param data [Hash, nil] fields of the event's data to set (`{"disposition" => "busy"}`)
    # @param api_key [String, nil] the account (default: the session's key)
    # @return [Hash] the event
    # @example
    #   s.trigger("call.completed", { disposition: "busy" })["data"]["disposition"] # => "busy"
    def trigger(type, data = nil, api_key: nil)
      body = { type: type }
      body[:data] = data unless data.nil?
      body[:apiKey] = api_key unless api_key.nil?
      ops("trigger").trigger_event(@id, body, operation: "trigger").tap { @clock.forget }
    end

    # Runs a scenario file (docs/scenarios.md) on this session, from its virtual now.
    #
    # @param scenario [String, Pathname, Hash] the file's path, or its JSON as a Hash
    # @return [Hash] the result: `"passed"`, `"timeline"`, `"failure"` (the first expectation that failed)
    def run_scenario(scenario)
      body = scenario.is_a?(Hash) ? scenario : read_scenario(scenario)
      ops("run_scenario").run_scenario(@id, body, operation: "run_scenario").tap { @clock.forget }
    end

    # @return [Hash] the session as JSON: `SvcSandbox.session(snapshot: it)` starts another from it
    def snapshot
      ops("snapshot").get_snapshot(@id, operation: "snapshot")
    end

    # @return [Hash] what the session exercised and never did (docs/coverage.md)
    def coverage
      ops("coverage").get_coverage(@id, operation: "coverage")
    end

    # @return [Array<Hash>] the request journal of `/v1`, oldest first
    def requests
      list(:list_requests, "requests")
    end

    # @return [Array<Hash>] unexpected failures inside the sandbox (empty when healthy)
    def internal_errors
      ops("internal_errors").list_internal_errors(@id, operation: "internal_errors")["data"]
    end

    # --- Keys ------------------------------------------------------------------------------

    # A new test key of this session.
    #
    # @param plan [String, nil] `"standard"` (100 requests a second) or `"enterprise"` (no cap)
    # @param scopes [Array<String>, nil] e.g. `["calls:read"]`; a request outside them is 403
    # @return [Hash] `{"key", "plan", "scopes"}`
    def create_key(plan: nil, scopes: nil, account: nil)
      ops("create_key").create_key(@id, { plan: plan, scopes: scopes, account: account }.compact, operation: "create_key")
    end

    # @return [Array<Hash>] the keys made, oldest first
    def keys
      list(:list_keys, "keys")
    end

    # Revokes a key of this session: 401 from then on.
    def revoke_key(key)
      ops("revoke_key").revoke_key(@id, key, operation: "revoke_key")
    end

    # --- Faults ----------------------------------------------------------------------------

    # Makes the next matching `/v1` requests fail (docs/scripting.md, "Faults").
    #
    # @param rule [Hash] `method:`, `path:` (`"/v1/calls/{id}"`), `status:` (default 503),
    #   `retry_after:`, `network:` (a dropped connection), `times:` (default 1; `"Infinity"`)
    # @return [Array<Hash>] the active rules
    # @example
    #   s.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 2)
    def inject_fault(**rule)
      ops("inject_fault").inject_fault(@id, self.class.camel(rule), operation: "inject_fault")["data"]
    end

    # @return [Array<Hash>] the injected faults with hits left, in order
    def faults
      ops("faults").list_faults(@id, operation: "faults")["data"]
    end

    def clear_faults
      ops("clear_faults").clear_faults(@id, operation: "clear_faults")
    end

    # --- The simulated network -------------------------------------------------------------

    # Scripts every call to `number` (docs/calls.md).
    #
    # @param behavior [Hash] `outcome:`, `ring:`, `talk:` (a duration or `"manual"`), `answered_by:`, `agent:`
    # @example
    #   s.set_behavior("+14155550123", ring: "manual", talk: "manual")
    def set_behavior(number, **behavior)
      ops("set_behavior").set_behavior(@id, number, self.class.camel(behavior), operation: "set_behavior")
    end

    # Scripts the next calls to `number`, one behaviour each.
    #
    # @example
    #   s.queue_behavior("+14155550124", { outcome: "busy" }, { outcome: "answered" })
    def queue_behavior(number, *behaviors)
      body = { behaviors: behaviors.map { |b| self.class.camel(b) } }
      ops("queue_behavior").queue_behavior(@id, number, body, operation: "queue_behavior")
    end

    # Forgets the scripted behaviour of `number`, or of every number when none is given.
    def clear_behavior(number = nil)
      return ops("clear_behavior").clear_all_behavior(@id, operation: "clear_behavior") if number.nil?

      ops("clear_behavior").clear_behavior(@id, number, operation: "clear_behavior")
    end

    # Whether messages to `number` end `"delivered"` or `"failed"`.
    def set_message_behavior(number, outcome)
      ops("set_message_behavior").set_message_behavior(@id, number, { outcome: outcome }, operation: "set_message_behavior")
    end

    # The outcomes of the next messages to `number`, one each (`"delivered"`, `"failed"`).
    def queue_message_behavior(number, *outcomes)
      body = { behaviors: outcomes.map { |o| o.is_a?(Hash) ? o : { outcome: o } } }
      ops("queue_message_behavior").queue_message_behavior(@id, number, body, operation: "queue_message_behavior")
    end

    # --- Calls, messages, recordings -------------------------------------------------------

    # Answers a ringing call now.
    #
    # @param by [String, nil] `"human"` (default) or `"voicemail"`
    # @return [Hash] the call
    def answer(call_id, by: nil)
      ops("answer").answer_call(@id, call_id, { by: by }.compact, operation: "answer")
    end

    # Ends a live call now: an answered one completes `answered`, a ringing one `canceled`.
    #
    # @return [Hash] the call
    def hang_up(call_id)
      ops("hang_up").hang_up_call(@id, call_id, operation: "hang_up")
    end

    # Rings a number of an account from outside.
    #
    # @param options [Hash] `api_key:`, `ai_receptionist:`, `behavior:` (a Hash as {#set_behavior} takes)
    # @return [Hash] the call
    def inbound_call(from:, to:, **options)
      options[:behavior] = self.class.camel(options[:behavior]) if options[:behavior].is_a?(Hash)
      ops("inbound_call").inbound_call(@id, self.class.camel(from: from, to: to, **options), operation: "inbound_call")
    end

    # Delivers an inbound SMS or MMS to a provisioned number.
    #
    # @param options [Hash] `body:` and/or `media_urls:`
    # @return [Hash] the message
    def inbound_message(from:, to:, **options)
      ops("inbound_message").inbound_message(@id, self.class.camel(from: from, to: to, **options), operation: "inbound_message")
    end

    # @return [Hash] a call of any account of the session, as the API shows it
    def find_call(id)
      ops("find_call").inspect_call(@id, id, operation: "find_call")
    end

    # @return [Array<Hash>] every call of the session, newest first, each with its `"timeline"`
    def calls
      list(:list_session_calls, "calls")
    end

    # @return [Hash] a message of any account of the session
    def find_message(id)
      ops("find_message").inspect_message(@id, id, operation: "find_message")
    end

    # @return [Hash] a recording of any account of the session
    def find_recording(id)
      ops("find_recording").inspect_recording(@id, id, operation: "find_recording")
    end

    # @return [Hash] a transcript (its `trn_` id)
    def find_transcript(id)
      ops("find_transcript").inspect_transcript(@id, id, operation: "find_transcript")
    end

    # When recordings and transcripts become ready: for calls that end from now on, or for one
    # call (before it ends).
    #
    # @example
    #   s.set_recording_timing(recording_delay: "1s", transcript_delay: "2s")
    def set_recording_timing(call_id = nil, recording_delay: nil, transcript_delay: nil)
      body = { recordingDelay: recording_delay, transcriptDelay: transcript_delay }.compact
      return ops("set_recording_timing").set_recording_timing(@id, body, operation: "set_recording_timing") if call_id.nil?

      ops("set_recording_timing").set_call_recording_timing(@id, call_id, body, operation: "set_recording_timing")
    end

    # Scripts a ringing call's conversation.
    #
    # @param lines [Array<Hash>] `{speaker:, text:}`, optionally `start:` and `end:` in seconds
    def set_script(call_id, lines)
      ops("set_script").set_conversation_script(@id, call_id, { lines: lines }, operation: "set_script")
    end

    # @return [Integer] the live-transcript streams open now
    def transcript_streams
      ops("transcript_streams").count_transcript_streams(@id, operation: "transcript_streams")["openStreams"]
    end

    private

    # The control layer, once the session is known to be open.
    def ops(operation)
      open!(operation)
      @control
    end

    def list(name, operation)
      ops(operation).all(name, @id, operation: operation)
    end

    def open!(operation)
      return unless @closed

      raise Error.new("#{operation} on session #{@id}: the session is closed. Make another with SvcSandbox.session.",
                      code: "session_closed")
    end

    # A path segment, percent-encoded (a `+` of a phone number included: the server decodes once).
    def escape(segment)
      segment.to_s.b.gsub(/[^A-Za-z0-9\-._~]/) { |byte| format("%%%02X", byte.ord) }
    end

    def read_scenario(path)
      JSON.parse(File.read(path.to_s))
    rescue SystemCallError => e
      raise Error.new("run_scenario on session #{@id}: cannot read #{path}: #{e.message}.", code: "invalid_argument"), cause: nil
    rescue JSON::ParserError => e
      raise Error.new("run_scenario on session #{@id}: #{path} is not JSON: #{e.message.lines.first.strip}.",
                      code: "invalid_argument"), cause: nil
    end
  end
end
