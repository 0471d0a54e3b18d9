# frozen_string_literal: true

require "minitest/autorun"
require "json"
require "net/http"
require "open3"
require "rbconfig"
require "socket"
require "tmpdir"
require "svc_sandbox"

# The helper's own suite runs against a real server started from SVC_SANDBOX_BIN (ci.sh builds
# and installs the gem, then runs this suite against the installed copy).
if ENV["SVC_SANDBOX_BIN"].to_s.empty?
  abort "Set SVC_SANDBOX_BIN to the svc-sandbox executable (dist/server/cli.js of a built checkout, or dist/bin/svc-sandbox)."
end

module Support
  REAL_BIN = File.expand_path(ENV.fetch("SVC_SANDBOX_BIN"))
  # The svc_sandbox this process loaded (the installed gem under ci.sh): subprocesses load the same.
  LIB = File.dirname($LOADED_FEATURES.grep(%r{/svc_sandbox\.rb\z}).first)

  module_function

  def monotonic
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Runs Ruby code in a child process with this svc_sandbox on its load path; bounded.
  # Returns [stdout + stderr, Process::Status].
  def ruby(code, env: {}, timeout: 60, chdir: Dir.pwd)
    Open3.popen2e(env, RbConfig.ruby, "-I", LIB, "-e", code, chdir: chdir) do |stdin, output, waiter|
      stdin.close
      text = read_until_exit(output, waiter, timeout)
      [text, waiter.value]
    end
  end

  def read_until_exit(output, waiter, timeout)
    deadline = monotonic + timeout
    text = +""
    loop do
      left = deadline - monotonic
      if left <= 0
        Process.kill("KILL", waiter.pid)
        raise "the child process did not end within #{timeout} s; its output:\n#{text}"
      end
      next unless IO.select([output], nil, nil, left)

      chunk = output.read_nonblock(65_536, exception: false)
      break if chunk.nil?

      text << chunk unless chunk == :wait_readable
    end
    waiter.join(timeout)
    text
  end

  # Whether process `pid` has ended (a zombie that nobody reaped yet counts as ended).
  def gone?(pid)
    Process.kill(0, pid)
    File.read("/proc/#{pid}/stat").split(") ").last.start_with?("Z")
  rescue Errno::ESRCH, Errno::ENOENT
    true
  end

  # Polls until process `pid` has ended; false when it is still there after `timeout` seconds.
  def wait_gone(pid, timeout: 10)
    deadline = monotonic + timeout
    until gone?(pid)
      return false if monotonic > deadline

      IO.select(nil, nil, nil, 0.02)
    end
    true
  end

  # A free loopback port: bound, then released.
  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  # Writes an executable shell script.
  def script(dir, name, body)
    path = File.join(dir, name)
    File.write(path, "#!/bin/sh\n#{body}\n")
    File.chmod(0o755, path)
    path
  end

  # ENV with some variables replaced (nil deletes one) for the block's length.
  def with_env(changes)
    saved = changes.keys.to_h { |key| [key, ENV[key]] }
    changes.each { |key, value| value.nil? ? ENV.delete(key) : ENV[key] = value }
    yield
  ensure
    saved.each { |key, value| value.nil? ? ENV.delete(key) : ENV[key] = value }
  end

  # One request to the API of a session, as an SDK would make it.
  def api(session, method, path, body = nil, key: session.api_key)
    uri = URI("#{session.base_url}#{path}")
    request = Net::HTTPGenericRequest.new(method, !body.nil?, true, uri.request_uri,
                                          "Authorization" => "Bearer #{key}", "Content-Type" => "application/json")
    request.body = JSON.generate(body) unless body.nil?
    response = Net::HTTP.start(uri.hostname, uri.port, nil, read_timeout: 30) { |http| http.request(request) }
    [response.code.to_i, response.body.to_s.empty? ? nil : JSON.parse(response.body), response]
  end

  # A loopback HTTP server in a thread, one request per connection (a TCPServer: Ruby 3 ships
  # no HTTP server); a subclass answers each request in `handle`.
  class LoopbackServer
    def initialize
      @server = TCPServer.new("127.0.0.1", 0)
      @thread = Thread.new do
        loop { accept(@server.accept) }
      rescue IOError, Errno::EBADF
        nil # stopped
      end
    end

    def origin
      "http://127.0.0.1:#{@server.addr[1]}"
    end

    def stop
      @server.close
      @thread.join(5)
    end

    private

    def accept(socket)
      _method, target = socket.gets("\r\n").to_s.split(" ")
      headers = {}
      while (line = socket.gets("\r\n")) && line != "\r\n"
        name, value = line.split(":", 2)
        headers[name.downcase] = value.strip
      end
      handle(socket, target.to_s, headers, socket.read(headers["content-length"].to_i))
    end

    def respond(socket, status, body = "")
      socket.write("HTTP/1.1 #{status} X\r\nContent-Type: application/json\r\nContent-Length: #{body.bytesize}\r\n" \
                   "Connection: close\r\n\r\n#{body}")
      socket.close
    end
  end

  # A webhook receiver answering `status`; it keeps each request's raw body and signature.
  class Receiver < LoopbackServer
    attr_accessor :status
    attr_reader :requests

    def initialize(status: 200)
      @status = status
      @requests = Queue.new
      super()
    end

    def url
      "#{origin}/hooks"
    end

    private

    def handle(socket, _target, headers, body)
      @requests << { body: body, signature: headers["x-service-signature"] }
      respond(socket, @status)
    end
  end

  # Answers like svc-sandbox's control API (`/health`, `POST /sessions`) but never answers a
  # request whose path holds `hang_on`: a server that got stuck.
  class StuckServer < LoopbackServer
    def initialize(hang_on:)
      @hang_on = hang_on
      @held = []
      super()
    end

    def url
      "#{origin}/__sandbox"
    end

    def stop
      super
      @held.each(&:close)
    end

    private

    def handle(socket, target, _headers, _body)
      return @held << socket if target.include?(@hang_on)

      created = { id: "ses_stuck", apiKey: "SVC_TEST_stuck", now: "2026-01-01T00:00:00.000Z" }
      target.end_with?("/sessions") ? respond(socket, 201, JSON.generate(created)) : respond(socket, 200, JSON.generate(status: "ok"))
    end
  end
end
