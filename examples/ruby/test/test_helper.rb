require "minitest/autorun"
require "sandbox_client"
require "webhook_receiver"

# Per-test isolation: every test gets a session of its own, so tests never share time or state.
class SandboxTest < Minitest::Test
  SEED = 42 # same seed + same requests = same ids, so failures reproduce

  def setup
    @session = SandboxClient::Session.create(seed: SEED) # POST /__sandbox/sessions {seed}
    @api = SandboxClient::Api.new(@session.api_key)      # its key routes to this session on /v1
  end

  def teardown
    @session.delete # DELETE /__sandbox/sessions/{id}: its keys are 401 from now on
  end
end
