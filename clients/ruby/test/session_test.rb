# frozen_string_literal: true

require "test_helper"

# The control API through Session, against a real server: each method does what the library
# member it stands for does, as an SDK's requests on /v1 then see it.
class SessionTest < Minitest::Test
  include Support

  TO = "+14155550123"
  FROM = "+14155550100"

  def setup
    @s = SvcSandbox.session(seed: 42)
  end

  def teardown
    @s.close
  end

  def place_call(to = TO, session: @s)
    status, call, = api(session, "POST", "/v1/calls", { to: to, from: FROM })
    assert_equal 201, status, call
    call
  end

  def test_a_session_has_an_id_a_key_and_the_api_base_url
    assert_match(/\Ases_[0-9A-Za-z]{16}\z/, @s.id)
    assert @s.api_key.start_with?("SVC_TEST_ses_")
    assert_equal SvcSandbox.server.url, @s.base_url
    assert_match(%r{\Ahttp://127\.0\.0\.1:\d+\z}, @s.base_url)
    assert_equal "#{@s.base_url}/__sandbox/sessions/#{@s.id}", @s.control_url
    assert_equal({ "id" => @s.id, "seed" => 42, "now" => "2026-01-01T00:00:00.000Z" }, @s.info)
    assert_equal Time.utc(2026, 1, 1), @s.now
  end

  def test_advance_moves_the_clock_and_answers_the_events_emitted
    call = place_call

    moved = @s.advance("65s")

    assert_equal "2026-01-01T00:01:05.000Z", moved["now"]
    assert_equal %w[call.answered call.completed], moved["events"].map { |e| e["type"] }
    assert_equal %w[call.started call.answered call.completed], @s.events.map { |e| e["type"] }
    assert_equal "completed", @s.find_call(call["id"])["status"]
    assert_equal "2026-01-01T00:01:05.500Z", @s.advance(500)["now"] # milliseconds, as the library takes them
  end

  def test_advance_until_answers_the_event_that_stopped_the_clock
    place_call("+15005550003") # no answer: completed after 30 s

    event = @s.advance_until("call.completed", max: "1h")

    assert_equal %w[call.completed no_answer], [event["type"], event["data"]["disposition"]]
    assert_equal Time.utc(2026, 1, 1, 0, 0, 30), @s.now
    error = assert_raises(SvcSandbox::Error) { @s.advance_until("message.delivered", max: "1m") }
    assert_equal [404, "not_found", "until"], [error.status, error.code, error.param]
  end

  def test_a_refused_control_call_raises_with_the_answer_and_names_the_operation_and_session
    error = assert_raises(SvcSandbox::Error) { @s.advance("soon") }

    assert_equal [400, "invalid_parameter", "duration"], [error.status, error.code, error.param]
    assert_includes error.message, "advance on session #{@s.id}: 400 invalid_parameter"
    assert_includes error.message, "(POST /__sandbox/sessions/#{@s.id}/advance)"
    assert_includes error.server_message, "`duration` is not a duration"

    missing = assert_raises(SvcSandbox::Error) { @s.answer("call_0000000000000000") }
    assert_equal [404, "not_found", "id"], [missing.status, missing.code, missing.param]
    assert_includes missing.message, "answer on session #{@s.id}"
    refute_kind_of SvcSandbox::ConnectionError, missing
  end

  def test_trigger_makes_one_real_event_with_the_data_asked_for
    event = @s.trigger("call.completed", { disposition: "busy" })

    assert_equal %w[call.completed busy], [event["type"], event["data"]["disposition"]]
    assert_equal event["data"], api(@s, "GET", "/v1/calls/#{event["data"]["id"]}")[1]
    assert_equal "message.received", @s.trigger("message.received")["type"]
    error = assert_raises(SvcSandbox::Error) { @s.trigger("call.start") }
    assert_equal [400, "type"], [error.status, error.param]
  end

  def test_run_scenario_takes_a_hash_or_a_file_and_answers_the_result
    scenario = {
      name: "A busy line",
      network: { TO => [{ outcome: "busy" }] },
      steps: [
        { at: "0s", request: { method: "POST", path: "/v1/calls", body: { to: TO, from: FROM }, as: "call" } },
        { at: "5s", expect: { resources: [{ path: "/v1/calls/{{call.id}}", fields: { status: "completed", disposition: "busy" } }] } },
      ],
    }
    assert_equal true, @s.run_scenario(scenario)["passed"]

    Dir.mktmpdir do |dir|
      path = File.join(dir, "busy.json")
      scenario[:steps][1][:expect][:resources][0][:fields][:disposition] = "answered"
      File.write(path, JSON.generate(scenario))
      result = @s.run_scenario(path)
      assert_equal false, result["passed"]
      refute_nil result["failure"]
      error = assert_raises(SvcSandbox::Error) { @s.run_scenario(File.join(dir, "missing.json")) }
      assert_equal "invalid_argument", error.code
      assert_includes error.message, "missing.json"
    end
  end

  def test_reset_empties_the_session_and_its_key_stays_valid
    place_call
    @s.advance("1m")

    assert_nil @s.reset

    assert_equal [], @s.events
    assert_equal Time.utc(2026, 1, 1), @s.now
    assert_equal 200, api(@s, "GET", "/v1/calls").first
  end

  def test_webhooks_deliveries_dead_letters_and_replay
    receiver = Receiver.new(status: 500)
    status, = api(@s, "POST", "/v1/webhooks", { url: receiver.url, events: ["call.completed"] })
    assert_equal 201, status
    place_call

    @s.advance("25h")

    dead, = @s.dead_letters
    assert_equal ["call.completed", 13], [dead["eventType"], dead["attempts"].size]
    assert_equal [dead["id"]], @s.deliveries.map { |d| d["id"] }
    assert_equal 13, @s.attempts.size
    receiver.status = 200
    assert_equal [[1, true, 200]], @s.replay(dead["id"]).map { |a| a.values_at("attempt", "ok", "status") }
    assert_equal [], @s.dead_letters
    assert_equal [], @s.replay_all(type: "call.completed")
  ensure
    receiver&.stop
  end

  def test_keys_are_made_with_scopes_listed_and_revoked
    reader = @s.create_key(scopes: ["calls:read"])

    assert_equal %w[standard], [reader["plan"]]
    assert_equal 200, api(@s, "GET", "/v1/calls", key: reader["key"]).first
    assert_equal 403, api(@s, "POST", "/v1/calls", { to: TO, from: FROM }, key: reader["key"]).first
    assert_includes @s.keys.map { |k| k["key"] }, reader["key"]
    assert_nil @s.revoke_key(reader["key"])
    assert_equal 401, api(@s, "GET", "/v1/calls", key: reader["key"]).first
    assert_equal "enterprise", @s.create_key(plan: "enterprise")["plan"]
  end

  def test_faults_are_injected_listed_and_cleared
    rules = @s.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 2, times: 2)

    assert_equal [[503, 2, 2]], rules.map { |r| r.values_at("status", "retryAfter", "remaining") }
    status, body, response = api(@s, "POST", "/v1/calls", { to: TO, from: FROM })
    assert_equal [503, "2"], [status, response["retry-after"]], body
    assert_equal 1, @s.faults.first["remaining"]
    assert_nil @s.clear_faults
    assert_equal [], @s.faults
    place_call
  end

  def test_the_network_is_scripted_per_number
    @s.set_behavior(TO, ring: "manual", talk: "manual")
    call = place_call
    @s.advance("1h")
    assert_equal "ringing", @s.find_call(call["id"])["status"]
    assert_equal "answered", @s.answer(call["id"], by: "human")["status"]
    @s.advance("42s")
    done = @s.hang_up(call["id"])
    assert_equal %w[completed answered], done.values_at("status", "disposition")
    assert_equal 42, done["duration"]

    @s.queue_behavior("+14155550124", { outcome: "busy" }, { outcome: "answered", answered_by: "voicemail" })
    first = place_call("+14155550124")
    second = place_call("+14155550124")
    @s.advance("2m")
    assert_equal "busy", @s.find_call(first["id"])["disposition"]
    assert_equal "voicemail", @s.find_call(second["id"])["answered_by"]

    @s.clear_behavior(TO)
    @s.clear_behavior
    third = place_call
    @s.advance("5s")
    assert_equal "answered", @s.find_call(third["id"])["status"]
    assert_equal [third["id"], second["id"], first["id"], call["id"]], @s.calls.map { |c| c["id"] }
    assert @s.calls.all? { |c| c.key?("timeline") }
  end

  def test_inbound_calls_and_messages_reach_a_provisioned_number
    status, number, = api(@s, "POST", "/v1/numbers", { kind: "local", area_code: "415" })
    assert_equal 201, status, number

    call = @s.inbound_call(from: TO, to: number["number"], behavior: { ring: "2s", talk: "10s" })
    message = @s.inbound_message(from: TO, to: number["number"], body: "On my way")

    assert_equal %w[inbound ringing], call.values_at("direction", "status")
    assert_equal %w[inbound received On\ my\ way], message.values_at("direction", "status", "body")
    assert_equal message, @s.find_message(message["id"])
    @s.advance("12s")
    assert_equal "completed", @s.find_call(call["id"])["status"]

    @s.set_message_behavior("+14155550199", "failed")
    @s.queue_message_behavior("+14155550198", "failed", "delivered")
    sent = api(@s, "POST", "/v1/messages", { from: number["number"], to: "+14155550199", body: "hi" })[1]
    @s.advance("5s")
    assert_equal "failed", @s.find_message(sent["id"])["status"]
  end

  def test_recordings_and_transcripts_follow_their_timing_and_script
    @s.set_recording_timing(recording_delay: "1s", transcript_delay: "2s")
    call = place_call
    @s.set_script(call["id"], [{ speaker: "agent", text: "Northwind, how can I help?" }, { speaker: "customer", text: "A refund." }])
    @s.advance("65s")
    @s.advance("3s")

    done = @s.find_call(call["id"])
    assert_equal "ready", @s.find_recording(done["recording_id"])["status"]
    transcript = @s.find_transcript(done["transcript_id"])
    assert_equal ["Northwind, how can I help?", "A refund."], transcript["segments"].map { |s| s["text"] }
    assert_equal 0, @s.transcript_streams

    later = place_call
    @s.set_recording_timing(later["id"], recording_delay: "5s")
    error = assert_raises(SvcSandbox::Error) { @s.set_script(done["id"], [{ speaker: "agent", text: "Too late" }]) }
    assert_equal 409, error.status
  end

  def test_the_request_journal_coverage_and_internal_errors
    place_call
    api(@s, "GET", "/v1/calls/call_0000000000000000")

    journal = @s.requests
    assert_equal [["POST", "/v1/calls", 201], ["GET", "/v1/calls/{id}", 404]], journal.map { |r| r.values_at("method", "path", "status") }
    assert_kind_of Hash, @s.coverage
    assert_equal [], @s.internal_errors
  end

  def test_a_session_made_from_a_snapshot_answers_as_the_original
    call = place_call
    snapshot = @s.snapshot

    SvcSandbox.session(snapshot: snapshot) do |copy|
      assert_equal call["id"], api(copy, "GET", "/v1/calls/#{call["id"]}")[1]["id"]
      assert_equal place_call(session: @s)["id"], place_call(session: copy)["id"]
    end
    SvcSandbox.session(from: @s.id) { |fork| assert_equal 200, api(fork, "GET", "/v1/calls/#{call["id"]}").first }
  end

  def test_options_reach_the_new_session_in_camel_case
    SvcSandbox.session(seed: 1, start_time: "2026-03-01T09:00:00Z", webhook_timeout: "2s") do |s|
      assert_equal({ "id" => s.id, "seed" => 1, "now" => "2026-03-01T09:00:00.000Z" }, s.info)
    end
    error = assert_raises(SvcSandbox::Error) { SvcSandbox.session(colour: "blue") }
    assert_equal 400, error.status
    assert_includes error.message, "create a session: 400"
    assert_includes error.message, "colour"
  end

  def test_the_block_form_returns_its_value_and_closes_the_session_however_it_ends
    kept = nil
    value = SvcSandbox.session(seed: 3) do |s|
      kept = s
      :done
    end
    assert_equal :done, value
    assert kept.closed?
    assert_equal 401, api(kept, "GET", "/v1/calls").first

    assert_raises(ZeroDivisionError) do
      SvcSandbox.session { |s| (kept = s) && 1 / 0 }
    end
    assert kept.closed?
    assert_equal 404, assert_raises(SvcSandbox::Error) { SvcSandbox.server.call("GET", "/sessions/#{kept.id}", operation: "look") }.status
  end

  def test_a_closed_session_says_so_and_closing_again_does_nothing
    s = SvcSandbox.session
    s.close
    assert_nil s.close

    error = assert_raises(SvcSandbox::Error) { s.advance("1s") }
    assert_equal "session_closed", error.code
    assert_includes error.message, "advance on session #{s.id}: the session is closed"
    assert_equal "session_closed", assert_raises(SvcSandbox::Error) { s.events }.code
  end

  def test_the_server_lists_its_sessions_and_their_coverage
    ids = SvcSandbox.server.sessions.map { |s| s["id"] }

    assert_includes ids, @s.id
    assert_includes ids, "default"
    assert_kind_of Hash, SvcSandbox.server.coverage
  end
end
