# frozen_string_literal: true

require "json"
require "rbconfig"
require "tmpdir"
require "svc_sandbox/rspec"

# `require "svc_sandbox/rspec"`, as a spec_helper.rb does it: `sandbox` in every example.
RSpec.describe SvcSandbox::RSpec do
  sandbox_options seed: 11
  seen = []

  after(:context) do
    expect(seen.size).to eq(2)
    expect(seen).to all(be_closed)
  end

  it "gives each example a session of its own, with the group's options" do
    seen << sandbox
    expect(sandbox).to equal(seen.last)
    expect(sandbox.info["seed"]).to eq(11)
    expect(sandbox.advance("65s")["now"]).to eq("2026-01-01T00:01:05.000Z")
  end

  context "in a nested group" do
    sandbox_options start_time: "2026-06-01T00:00:00Z"

    it "inherits the outer group's options and adds its own" do
      seen << sandbox
      expect(sandbox.info.values_at("seed", "now")).to eq([11, "2026-06-01T00:00:00.000Z"])
    end
  end

  it "prints where a failed example's session was saved, with the failure" do
    lib = File.dirname($LOADED_FEATURES.grep(%r{/svc_sandbox\.rb\z}).first)
    Dir.mktmpdir do |dir|
      spec = File.join(dir, "failing_spec.rb")
      File.write(spec, <<~RUBY)
        require "svc_sandbox/rspec"
        RSpec.describe "a call" do
          it "fails on purpose" do
            sandbox.advance("3s")
            expect(1).to eq(2)
          end
        end
      RUBY
      env = { "SVC_SANDBOX_SNAPSHOTS" => File.join(dir, "snaps") }
      runner = 'require "rspec/core"; exit RSpec::Core::Runner.run(ARGV)'
      log = File.join(dir, "log")
      pid = Process.spawn(env, RbConfig.ruby, "-I", lib, "-e", runner, spec, "--no-color", %i[out err] => log)
      status = Process.detach(pid).join(60)&.value
      Process.kill("KILL", pid) unless status
      output = File.read(log)
      expect(status).not_to be_nil, "rspec did not end within 60 s:\n#{output}"

      path = File.join(dir, "snaps", "a_call_fails_on_purpose.json")
      expect(status.exitstatus).to eq(1), output
      expect(output).to include("1 example, 1 failure")
      expect(output).to include("open it with: #{File.expand_path(ENV.fetch("SVC_SANDBOX_BIN"))} show #{path}")
      expect(JSON.parse(File.read(path))["now"]).to eq("2026-01-01T00:00:03.000Z")
    end
  end
end
