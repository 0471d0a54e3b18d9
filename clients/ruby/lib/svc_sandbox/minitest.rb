# frozen_string_literal: true

require "svc_sandbox"
require "svc_sandbox/per_test"

module SvcSandbox
  # A fresh session per test for Minitest.
  #
  # `include SvcSandbox::Minitest` in a `Minitest::Test` gives `sandbox`: a {Session} made at
  # its first use in a test (a test that never calls it costs nothing) and closed after the
  # test's own `teardown`, in `after_teardown`. `sandbox_options seed: 7` at the class level
  # sets the options of its sessions (subclasses inherit and may add to them). With
  # SVC_SANDBOX_SNAPSHOTS=DIR set, a failed test's session is first saved to DIR/<test>.json
  # and the command that opens it is printed.
  #
  # @example
  #   require "minitest/autorun"
  #   require "svc_sandbox"
  #
  #   class CallsTest < Minitest::Test
  #     include SvcSandbox::Minitest
  #     sandbox_options seed: 42
  #
  #     def test_a_trigger_makes_the_event
  #       assert_equal "call.completed", sandbox.trigger("call.completed")["type"]
  #     end
  #   end
  module Minitest
    include PerTest

    def self.included(base)
      super
      base.extend(PerTest::ClassMethods)
    end

    # Closes the test's session after the test's own teardown.
    def after_teardown
      note = svc_sandbox_finish("#{self.class.name}##{name}", !passed? && !skipped?)
      warn(note) if note
    ensure
      super
    end
  end
end
