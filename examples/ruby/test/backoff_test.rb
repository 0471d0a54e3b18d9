require "test_helper"

# The SDK's back-off, tested on virtual time: inside `sandbox.fake_sleep`, Kernel#sleep moves
# the session's clock instead of waiting, so a Retry-After of a minute costs no real minute.
class BackoffTest < SandboxTest
  def retrying_api
    ApiClient.new(sandbox.base_url, sandbox.api_key, retries: 3)
  end

  def test_an_outage_with_retry_after_is_retried_after_that_long_in_virtual_time
    sandbox.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 60) # the next call placed fails

    created = sandbox.fake_sleep { retrying_api.create_call("+14155550123") }

    assert_equal 201, created.status, created
    assert_equal Time.utc(2026, 1, 1, 0, 1), sandbox.now # slept exactly the 60 s it was told
    assert_equal [503, 201], sandbox.requests.map { |r| r["status"] }
  end

  def test_the_101st_request_of_a_second_waits_for_the_next_window
    client = retrying_api
    answers = sandbox.fake_sleep { Array.new(101) { client.create_call("+14155550123") } }

    assert_equal [201], answers.map(&:status).uniq # a standard key: 100 requests a second
    assert_equal [201] * 100 + [429, 201], sandbox.requests.map { |r| r["status"] }
    assert_equal Time.utc(2026, 1, 1, 0, 0, 1), sandbox.now # Retry-After: 1, slept on virtual time
  end
end
