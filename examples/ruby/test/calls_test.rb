require "test_helper"

# A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so.
class CallsTest < SandboxTest
  def test_a_call_rings_is_answered_and_completes
    created = api.create_call("+14155550123")

    assert_equal 201, created.status, created
    call = created.json
    assert_match(/\Acall_[0-9A-Za-z]{16}\z/, call["id"])
    assert_equal "ringing", call["status"]

    # Any ordinary number rings 5 s, is answered, and talks 60 s.
    moved = sandbox.advance("65s")

    assert_equal "2026-01-01T00:01:05.000Z", moved["now"]
    assert_equal %w[call.answered call.completed], moved["events"].map { |e| e["type"] }
    done = api.get_call(call["id"]).json
    assert_equal %w[completed answered], done.values_at("status", "disposition")
    assert_equal 60, done["duration"]
  end

  def test_the_magic_numbers_of_the_simulated_network
    unreachable = api.create_call("+15005550001")
    assert_equal [422, "unreachable_destination"], [unreachable.status, unreachable.error["code"]]

    busy = api.create_call("+15005550002").json
    no_answer = api.create_call("+15005550003").json
    sandbox.advance("30s")

    assert_equal "busy", api.get_call(busy["id"]).json["disposition"]
    assert_equal "no_answer", api.get_call(no_answer["id"]).json["disposition"]
  end

  def test_a_bad_body_is_400_naming_the_field
    answer = api.create_call("4155550123")

    assert_equal 400, answer.status
    assert_equal %w[invalid_parameter to], answer.error.values_at("code", "param")
    refute_nil answer.headers["x-request-id"]
  end

  def test_sessions_with_the_same_seed_give_the_same_ids_and_keep_their_own_time
    SvcSandbox.session(seed: SEED) do |twin| # closed when the block ends
      twin_api = ApiClient.new(twin.base_url, twin.api_key)
      mine = api.create_call("+14155550123").json
      theirs = twin_api.create_call("+14155550123").json
      assert_equal mine["id"], theirs["id"]

      sandbox.advance("65s")

      assert_equal "completed", api.get_call(mine["id"]).json["status"]
      assert_equal "ringing", twin_api.get_call(theirs["id"]).json["status"]
    end
  end
end
