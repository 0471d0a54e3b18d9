# frozen_string_literal: true

require "shellwords"
require "svc_sandbox/errors"

module SvcSandbox
  # A `svc-sandbox serve` process that this process started (docs/ruby.md, "Finding the server").
  #
  # Its standard input is a pipe whose write end only this process holds, and it runs with
  # `--exit-on-stdin-close`: the kernel closes that end however this process ends (an
  # exception, `exit!`, SIGKILL), and the server then exits by itself. Its stdout and stderr are
  # read all along, so it never blocks on a full pipe; their last lines go into error messages.
  # It runs in a process group of its own, so a Ctrl-C meant for the test run reaches the run,
  # which then stops the server in order, rather than the server dying under running tests.
  #
  # A forked copy of this process (`fork`, a forking test runner, a Puma or Resque worker) would
  # inherit that write end and keep the server alive after this process died, as long as the
  # copy lives: every fork closes it in the child (Process._fork, Ruby 3.1's one hook that
  # Kernel#fork, Process.fork and IO.popen("-") all go through).
  class Child
    READY_LINE = %r{\Asvc-sandbox listening on (http://[^\s/]+)\s*\z}
    # Real seconds the server gets to exit once its stdin is closed, then after SIGTERM.
    STOP_GRACE = 5
    TERM_GRACE = 2
    TAIL_LINES = 20
    # A first line longer than this is not the ready line.
    MAX_READY_BYTES = 64 * 1024

    # @return [Integer] the server's process id
    attr_reader :pid
    # @return [String] `http://HOST:PORT`, from the ready line
    attr_reader :url
    # @return [String] where the command came from (`SVC_SANDBOX_BIN=…`, `svc-sandbox on PATH (…)`)
    attr_reader :source

    # How to get a server, said by every error of finding or starting one.
    HOW_TO_GET_ONE = "Set SVC_SANDBOX_BIN to the svc-sandbox executable (`npm run build:binary` in a svc-sandbox checkout " \
                     "writes dist/bin/svc-sandbox, which needs no Node; or dist/server/cli.js of a built checkout), or run " \
                     "the suite under `svc-sandbox exec -- rake test`, which sets SVC_SANDBOX_URL (a running server's " \
                     "control URL). clients/ruby/README.md, \"Install\", says how a project gets svc-sandbox."

    class << self
      # The command that runs svc-sandbox, where it came from, and the command a user's shell
      # runs it with (for `show`): SVC_SANDBOX_BIN, else `svc-sandbox` on PATH, else
      # node_modules/.bin/svc-sandbox in the working directory or a folder above it, else
      # `npx --no-install svc-sandbox` (which still asks the npm registry, so it comes last).
      #
      # @return [Array(Array<String>, String, String)]
      # @raise [ServerStartError] when SVC_SANDBOX_BIN names no executable file, or nothing is found
      def command(env = ENV, dir: Dir.pwd)
        bin = env["SVC_SANDBOX_BIN"]
        if bin && !bin.empty?
          path = executable_bin(bin)
          return [[path], "SVC_SANDBOX_BIN=#{bin}", Shellwords.escape(path)]
        end

        found = which("svc-sandbox", env)
        return [[found], "svc-sandbox on PATH (#{found})", Shellwords.escape(found)] if found

        local = node_modules_bin(dir)
        return [[local], "the npm package of this project (#{local})", "npx svc-sandbox"] if local

        npx = which("npx", env)
        return [[npx, "--no-install", "svc-sandbox"], "npx --no-install svc-sandbox (#{npx})", "npx svc-sandbox"] if npx

        raise ServerStartError.new(
          "No svc-sandbox server to use: SVC_SANDBOX_URL and SVC_SANDBOX_BIN are not set, no svc-sandbox is on PATH or in " \
          "node_modules/.bin, and there is no npx. #{HOW_TO_GET_ONE}",
          code: "server_start_failed",
        )
      end

      # The command a user's shell runs svc-sandbox with, as {command} would find it (`npx
      # svc-sandbox` when nothing is found: the server a suite used under exec may have come from
      # anywhere).
      #
      # @return [String]
      def shell_command(env = ENV)
        command(env)[2]
      rescue Error
        "npx svc-sandbox"
      end

      # Starts `svc-sandbox serve --port 0 --exit-on-stdin-close` and waits for its ready line.
      #
      # @param args [Array<String>] more `serve` flags (`--webhook-timeout 2s`)
      # @param start_timeout [Numeric] real seconds to wait for the ready line
      # @return [Child]
      def start(args: [], start_timeout:, env: ENV)
        argv, source, shell = command(env)
        child = new(argv + ["serve", "--port", "0", "--exit-on-stdin-close", *args], source, shell)
        child.wait_ready(start_timeout)
      end

      private

      def executable_bin(bin)
        path = File.expand_path(bin)
        fix = "Set it to the svc-sandbox executable (dist/bin/svc-sandbox, or dist/server/cli.js of a built checkout), " \
              "or unset it to use svc-sandbox from PATH."
        problem = if !File.exist?(path) then "no such file"
                  elsif !File.file?(path) then "not a regular file"
                  elsif !File.executable?(path) then "not executable (chmod +x #{path})"
                  end
        raise ServerStartError.new("SVC_SANDBOX_BIN=#{bin}: #{problem}. #{fix}", code: "server_start_failed") if problem

        path
      end

      # node_modules/.bin/svc-sandbox of `dir` or the nearest folder above it that has one.
      def node_modules_bin(dir)
        dir = File.expand_path(dir)
        loop do
          path = File.join(dir, "node_modules", ".bin", "svc-sandbox")
          return path if File.file?(path) && File.executable?(path)

          parent = File.dirname(dir)
          return nil if parent == dir

          dir = parent
        end
      end

      def which(name, env)
        env.fetch("PATH", "").split(File::PATH_SEPARATOR).each do |dir|
          next if dir.empty?

          path = File.join(dir, name)
          return path if File.file?(path) && File.executable?(path)
        end
        nil
      end
    end

    # @return [String] the command that runs svc-sandbox in a user's shell (`npx svc-sandbox`, or
    #   the executable's full path)
    attr_reader :shell_command

    def initialize(argv, source, shell_command = Shellwords.join(argv))
      @source = source
      @shell_command = shell_command
      @owner = Process.pid
      @tail = { out: [], err: [] }
      @tail_lock = Mutex.new
      stdin, @stdin = IO.pipe
      @out, out = IO.pipe
      @err, err = IO.pipe
      begin
        @pid = Process.spawn(*argv, in: stdin, out: out, err: err, pgroup: true)
      rescue SystemCallError => e
        [@stdin, @out, @err].each(&:close)
        raise ServerStartError.new("Could not start svc-sandbox from #{source}: #{e.message}. #{HOW_TO_GET_ONE}",
                                   code: "server_start_failed"), cause: nil
      ensure
        [stdin, out, err].each { |io| io.close unless io.closed? }
      end
      @waiter = Process.detach(@pid)
      ForkHook.hold(@stdin)
      @drains = [drain(@err, :err)]
      # Stops the server at exit, after every at_exit handler (Ruby runs finalizers last):
      # minitest/autorun runs the tests in an at_exit handler, which may have been registered
      # before this server started, and the server must outlive it.
      ObjectSpace.define_finalizer(self, Stop.finalizer(@owner, @pid, @stdin, @waiter))
    end

    # Reads the first stdout line within `seconds`; the server is stopped when it is not the
    # ready line.
    #
    # @raise [ServerStartError]
    def wait_ready(seconds)
      line = first_line(monotonic + seconds)
      match = line.is_a?(String) && READY_LINE.match(line)
      if match
        @url = match[1]
        @drains << drain(@out, :out)
        return self
      end

      # An end of its stdout: it is exiting; its status tells how.
      what = if line == :eof && ended_within?(TERM_GRACE) then "exited (#{status_text}) before printing its ready line"
             elsif line == :eof then "closed its stdout before printing its ready line"
             elsif line.nil? then "printed no ready line within #{seconds} s (raise SVC_SANDBOX_START_TIMEOUT on a slow machine)"
             else "printed #{line[0, 200].inspect} instead of its ready line"
             end
      stop(grace: 0) # it failed already: no time for an orderly exit
      hint = if @source.start_with?("npx ") && line == :eof
               " (npx --no-install runs only a svc-sandbox this project installed.) #{HOW_TO_GET_ONE}"
             else ""
             end
      raise ServerStartError.new("svc-sandbox from #{@source} #{what}.#{hint}#{tail_text}", code: "server_start_failed")
    end

    # @return [Boolean] whether the server process is still running
    def alive?
      @waiter.alive?
    end

    # Waits up to `seconds` for the process to end (a refused connection often means it is
    # ending); true when it has.
    def ended_within?(seconds)
      !@waiter.join(seconds).nil?
    end

    # @return [String] how it ended (`exit 1`, `killed by SIGKILL`), or `running`
    def status_text
      return "running" if alive?

      status = @waiter.value
      return "status unknown" unless status

      status.signaled? ? "killed by SIG#{Signal.signame(status.termsig)}" : "exit #{status.exitstatus}"
    end

    # The last lines it wrote to stderr (else stdout), as an indented block to end a message.
    def tail_text
      lines = @tail_lock.synchronize { @tail[:err].empty? ? @tail[:out].dup : @tail[:err].dup }
      lines.empty? ? " It wrote nothing." : "\nIts last lines of output:\n#{lines.map { |l| "  #{l}" }.join("\n")}"
    end

    # Stops the server: its stdin is closed (it exits as on SIGTERM), then SIGTERM and SIGKILL to
    # its process group if it lingers. Bounded: at most `grace` + 2 * TERM_GRACE seconds. A
    # forked copy of this process leaves its parent's server alone.
    def stop(grace: STOP_GRACE)
      return unless Process.pid == @owner

      Stop.call(@pid, @stdin, @waiter, grace)
      ForkHook.release(@stdin)
      @drains.each { |thread| thread.join(1) }
      [@out, @err].each { |io| io.close unless io.closed? }
      ObjectSpace.undefine_finalizer(self)
    end

    # Closes, in every forked child, the write ends of the servers' stdin pipes: only the process
    # that started a server may keep it alive.
    module ForkHook
      @pipes = []
      @lock = Mutex.new
      @installed = false

      class << self
        def hold(pipe)
          @lock.synchronize do
            install
            @pipes << pipe
          end
        end

        def release(pipe)
          @lock.synchronize { @pipes.delete(pipe) }
        end

        # In the new child: runs before any of its own code, with only the forking thread.
        def forked
          # The lock may have been held by another thread of the parent at the fork: a new one.
          @lock = Mutex.new
          @pipes.each { |pipe| pipe.close unless pipe.closed? }
          @pipes = []
        end

        private

        def install
          return if @installed

          Process.singleton_class.prepend(Hook)
          @installed = true
        end
      end

      # Process._fork, public as it is.
      module Hook
        def _fork
          pid = super
          ForkHook.forked if pid.zero?
          pid
        end
      end
    end
    private_constant :ForkHook

    # Stopping a child, in its life or in a finalizer at exit (when every thread is gone).
    module Stop
      module_function

      # A finalizer that holds no reference to the child itself, which could then never be collected.
      def finalizer(owner, pid, stdin, waiter)
        proc { call(pid, stdin, waiter) if Process.pid == owner }
      end

      def call(pid, stdin, waiter, grace = STOP_GRACE)
        stdin.close unless stdin.closed?
        return if exited?(pid, waiter, grace)

        signal(pid, "TERM")
        return if exited?(pid, waiter, TERM_GRACE)

        signal(pid, "KILL")
        exited?(pid, waiter, TERM_GRACE)
      end

      def signal(pid, name)
        Process.kill(name, -pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end

      # Waits until the process has exited, at most `seconds`.
      def exited?(pid, waiter, seconds)
        return !waiter.join(seconds).nil? if waiter.alive?

        # At exit Ruby has killed every thread, the waiter too: reap the process here.
        deadline = monotonic + seconds
        loop do
          return true if Process.waitpid(pid, Process::WNOHANG)
          return false if monotonic >= deadline

          IO.select(nil, nil, nil, 0.01) # not Kernel#sleep, which fake_sleep may have replaced
        end
      rescue Errno::ECHILD
        true
      end

      def monotonic
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end
    end
    private_constant :Stop

    private

    def monotonic
      Stop.monotonic
    end

    # The first stdout line (cut at MAX_READY_BYTES); nil at the deadline, :eof at the end of its stdout.
    def first_line(deadline)
      buffer = +""
      until (newline = buffer.index("\n"))
        return buffer[0, 200] if buffer.bytesize > MAX_READY_BYTES

        left = deadline - monotonic
        return nil if left <= 0
        next unless IO.select([@out], nil, nil, left)

        chunk = @out.read_nonblock(4096, exception: false)
        return :eof if chunk.nil?

        buffer << chunk unless chunk == :wait_readable
      end
      remember(:out, buffer[(newline + 1)..].split("\n"))
      buffer[0, newline]
    end

    # Reads `io` to its end in a thread, keeping its last lines.
    def drain(io, stream)
      Thread.new do
        Thread.current.report_on_exception = false
        while (line = io.gets("\n", 4096))
          remember(stream, [line.chomp])
        end
      rescue IOError
        nil # closed by stop
      end
    end

    def remember(stream, lines)
      @tail_lock.synchronize do
        tail = @tail[stream]
        tail.concat(lines)
        tail.shift(tail.size - TAIL_LINES) if tail.size > TAIL_LINES
      end
    end
  end
end
