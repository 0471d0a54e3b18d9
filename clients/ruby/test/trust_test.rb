# frozen_string_literal: true

require "test_helper"

# The helper trusts the server at SVC_SANDBOX_URL no more than it must: no redirect followed, a
# deadline for the whole call, a cap on the pages a listing walks and on an answer's size; each
# refusal an SvcSandbox::Error naming the server. Every case runs against a hostile fake server
# on loopback.
class TrustTest < Minitest::Test
  include Support

  # Answers like svc-sandbox's control API (`/health`, `POST /sessions`) but misbehaves on every
  # other request the way `mode` says. One thread per connection, so a slow answer holds no other.
  class HostileServer
    attr_reader :hits
    # The origin a redirect points at.
    attr_writer :elsewhere

    def initialize(mode)
      @mode = mode
      @hits = Queue.new
      @server = TCPServer.new("127.0.0.1", 0)
      @connections = []
      @thread = Thread.new do
        loop do
          socket = @server.accept
          @connections << Thread.new { serve(socket) }
        end
      rescue IOError, Errno::EBADF
        nil # stopped
      end
    end

    def origin
      "http://127.0.0.1:#{@server.addr[1]}"
    end

    def url
      "#{origin}/__sandbox"
    end

    def stop
      @server.close
      @thread.join(5)
      @connections.each { |thread| thread.kill.join(5) }
    end

    private

    def serve(socket)
      Thread.current.report_on_exception = false
      method, target = socket.gets("\r\n").to_s.split(" ")
      headers = {}
      while (line = socket.gets("\r\n")) && line != "\r\n"
        name, value = line.split(":", 2)
        headers[name.downcase] = value.strip
      end
      body = socket.read(headers["content-length"].to_i)
      @hits << [method, target, body]
      if target.end_with?("/health")
        respond(socket, 200, '{"status":"ok"}')
      elsif method == "POST" && target.end_with?("/sessions")
        respond(socket, 201, '{"id":"ses_hostile","apiKey":"SVC_TEST_hostile","now":"2026-01-01T00:00:00.000Z"}')
      else
        misbehave(socket, target)
      end
    rescue IOError, SystemCallError
      nil # the helper hung up, as it should
    ensure
      socket.close unless socket.closed?
    end

    def respond(socket, status, body, extra = "")
      socket.write("HTTP/1.1 #{status} X\r\nContent-Type: application/json\r\nContent-Length: #{body.bytesize}\r\n" \
                   "#{extra}Connection: close\r\n\r\n#{body}")
    end

    def misbehave(socket, target)
      case @mode
      when :redirect
        respond(socket, 307, "", "Location: #{@elsewhere}#{target}\r\n")
      when :drip # a byte every 50 ms, for ever: no single read ever waits long
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
        loop do
          socket.write(" ")
          IO.select(nil, nil, nil, 0.05)
        end
      when :drip_headers
        "HTTP/1.1 200 OK\r\nX-Slow: #{"a" * 100_000}".each_char do |char|
          socket.write(char)
          IO.select(nil, nil, nil, 0.05)
        end
      when :declared_huge
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: #{(64 * 1024 * 1024) + 1}\r\n\r\n[")
        IO.select([socket], nil, nil, 30) # whatever it reads, the helper must hang up first
      when :endless # no length, a MiB at a time until the helper hangs up
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[")
        chunk = "0," * (512 * 1024)
        loop { socket.write(chunk) }
      when :endless_comments # a stream of comments only: never an event, never an end
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        chunk = ": keep-alive\n" * 40_000
        loop { socket.write(chunk) }
      when :drip_stream # one event, then a byte every 20 ms for ever
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" \
                     "event: change\ndata: {\"now\": 1}\n\n")
        loop do
          socket.write(":")
          IO.select(nil, nil, nil, 0.02)
        end
      when :pages
        respond(socket, 200, '{"data":[{"id":"evt_x"}],"has_more":true,"next_cursor":"more"}')
      end
    end
  end

  def hostile(mode, timeout: 10)
    server = HostileServer.new(mode)
    yield server, SvcSandbox::Server.connect(server.url, timeout: timeout)
  ensure
    server&.stop
  end

  def test_a_redirect_is_an_error_naming_the_server_and_the_location_and_nothing_is_resent
    elsewhere = HostileServer.new(:pages)
    hostile(:redirect) do |server, connected|
      server.elsewhere = elsewhere.origin
      session = connected.session
      error = assert_raises(SvcSandbox::Error) { session.advance("1s") }

      assert_equal "redirect_refused", error.code
      assert_equal 307, error.status
      assert_includes error.message, "advance on session ses_hostile: #{server.origin} answered 307 redirecting to " \
                                     "\"#{elsewhere.origin}/__sandbox/sessions/ses_hostile/advance\""
      assert_raises(ThreadError) { elsewhere.hits.pop(true) } # nothing went there
    end
  ensure
    elsewhere&.stop
  end

  def test_an_answer_dripped_a_byte_at_a_time_ends_at_the_whole_calls_deadline
    hostile(:drip, timeout: 0.5) do |server, connected|
      session = connected.session
      started = monotonic
      error = assert_raises(SvcSandbox::TimeoutError) { session.advance("1s") }
      waited = monotonic - started

      assert_includes error.message, "advance on session ses_hostile: no answer from #{server.origin} within 0.5 s"
      assert_includes error.message, "SVC_SANDBOX_TIMEOUT seconds in all"
      assert_nil error.cause # one line of cause, no chain
      # Per read, it would wait for ever; the whole call's deadline ends it. A bound only a hang reaches.
      assert_operator waited, :<, 10, "the dripped answer held the call #{waited} s"
      assert_operator waited, :>=, 0.5
    end
  end

  def test_headers_dripped_a_byte_at_a_time_end_at_the_deadline_too
    hostile(:drip_headers, timeout: 0.5) do |_server, connected|
      started = monotonic
      assert_raises(SvcSandbox::TimeoutError) { connected.session.info }
      assert_operator monotonic - started, :<, 10
    end
  end

  def test_svc_sandbox_timeout_is_the_deadline_of_each_call
    server = HostileServer.new(:drip)
    with_env("SVC_SANDBOX_URL" => server.url, "SVC_SANDBOX_TIMEOUT" => "0.5") do
      connected = SvcSandbox::Server.start
      assert_equal 0.5, connected.timeout
      started = monotonic
      assert_raises(SvcSandbox::TimeoutError) { connected.session.advance("1s") }
      assert_operator monotonic - started, :<, 10
    end
  ensure
    server&.stop
  end

  def test_an_answer_declared_larger_than_64_mib_is_refused_unread
    hostile(:declared_huge) do |server, connected|
      error = assert_raises(SvcSandbox::Error) { connected.session.snapshot }

      assert_equal "answer_too_large", error.code
      assert_includes error.message, "snapshot on session ses_hostile: #{server.origin} sent an answer larger than the 64 MiB " \
                                     "a control answer may have (Content-Length: 67108865)"
    end
  end

  def test_an_endless_answer_is_refused_once_64_mib_are_read
    hostile(:endless) do |server, connected|
      error = assert_raises(SvcSandbox::Error) { connected.session.snapshot }

      assert_equal "answer_too_large", error.code
      assert_includes error.message, "#{server.origin} sent an answer larger than the 64 MiB a control answer may have " \
                                     "(more than 67108864 bytes came)"
    end
  end

  def test_an_endless_stream_is_refused_once_64_mib_are_read
    hostile(:endless_comments) do |server, connected|
      error = assert_raises(SvcSandbox::Error) { connected.control.stream_session("ses_x", max_events: 1) }

      assert_equal "answer_too_large", error.code
      assert_includes error.message, server.origin
    end
  end

  def test_a_dripped_stream_returns_its_events_at_the_deadline
    hostile(:drip_stream, timeout: 0.3) do |_server, connected|
      began = monotonic
      frames = connected.control.stream_session("ses_x", max_events: 5)

      assert_equal [{ "event" => "change", "data" => { "now" => 1 }, "id" => nil }], frames
      assert_operator monotonic - began, :>=, 0.3
      assert_operator monotonic - began, :<, 10
    end
  end

  def test_a_listing_stops_at_its_page_cap
    assert_equal 10_000, SvcSandbox::Control::MAX_PAGES
    # 10,000 pages take 40 s over loopback: the same code, with the cap lowered for the test.
    hostile(:pages) do |server, connected|
      session = connected.session
      with_max_pages(30) do
        error = assert_raises(SvcSandbox::Error) { session.events }

        assert_equal "too_many_pages", error.code
        assert_includes error.message, "events on session ses_hostile: #{server.origin} still had more after 30 pages of 200"
        assert_equal 32, server.hits.size # the health check, the session's creation, then 30 pages
      end
      error = assert_raises(SvcSandbox::Error) { session.control.all(:list_keys, session.id, max_pages: 3) }
      assert_includes error.message, "list_keys on session ses_hostile: #{server.origin} still had more after 3 pages"
    end
  end

  def with_max_pages(pages)
    saved = SvcSandbox::Control::MAX_PAGES
    SvcSandbox::Control.send(:remove_const, :MAX_PAGES)
    SvcSandbox::Control.const_set(:MAX_PAGES, pages)
    yield
  ensure
    SvcSandbox::Control.send(:remove_const, :MAX_PAGES)
    SvcSandbox::Control.const_set(:MAX_PAGES, saved)
  end
end
