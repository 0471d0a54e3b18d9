# frozen_string_literal: true

require "rspec/core"
require "svc_sandbox"
require "svc_sandbox/per_test"

module SvcSandbox
  # A fresh session per example for RSpec: `require "svc_sandbox/rspec"` (in spec_helper.rb)
  # gives every example a `sandbox` helper, a {Session} made at its first use and closed after
  # the example. `sandbox_options seed: 7` in an example group sets the options of its sessions
  # (nested groups inherit and may add to them). With SVC_SANDBOX_SNAPSHOTS=DIR set, a failed
  # example's session is first saved to DIR/<example>.json, and the command that opens it is
  # printed with the failure.
  #
  # @example
  #   require "svc_sandbox/rspec"
  #
  #   RSpec.describe "calls" do
  #     sandbox_options seed: 42
  #
  #     it "completes a call" do
  #       expect(sandbox.trigger("call.completed")["type"]).to eq("call.completed")
  #     end
  #   end
  module RSpec
    include PerTest

    ::RSpec.configure do |config|
      config.include self
      config.extend PerTest::ClassMethods
      config.after do |example|
        note = svc_sandbox_finish(example.full_description, !example.exception.nil?)
        (example.metadata[:extra_failure_lines] ||= []) << note if note
      end
    end
  end
end
