# frozen_string_literal: true

require "json"
require "net/http"
require "shellwords"
require "timeout"
require "uri"
require "svc_sandbox/errors"
require "svc_sandbox/child"
require "svc_sandbox/control"

module SvcSandbox
  # A svc-sandbox server: one this process started, or one it connects to (under
  # `svc-sandbox exec`). Most suites never touch it: {SvcSandbox.session} uses the process's
  # one server, {SvcSandbox.server}.
  #
  # @example One server of your own, stopped when you say so
  #   server = SvcSandbox::Server.start(url: nil, args: ["--webhook-timeout", "2s"])
  #   server.session(seed: 7) { |s| s.advance("1m") }
  #   server.stop
  class Server
    # Raised inside a call when its whole deadline has passed.
    Deadline = Class.new(StandardError)
    private_constant :Deadline

    # Real seconds a control call may take (SVC_SANDBOX_TIMEOUT overrides it).
    DEFAULT_TIMEOUT = 60
    # Real seconds a server of our own has to print its ready line (SVC_SANDBOX_START_TIMEOUT).
    DEFAULT_START_TIMEOUT = 30
    # The most bytes a control answer may have (64 MiB): a larger one is refused, not read.
    MAX_ANSWER_BYTES = 64 * 1024 * 1024
    CONTROL_PATH = "/__sandbox"

    # @return [String] `http://HOST:PORT`: the API is under `/v1`, the control API under `/__sandbox`
    attr_reader :url
    # @return [String] `http://HOST:PORT/__sandbox`
    attr_reader :control_url
    # @return [Numeric] real seconds a control call may take
    attr_reader :timeout

    class << self
      # The server to use, found as every svc-sandbox helper finds it: with a `url` (by default
      # SVC_SANDBOX_URL, which `svc-sandbox exec` sets) it connects there; without one it starts
      # `svc-sandbox serve --port 0` from SVC_SANDBOX_BIN, else `svc-sandbox` on PATH, else
      # `npx --no-install svc-sandbox`, and stops it when this process ends.
      #
      # @param url [String, nil] a running server's control URL; nil starts a server
      # @param args [Array<String>] more `serve` flags for a server started here
      # @param timeout [Numeric, nil] real seconds a control call may take (default SVC_SANDBOX_TIMEOUT, else 60)
      # @param start_timeout [Numeric, nil] real seconds to wait for the ready line (default SVC_SANDBOX_START_TIMEOUT, else 30)
      # @return [Server]
      # @raise [ConnectionError, TimeoutError, ServerStartError]
      # @example
      #   server = SvcSandbox::Server.start
      #   server.url # => "http://127.0.0.1:40123"
      def start(url: ENV["SVC_SANDBOX_URL"], args: [], timeout: nil, start_timeout: nil)
        timeout ||= env_seconds("SVC_SANDBOX_TIMEOUT", DEFAULT_TIMEOUT)
        unless url.nil? || url.empty?
          source = url == ENV["SVC_SANDBOX_URL"] ? "SVC_SANDBOX_URL=#{url}" : url
          return connect(url, timeout: timeout, source: source)
        end

        child = Child.start(args: args, start_timeout: start_timeout || env_seconds("SVC_SANDBOX_START_TIMEOUT", DEFAULT_START_TIMEOUT))
        new(child.url, timeout: timeout, source: "the svc-sandbox server this process started", child: child)
      end

      # Connects to a running server and checks that it answers (`GET /__sandbox/health`).
      #
      # @param url [String] its control URL, `http://HOST:PORT/__sandbox` (or just `http://HOST:PORT`)
      # @return [Server]
      # @example
      #   SvcSandbox::Server.connect("http://127.0.0.1:12111/__sandbox")
      def connect(url, timeout: nil, source: url)
        uri = begin
          URI.parse(url)
        rescue URI::InvalidURIError
          nil
        end
        unless uri.is_a?(URI::HTTP) && uri.host && ["", "/", CONTROL_PATH, "#{CONTROL_PATH}/"].include?(uri.path)
          raise Error.new(
            "#{source}: not a svc-sandbox control URL. Give http://HOST:PORT/__sandbox, as `svc-sandbox exec` sets SVC_SANDBOX_URL.",
            code: "invalid_argument",
          )
        end
        server = new("#{uri.scheme}://#{uri.host}:#{uri.port}",
                     timeout: timeout || env_seconds("SVC_SANDBOX_TIMEOUT", DEFAULT_TIMEOUT), source: source)
        server.control.health(operation: "check the server")
        server
      end

      private

      def env_seconds(name, default)
        raw = ENV[name]
        return default if raw.nil? || raw.strip.empty?

        value = Float(raw, exception: false)
        return value if value&.positive? && value.finite?

        raise Error.new("#{name} must be a positive number of seconds (got #{raw.inspect}).", code: "invalid_argument")
      end
    end

    # Use {Server.start} or {Server.connect}.
    def initialize(url, timeout:, source:, child: nil)
      @url = url
      @control_url = url + CONTROL_PATH
      @timeout = timeout
      @source = source
      @child = child
    end

    # @return [Integer, nil] the process id of a server this process started; nil for one it connected to
    def pid
      @child&.pid
    end

    # A new session of this server: a sandbox of its own (docs/ruby.md). With a block, yields it,
    # closes it after, and returns the block's value.
    #
    # @see SvcSandbox.session
    def session(**options, &block)
      Session.open(self, **options, &block)
    end

    # @return [Array<Hash>] the server's live sessions, `{"id", "seed", "now"}`, oldest first
    def sessions
      list(:list_sessions, operation: "list sessions")
    end

    # @return [Hash] the union of every session's coverage, deleted ones included (docs/coverage.md)
    def coverage
      control.get_server_coverage(operation: "read the server's coverage")
    end

    # The command that opens a snapshot file in the console, as a user's shell runs it: the
    # executable's full path when the server came from SVC_SANDBOX_BIN or PATH, else
    # `npx svc-sandbox show FILE`.
    #
    # @param path [String] the snapshot's file
    # @return [String]
    # @example
    #   SvcSandbox.server.show_command("snapshots/CallsTest_test_busy.json")
    #   # => "/opt/svc-sandbox show snapshots/CallsTest_test_busy.json"
    def show_command(path)
      "#{@child ? @child.shell_command : Child.shell_command} show #{Shellwords.escape(path)}"
    end

    # Stops a server this process started (bounded: it is killed if it lingers); does nothing to
    # one it connected to. A server of its own is stopped when the process ends anyway.
    def stop
      @child&.stop
      nil
    end

    def inspect
      "#<#{self.class} #{@url} #{@child ? "pid #{@child.pid} from #{@child.source}" : "connected to #{@source}"}>"
    end
    alias to_s inspect

    # Every control operation, one method each (generated from the served control document).
    #
    # @param timeout [Numeric, nil] real seconds per call (default: the server's)
    # @return [Control]
    # @example
    #   SvcSandbox.server.control.get_session(s.id)["now"]
    def control(timeout: nil)
      Control.new(self, timeout: timeout)
    end

    # One control call: the decoded JSON answer (nil for 204), or an {Error}.
    #
    # It trusts the server no more than it must: `timeout` bounds the whole call (connect,
    # headers and the whole body, however slowly they come), an answer larger than
    # MAX_ANSWER_BYTES is refused once that much has been read, and a redirect is an error (a
    # control call is never sent anywhere but the server's own origin).
    #
    # @api private
    def call(method, path, body = nil, operation:, session: nil, timeout: @timeout, query: nil, expect: :json)
      path += "?#{URI.encode_www_form(query)}" if query && !query.empty?
      request_line = "#{method} #{CONTROL_PATH}#{path}"
      what = describe(operation, session)
      status, raw, location = Timeout.timeout(timeout, Deadline) { exchange(method, path, body, timeout, what) }
      if status.between?(300, 399)
        raise Error.new("#{what}: #{@url} answered #{status} redirecting to #{location.inspect} (#{request_line}); a control call " \
                        "follows no redirect: point SVC_SANDBOX_URL at the svc-sandbox server itself.",
                        status: status, code: "redirect_refused")
      end
      return raw if expect == :text && status < 300
      return raw.b if expect == :bytes && status < 300

      decode(status, raw, request_line, what)
    rescue Deadline, Net::OpenTimeout, Net::ReadTimeout, Net::WriteTimeout
      raise TimeoutError.new(
        "#{what}: no answer from #{@url} within #{timeout} s (#{request_line}). " \
        "A control call may take at most SVC_SANDBOX_TIMEOUT seconds in all (default #{DEFAULT_TIMEOUT}; per session: " \
        "SvcSandbox.session(timeout: 120)); an advance whose webhooks go to receivers that hang takes up to the server's " \
        "--webhook-timeout per attempt. #{@child ? "The server (pid #{@child.pid}) is #{@child.status_text}." : "Is #{@source} stuck?"}",
        code: "timeout",
      ), cause: nil
    rescue SystemCallError, IOError, SocketError, Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError, EOFError => e
      raise ConnectionError.new("#{what}: nothing answers at #{@url} (#{e.class}: #{e.message}). #{diagnosis}",
                                code: "connection_failed"), cause: nil
    end

    # A server-sent event stream's events (`{"event", "data", "id"}`, data decoded from JSON), read
    # until `max_events` came or `timeout` seconds passed (a stream never ends by itself: the end of
    # the time is no error once the stream began), at most MAX_ANSWER_BYTES read; each is also
    # yielded to the block, which may `break`.
    #
    # @api private
    def stream(path, operation:, session: nil, timeout: @timeout, max_events: nil)
      request_line = "GET #{CONTROL_PATH}#{path}"
      what = describe(operation, session)
      events = []
      began = false
      begin
        Timeout.timeout(timeout, Deadline) do
          uri = URI.parse(@control_url + path)
          request = Net::HTTP::Get.new(uri.request_uri, "Accept" => "text/event-stream")
          http = Net::HTTP.new(uri.hostname, uri.port, nil)
          http.open_timeout = http.read_timeout = http.write_timeout = timeout
          http.max_retries = 0
          catch(:enough) do
            http.start do |connection|
              connection.request(request) do |response|
                status = response.code.to_i
                if status.between?(300, 399)
                  raise Error.new("#{what}: #{@url} answered #{status} redirecting to #{response["location"].inspect} " \
                                  "(#{request_line}); a control call follows no redirect: point SVC_SANDBOX_URL at the " \
                                  "svc-sandbox server itself.", status: status, code: "redirect_refused")
                end
                decode(status, read_capped(response, what), request_line, what) if status >= 300
                began = true
                read_events(response, what) do |event|
                  events << event
                  yield event if block_given?
                  throw :enough if max_events && events.size >= max_events
                end
              end
            end
          end
        end
      rescue Deadline, Net::ReadTimeout
        raise unless began
      end
      events
    rescue Deadline, Net::OpenTimeout, Net::ReadTimeout, Net::WriteTimeout
      raise TimeoutError.new("#{what}: no answer from #{@url} within #{timeout} s (#{request_line}). Raise SVC_SANDBOX_TIMEOUT " \
                             "(seconds) or give a shorter timeout: to the stream's read.", code: "timeout"), cause: nil
    rescue SystemCallError, IOError, SocketError, Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError, EOFError => e
      raise ConnectionError.new("#{what}: nothing answers at #{@url} (#{e.class}: #{e.message}). #{diagnosis}",
                                code: "connection_failed"), cause: nil
    end

    # Every item of a paginated control list (at most Control::MAX_PAGES pages).
    #
    # @api private
    def list(name, *args, operation:, session: nil, timeout: @timeout)
      Control.new(self, session: session, timeout: timeout).all(name, *args, operation: operation)
    end

    private

    def describe(operation, session)
      session ? "#{operation} on session #{session}" : operation
    end

    # Sends one request and reads its answer: [status, body, Location].
    def exchange(method, path, body, timeout, what)
      uri = URI.parse(@control_url + path)
      request = Net::HTTPGenericRequest.new(method, !body.nil?, true, uri.request_uri, "Accept" => "application/json")
      unless body.nil?
        request["Content-Type"] = "application/json"
        request.body = JSON.generate(body)
      end
      # nil as the proxy: the server is on this machine, whatever HTTP_PROXY says.
      http = Net::HTTP.new(uri.hostname, uri.port, nil)
      http.open_timeout = http.read_timeout = http.write_timeout = timeout
      http.max_retries = 0 # a retried POST could advance the clock twice
      http.start do |connection|
        connection.request(request) do |response|
          status = response.code.to_i
          # A redirect's body is never read: nothing of it is used.
          return [status, "", response["location"]] if status.between?(300, 399)

          return [status, read_capped(response, what), nil]
        end
      end
    end

    # The answer's body, at most MAX_ANSWER_BYTES: past that, an error rather than the memory.
    def read_capped(response, what)
      declared = response["content-length"].to_i
      raw = String.new(capacity: declared.clamp(0, MAX_ANSWER_BYTES), encoding: Encoding::BINARY)
      too_large = lambda do |detail|
        Error.new("#{what}: #{@url} sent an answer larger than the #{MAX_ANSWER_BYTES / (1024 * 1024)} MiB a control answer may " \
                  "have (#{detail}); is SVC_SANDBOX_URL a svc-sandbox server?", status: response.code.to_i, code: "answer_too_large")
      end
      raise too_large.call("Content-Length: #{declared}") if declared > MAX_ANSWER_BYTES

      response.read_body do |chunk|
        raw << chunk
        raise too_large.call("more than #{MAX_ANSWER_BYTES} bytes came") if raw.bytesize > MAX_ANSWER_BYTES
      end
      raw.force_encoding(Encoding::UTF_8)
    end

    # Yields each event of a server-sent event stream as it completes; comments are skipped.
    def read_events(response, what)
      pending = String.new(encoding: Encoding::BINARY)
      size = 0
      fields = {}
      data = []
      response.read_body do |chunk|
        size += chunk.bytesize
        if size > MAX_ANSWER_BYTES
          raise Error.new("#{what}: #{@url} sent more than the #{MAX_ANSWER_BYTES / (1024 * 1024)} MiB a stream's read may take; " \
                          "is SVC_SANDBOX_URL a svc-sandbox server?", status: response.code.to_i, code: "answer_too_large")
        end
        pending << chunk.b
        next unless chunk.include?("\n")

        *lines, rest = pending.split("\n", -1)
        pending = rest
        lines.each do |raw_line|
          line = raw_line.chomp("\r").force_encoding(Encoding::UTF_8)
          if line.empty?
            yield event_of(fields, data) unless data.empty?
            fields = {}
            data = []
          elsif !line.start_with?(":")
            name, value = line.split(":", 2)
            value = value.to_s.delete_prefix(" ")
            name == "data" ? data << value : (fields[name] = value if %w[event id].include?(name))
          end
        end
      end
    end

    def event_of(fields, data)
      text = data.join("\n")
      value = begin
        JSON.parse(text)
      rescue JSON::ParserError
        text
      end
      { "event" => fields.fetch("event", "message"), "data" => value, "id" => fields["id"] }
    end

    def decode(status, raw, request_line, what)
      data = begin
        raw.empty? ? nil : JSON.parse(raw)
      rescue JSON::ParserError
        raise Error.new("#{what}: #{status} with a body that is not JSON (#{raw[0, 200].inspect}) (#{request_line}).",
                        status: status, code: "bad_response"), cause: nil
      end
      return data if status < 400

      error = data.is_a?(Hash) && data["error"].is_a?(Hash) ? data["error"] : {}
      code = error["code"] || "http_#{status}"
      text = error["message"] || raw[0, 200]
      raise Error.new("#{what}: #{status} #{code}: #{text} (#{request_line})",
                      status: status, code: code, param: error["param"], server_message: error["message"])
    end

    def diagnosis
      unless @child
        return "#{@source} names no running server: is `svc-sandbox exec` still running? Unset SVC_SANDBOX_URL to let " \
               "the helper start a server of its own." if @source.start_with?("SVC_SANDBOX_URL=")

        return "Is the server at #{@source} running?"
      end
      if !@child.ended_within?(1)
        "The server this process started (pid #{@child.pid}, from #{@child.source}) is still running but refused the connection."
      else
        "The server this process started (pid #{@child.pid}, from #{@child.source}) has ended (#{@child.status_text}); it is not " \
          "restarted, so every later call fails too.#{@child.tail_text}"
      end
    end
  end
end
