require "test_helper"

# Webhooks over real HTTP: the sandbox server POSTs signed events to a receiver in this process.
class WebhooksTest < SandboxTest
  CALL_EVENTS = %w[call.started call.answered call.completed].freeze

  def setup
    super
    @receiver = WebhookReceiver.new.start
  end

  def teardown
    @receiver.stop
    super
  end

  def subscribe(events)
    subscribed = api.subscribe(@receiver.url, events)
    assert_equal 201, subscribed.status, subscribed
    subscribed.json
  end

  def test_events_arrive_signed_and_the_signature_verifies_in_ruby
    subscription = subscribe(CALL_EVENTS)
    assert subscription["secret"].start_with?("whsec_")

    call = api.create_call("+14155550123").json
    sandbox.advance("65s")

    requests = @receiver.wait_for(3)
    requests.each do |request|
      # Verify the exact raw bytes first, then parse them.
      assert SvcSandbox.verify_webhook(request.body, request.headers["x-service-signature"], subscription["secret"])
      event = JSON.parse(request.body)
      assert_equal "/hooks", request.path
      assert_equal "application/json", request.headers["content-type"]
      assert_equal [event["id"], event["type"], "1"], request.headers.values_at("x-service-event-id", "x-service-event-type", "x-service-delivery-attempt")
      assert_equal call["id"], event["data"]["id"]
    end
    assert_equal CALL_EVENTS, requests.map { |r| JSON.parse(r.body)["type"] }
  end

  def test_a_tampered_body_or_a_wrong_secret_does_not_verify
    subscription = subscribe(["call.completed"])
    api.create_call("+14155550123")
    sandbox.advance("65s")

    request, = @receiver.wait_for(1)
    signature = request.headers["x-service-signature"]

    assert_match(/\A[0-9a-f]{64}\z/, signature)
    assert SvcSandbox.verify_webhook(request.body, signature, subscription["secret"])
    refute SvcSandbox.verify_webhook("#{request.body} ", signature, subscription["secret"])
    refute SvcSandbox.verify_webhook(request.body, signature, "whsec_not_the_secret")
    refute SvcSandbox.verify_webhook(request.body, signature.upcase, subscription["secret"])
  end

  def test_a_failing_receiver_is_retried_for_a_day_then_dead_lettered_and_replayed
    @receiver.status = 500
    subscribe(["call.completed"])
    api.create_call("+14155550123")

    sandbox.advance("25h") # 30 s, 1 m, 2 m, ... doubling, the last 24 h after the first attempt

    dead, = sandbox.dead_letters
    assert_equal "call.completed", dead["eventType"]
    assert_equal 13, dead["attempts"].size
    assert(dead["attempts"].all? { |a| !a["ok"] && a["status"] == 500 })
    failed = @receiver.wait_for(12)
    assert_equal (1..13).map(&:to_s), failed.map { |r| r.headers["x-service-delivery-attempt"] }

    # The receiver is fixed: replay the dead letter from the control API.
    @receiver.status = 200
    attempts = sandbox.replay(dead["id"])

    assert_equal [[1, true, 200]], attempts.map { |a| a.values_at("attempt", "ok", "status") }
    replayed = @receiver.wait_for(13).last
    assert_equal dead["eventId"], replayed.headers["x-service-event-id"] # de-duplicate on it
    assert_equal failed.first.body, replayed.body # the same bytes
    assert_empty sandbox.dead_letters
  end
end
