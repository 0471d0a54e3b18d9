# frozen_string_literal: true

require "test_helper"

# The control layer is generated from the served control document: every control operation
# (clients/control-operations.json, written by scripts/generate-clients.mjs) is a method of
# SvcSandbox::Control: none is left out.
class OperationsTest < Minitest::Test
  include Support

  OPERATIONS_JSON = File.expand_path("../../control-operations.json", __dir__)

  def operations
    JSON.parse(File.read(OPERATIONS_JSON))
  end

  def test_every_control_operation_maps_to_a_method
    names = SvcSandbox::Operations::OPERATIONS
    assert_operator operations.size, :>=, 50

    operations.each do |operation|
      id = operation.fetch("operationId")
      name = names[id]
      assert name, "#{id} (#{operation["method"]} #{operation["path"]}) has no method"
      assert SvcSandbox::Control.public_method_defined?(name), "#{id} maps to #{name}, which SvcSandbox::Control lacks"
      positional = SvcSandbox::Control.instance_method(name).parameters.select { |kind, _| %i[req opt].include?(kind) }
      assert_equal operation["pathParams"].size + (operation["body"] ? 1 : 0), positional.size, "#{name}'s arguments"
      keywords = SvcSandbox::Control.instance_method(name).parameters.select { |kind, _| kind == :key }.map(&:last)
      bounds = operation["contentType"] == "text/event-stream" ? %i[max_events timeout] : []
      assert_equal(operation["query"].map { |q| q.gsub(/([a-z])([A-Z])/, '\1_\2').downcase.to_sym } + bounds + [:operation], keywords)
    end
    assert_equal operations.map { |o| o["operationId"] }.sort, names.keys.sort, "a stale operation in the generated table"
  end

  def test_no_operation_is_excluded
    refute SvcSandbox::Operations.const_defined?(:EXCLUDED)
    %w[getConsole consoleRecordingAudio streamSession getOpenApi30].each { |id| assert SvcSandbox::Operations::OPERATIONS[id] }
  end

  def test_the_console_page_its_reads_and_a_missing_recordings_audio
    SvcSandbox.session(seed: 4) do |s|
      control = s.control
      assert_match(/<html/i, control.get_console)
      %i[console_calls console_messages console_numbers console_recordings console_transcripts console_subscriptions
         console_deliveries].each do |read|
        assert_equal false, control.public_send(read, s.id, limit: 2)["has_more"], read.to_s
      end
      error = assert_raises(SvcSandbox::Error) { control.console_recording_audio(s.id, "rec_missing") }
      assert_equal 404, error.status
      assert_equal "3.0", control.get_open_api30["openapi"][0, 3]
    end
  end

  def test_the_stream_opens_with_a_change_frame_and_carries_the_events_of_a_trigger
    SvcSandbox.session(seed: 5) do |s|
      first, = s.control.stream_session(s.id, max_events: 1, timeout: 10)
      assert_equal "change", first["event"]
      assert_equal [], first["data"]["changes"]

      made = s.trigger("call.completed")
      seen = []
      s.control.stream_session(s.id, timeout: 10) do |frame|
        seen << frame
        break if frame["event"] == "event" && frame["data"]["id"] == made["id"]
      end
      events = seen.select { |frame| frame["event"] == "event" }
      assert_equal "1", events.first["id"]
      assert_equal made["id"], events.last["data"]["id"]
    end
  end

  def test_the_stream_ends_at_its_timeout_with_what_it_read
    SvcSandbox.session(seed: 6) do |s|
      # Nothing happened in the session: only changes (another session's end is one of the server's).
      assert_equal ["change"], s.control.stream_session(s.id, timeout: 0.5).map { |frame| frame["event"] }.uniq
      error = assert_raises(SvcSandbox::Error) { s.control.stream_session("ses_missing", max_events: 1) }
      assert_equal 404, error.status
      assert_raises(ArgumentError) { s.control.stream_session(s.id, max_events: 0) }
    end
  end

  def test_the_generated_methods_reach_the_server
    SvcSandbox.session(seed: 3) do |s|
      control = s.control
      control.set_behavior(s.id, "+14155550123", { outcome: "busy" })
      created = api(s, "POST", "/v1/calls", { to: "+14155550123", from: "+14155550100" })[1]
      s.advance("10s")
      assert_equal "busy", control.inspect_call(s.id, created["id"])["disposition"]

      page = control.list_events(s.id, limit: 1)
      assert_equal 1, page["data"].size
      assert_equal s.events, control.all(:list_events, s.id)
      assert_equal "ok", control.health["status"]
      assert_includes control.all(:list_sessions).map { |x| x["id"] }, s.id
      assert_kind_of Hash, control.get_open_api["paths"]
    end
  end
end
