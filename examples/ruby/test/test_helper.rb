require "minitest/autorun"
begin
  require "svc_sandbox"
rescue LoadError
  abort "The svc_sandbox gem is not installed: in clients/ruby of the svc-sandbox repository, " \
        "`gem build svc_sandbox.gemspec && gem install --local svc_sandbox-*.gem` (clients/ruby/README.md)."
end
require "api_client"
require "webhook_receiver"

# Per-test isolation: `sandbox` is a session of the test's own (made at its first use, closed
# after the test), so tests never share time or state. Under `svc-sandbox exec` it lives on
# exec's server; otherwise the gem starts one server for the whole run.
class SandboxTest < Minitest::Test
  include SvcSandbox::Minitest

  SEED = 42 # same seed + same requests = same ids, so failures reproduce
  sandbox_options seed: SEED

  # The SDK, pointed at the session: its key routes to this session on the server's /v1.
  def api
    @api ||= ApiClient.new(sandbox.base_url, sandbox.api_key)
  end
end
