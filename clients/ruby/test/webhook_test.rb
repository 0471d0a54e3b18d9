# frozen_string_literal: true

require "test_helper"

# SvcSandbox.verify_webhook: the lowercase hex HMAC-SHA256 of the raw body, compared in constant time.
class WebhookTest < Minitest::Test
  include Support

  SECRET = "whsec_test_secret"
  BODY = '{"id":"evt_1","type":"call.completed","data":{"id":"call_1"}}'

  def sign(body, secret = SECRET)
    OpenSSL::HMAC.hexdigest("SHA256", secret, body)
  end

  def test_the_right_signature_verifies
    assert_equal true, SvcSandbox.verify_webhook(BODY, sign(BODY), SECRET)
    assert_equal true, SvcSandbox.verify_webhook(BODY.b, sign(BODY), SECRET) # bytes as a socket gives them
  end

  def test_anything_else_does_not
    signature = sign(BODY)

    refute SvcSandbox.verify_webhook("#{BODY} ", signature, SECRET)
    refute SvcSandbox.verify_webhook(BODY, signature, "whsec_another")
    refute SvcSandbox.verify_webhook(BODY, signature.upcase, SECRET)
    refute SvcSandbox.verify_webhook(BODY, signature[0, 63], SECRET)
    refute SvcSandbox.verify_webhook(BODY, "sha256=#{signature}", SECRET)
    refute SvcSandbox.verify_webhook(BODY, nil, SECRET)
    refute SvcSandbox.verify_webhook(BODY, signature, "")
    refute SvcSandbox.verify_webhook(nil, signature, SECRET)
  end

  def test_a_webhook_the_server_sent_verifies_with_its_subscriptions_secret
    receiver = Receiver.new
    SvcSandbox.session(seed: 4) do |s|
      _, subscription, = api(s, "POST", "/v1/webhooks", { url: receiver.url, events: ["call.completed"] })
      s.trigger("call.completed")
      request = receiver.requests.pop(true) # delivered before trigger answers: never waits

      assert SvcSandbox.verify_webhook(request[:body], request[:signature], subscription["secret"])
      refute SvcSandbox.verify_webhook(request[:body].sub("completed", "answered"), request[:signature], subscription["secret"])
    end
  ensure
    receiver&.stop
  end
end
