# The service's Ruby SDK, in miniature: what your SDK does against the API, standard library only.
#
# Point your real SDK at the session's `base_url` with its `api_key`, as this does. It also backs
# off the way the real SDKs do: a 429 or 503 is retried after the Retry-After seconds, with
# Kernel#sleep, which `sandbox.fake_sleep { ... }` turns into virtual time.
require "json"
require "net/http"
require "uri"

class ApiClient
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

  RETRIED = [429, 503].freeze

  def initialize(base_url, api_key, retries: 0)
    @base_url = base_url
    @api_key = api_key
    @retries = retries
  end

  def request(method, path, body = nil)
    (0..@retries).each do |attempt|
      answer = send_once(method, path, body)
      return answer unless RETRIED.include?(answer.status) && attempt < @retries

      sleep(Integer(answer.headers.fetch("retry-after", ["1"]).first))
    end
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

  private

  def send_once(method, path, body)
    uri = URI(@base_url + path)
    request = Net::HTTPGenericRequest.new(method, !body.nil?, true, uri.request_uri)
    request["Authorization"] = "Bearer #{@api_key}"
    request["Accept"] = "application/json"
    unless body.nil?
      request["Content-Type"] = "application/json"
      request.body = JSON.generate(body)
    end
    # The server is on loopback: nil as the proxy address ignores an HTTP_PROXY in the environment.
    answer = Net::HTTP.start(uri.host, uri.port, nil, read_timeout: 30) { |connection| connection.request(request) }
    Response.new(answer.code.to_i, answer.to_hash, answer.body)
  end
end
