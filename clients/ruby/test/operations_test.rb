# frozen_string_literal: true

require "test_helper"

# The control layer is generated from the served control document: every control operation
# (clients/control-operations.json, written by scripts/generate-clients.mjs) is a method of
# SvcSandbox::Control, or is excluded by name with a reason.
class OperationsTest < Minitest::Test
  include Support

  OPERATIONS_JSON = File.expand_path("../../control-operations.json", __dir__)

  def operations
    JSON.parse(File.read(OPERATIONS_JSON))
  end

  def test_every_control_operation_maps_to_a_method_or_an_excluded_reason
    names = SvcSandbox::Operations::OPERATIONS
    excluded = SvcSandbox::Operations::EXCLUDED
    assert_operator operations.size, :>=, 50

    operations.each do |operation|
      id = operation.fetch("operationId")
      if excluded.key?(id)
        assert_operator excluded[id].length, :>, 20, "#{id} is excluded without a reason"
        refute names.key?(id), "#{id} is both excluded and mapped"
        next
      end

      name = names[id]
      assert name, "#{id} (#{operation["method"]} #{operation["path"]}) has no method and no excluded reason"
      assert SvcSandbox::Control.public_method_defined?(name), "#{id} maps to #{name}, which SvcSandbox::Control lacks"
      positional = SvcSandbox::Control.instance_method(name).parameters.select { |kind, _| %i[req opt].include?(kind) }
      assert_equal operation["pathParams"].size + (operation["body"] ? 1 : 0), positional.size, "#{name}'s arguments"
      keywords = SvcSandbox::Control.instance_method(name).parameters.select { |kind, _| kind == :key }.map(&:last)
      assert_equal(operation["query"].map { |q| q.gsub(/([a-z])([A-Z])/, '\1_\2').downcase.to_sym } + [:operation], keywords)
    end
    assert_equal operations.map { |o| o["operationId"] }.sort, (names.keys + excluded.keys).sort, "a stale operation in the generated table"
  end

  def test_only_the_console_and_its_stream_are_excluded
    assert_equal %w[consoleRecordingAudio getConsole streamSession], SvcSandbox::Operations::EXCLUDED.keys.sort
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
