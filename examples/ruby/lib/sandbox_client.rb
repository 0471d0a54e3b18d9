# A tiny client for the svc-sandbox server, standard library only (Net::HTTP, JSON, OpenSSL).
#
# It stands in for the service's Ruby SDK: SandboxClient::Api is what your SDK does against
# SVC_API_BASE_URL, SandboxClient::Session drives the sandbox itself through the control API
# under SVC_SANDBOX_URL (its virtual clock, webhook queues). Both URLs are set by
# `npx svc-sandbox exec -- rake test`.
require "json"
require "net/http"
require "openssl"
require "uri"

module SandboxClient
  API_BASE_URL = ENV.fetch("SVC_API_BASE_URL", "http://127.0.0.1:12111")
  SANDBOX_URL = ENV.fetch("SVC_SANDBOX_URL", "#{API_BASE_URL}/__sandbox")

  # Status, headers and JSON body of one answer (errors are answers too, not exceptions).
  Response = Struct.new(:status, :headers, :raw) do
    def json
      raw.nil? || raw.empty? ? nil : JSON.parse(raw)
    end

    # The error object {"code", "message", "param"}, or nil.
    def error
      (json || {})["error"]
    end

    def to_s
      "#{status} #{raw}"
    end
  end

  # One request; a body is sent as JSON, with Content-Type: application/json.
  def self.http(method, url, body = nil, headers = {})
    uri = URI(url)
    request = Net::HTTPGenericRequest.new(method, !body.nil?, true, uri.request_uri)
    request["Accept"] = "application/json"
    unless body.nil?
      request["Content-Type"] = "application/json"
      request.body = JSON.generate(body)
    end
    headers.each { |name, value| request[name] = value }
    # The server is on loopback: nil as the proxy address ignores an HTTP_PROXY in the environment.
    answer = Net::HTTP.start(uri.host, uri.port, nil, read_timeout: 30) { |connection| connection.request(request) }
    Response.new(answer.code.to_i, answer.to_hash, answer.body)
  end

  # The Voice and Messaging API with one key: what the SDK would do.
  class Api
    def initialize(api_key, base_url = API_BASE_URL)
      @api_key = api_key
      @base_url = base_url
    end

    def request(method, path, body = nil)
      SandboxClient.http(method, @base_url + path, body, "Authorization" => "Bearer #{@api_key}")
    end

    def create_call(to, from: "+14155550100", **fields)
      request("POST", "/v1/calls", { to: to, from: from, **fields })
    end

    def get_call(id)
      request("GET", "/v1/calls/#{id}")
    end

    def subscribe(url, events)
      request("POST", "/v1/webhooks", { url: url, events: events })
    end
  end

  # One sandbox session of the server: its own virtual clock, seed, ids and queues.
  class Session
    attr_reader :id, :api_key

    def self.create(seed: nil)
      answer = SandboxClient.http("POST", "#{SANDBOX_URL}/sessions", seed.nil? ? {} : { seed: seed })
      raise "POST /sessions: #{answer}" unless answer.status == 201

      new(answer.json["id"], answer.json["apiKey"])
    end

    def initialize(id, api_key)
      @id = id
      @api_key = api_key # routes to this session on the same /v1 base URL
      @url = "#{SANDBOX_URL}/sessions/#{id}"
    end

    # A control API request below /__sandbox/sessions/{id}, checked for `status`.
    def control(method, path = "", body = nil, status: 200)
      answer = SandboxClient.http(method, @url + path, body)
      raise "#{method} #{path}: #{answer}" unless answer.status == status

      answer.json
    end

    # Moves virtual time; answers once everything due has settled (webhook attempts included),
    # with {"now", "events"}: the events emitted during it.
    def advance(duration)
      control("POST", "/advance", { duration: duration })
    end

    def events
      control("GET", "/events?limit=200")["data"]
    end

    def dead_letters
      control("GET", "/dead-letters?limit=200")["data"]
    end

    # Replays a dead letter now; returns the attempts it made.
    def replay(dead_letter_id)
      control("POST", "/dead-letters/#{dead_letter_id}/replay")["data"]
    end

    def delete
      control("DELETE", status: 204)
    end
  end

  # The SDK's webhook check: X-Service-Signature is the lowercase hex HMAC-SHA256 of the raw
  # body, keyed with the whole whsec_… secret. Verify the exact bytes received before parsing
  # them, and compare in constant time.
  def self.verify_webhook(raw_body, signature, secret)
    expected = OpenSSL::HMAC.hexdigest("SHA256", secret, raw_body)
    OpenSSL.secure_compare(expected, signature.to_s)
  end
end
