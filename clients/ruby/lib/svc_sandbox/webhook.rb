# frozen_string_literal: true

require "openssl"

module SvcSandbox
  # Checks a webhook's `X-Service-Signature`: the lowercase hex HMAC-SHA256 of the exact raw
  # body, keyed with the subscription's whole `whsec_…` secret (docs/webhooks.md). Pass the
  # bytes as received, before any JSON parsing: a re-encoded body has another signature.
  # The comparison takes the same time whatever the signature holds.
  #
  # @param body [String] the raw request body
  # @param signature [String, nil] the `X-Service-Signature` header
  # @param secret [String] the subscription's secret (from `POST /v1/webhooks`)
  # @return [Boolean]
  # @example
  #   SvcSandbox.verify_webhook(request.body.read, request.get_header("HTTP_X_SERVICE_SIGNATURE"), secret) # => true
  def self.verify_webhook(body, signature, secret)
    return false unless body.is_a?(String) && signature.is_a?(String) && secret.is_a?(String) && !secret.empty?

    expected = OpenSSL::HMAC.hexdigest("SHA256", secret, body)
    # fixed_length_secure_compare raises on a length mismatch, and a length says nothing secret.
    return false unless signature.bytesize == expected.bytesize

    OpenSSL.fixed_length_secure_compare(expected, signature)
  end
end
