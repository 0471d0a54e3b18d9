# A webhook receiver for tests: a TCPServer on 127.0.0.1, a free port, in a background thread
# (Ruby 3 ships no HTTP server, and a receiver needs very little of HTTP).
#
# The sandbox server POSTs signed events to it over real HTTP. It records every request (the
# path, the headers and the exact raw body, which is what the signature covers) and answers
# with `status`, which a test can change at any time (500 to make deliveries fail).
require "socket"

class WebhookReceiver
  Request = Struct.new(:path, :headers, :body) # headers: lowercase names

  attr_accessor :status

  def initialize(status: 200)
    @status = status
    @requests = []
    @lock = Mutex.new
    @arrived = ConditionVariable.new
    @server = TCPServer.new("127.0.0.1", 0)
  end

  def url
    "http://127.0.0.1:#{@server.addr[1]}/hooks"
  end

  def start
    @thread = Thread.new do
      loop { serve(@server.accept) }
    rescue IOError, Errno::EBADF
      # closed by stop
    end
    self
  end

  # Closing the listener ends the accept loop; the join is bounded, so a client stuck
  # mid-request cannot hang the suite.
  def stop
    @server.close
    @thread&.kill unless @thread&.join(5)
  end

  # Blocks until `count` requests have arrived (or fails after `timeout` real seconds).
  def wait_for(count, timeout: 5)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
    @lock.synchronize do
      while @requests.size < count
        left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
        raise "expected #{count} webhook requests, got #{@requests.size}" if left <= 0

        @arrived.wait(@lock, left)
      end
      @requests.dup
    end
  end

  private

  def serve(socket)
    _method, path, = socket.gets("\r\n").split(" ")
    headers = {}
    while (line = socket.gets("\r\n")) && line != "\r\n"
      name, value = line.chomp("\r\n").split(":", 2)
      headers[name.downcase] = value.strip
    end
    body = socket.read(headers.fetch("content-length", "0").to_i)
    @lock.synchronize do
      @requests << Request.new(path, headers, body)
      @arrived.broadcast
    end
    socket.write("HTTP/1.1 #{@status} Answer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
  ensure
    socket.close
  end
end
