# frozen_string_literal: true

require "test_helper"

# No orphans: however a Ruby process that started a server ends, the server goes with it.
# Each case is a real child process that starts its server, says its pid, and ends its way.
class OrphansTest < Minitest::Test
  include Support

  START = <<~RUBY
    require "svc_sandbox"
    SvcSandbox.session.advance("1s")
    puts "SERVER \#{SvcSandbox.server.pid}"
    $stdout.flush
  RUBY

  # Runs `code` after START in a child; `then_do` acts on the child once it said its server's
  # pid. Returns the child's status, its output and the server's pid.
  def run_child(code, then_do: nil)
    Open3.popen2e({ "SVC_SANDBOX_URL" => nil }, RbConfig.ruby, "-I", LIB, "-e", START + code) do |stdin, output, waiter|
      line = read_line(output, 30)
      pid = line[/\ASERVER (\d+)$/, 1]
      assert pid, "the child said #{line.inspect}"
      then_do&.call(waiter.pid)
      stdin.close
      rest = read_until_exit(output, waiter, 30)
      [waiter.value, line + rest, Integer(pid)]
    end
  end

  def read_line(output, timeout)
    deadline = monotonic + timeout
    line = +""
    until line.end_with?("\n")
      left = deadline - monotonic
      raise "no line from the child within #{timeout} s: #{line.inspect}" if left <= 0
      next unless IO.select([output], nil, nil, left)

      chunk = output.read_nonblock(1, exception: false)
      raise "the child ended first: #{line.inspect}" if chunk.nil?

      line << chunk unless chunk == :wait_readable
    end
    line
  end

  def assert_no_orphan(code, then_do: nil)
    status, output, pid = run_child(code, then_do: then_do)
    assert wait_gone(pid), "the server #{pid} outlived its process (#{status.inspect}):\n#{output}"
    [status, output]
  end

  def test_a_process_that_exits_normally
    status, = assert_no_orphan("exit 0")
    assert_equal 0, status.exitstatus
  end

  def test_a_process_that_raises
    status, output = assert_no_orphan("raise 'boom'")
    assert_equal 1, status.exitstatus
    assert_includes output, "boom"
  end

  def test_a_process_that_calls_exit_bang
    status, = assert_no_orphan("exit!(3)") # no at_exit, no finalizer: the closed stdin pipe ends the server
    assert_equal 3, status.exitstatus
  end

  def test_a_process_killed_with_sigkill
    status, = assert_no_orphan("$stdin.read", then_do: ->(pid) { Process.kill("KILL", pid) })
    assert_equal "KILL", Signal.signame(status.termsig)
  end

  # Issue: a forked child kept the server's stdin pipe, so the server outlived its SIGKILLed
  # parent for as long as the child lived. A fork now closes that pipe in the child.
  def test_a_process_killed_with_sigkill_while_a_forked_child_lives
    code = START + <<~RUBY
      child = fork do
        $stdout.reopen(File::NULL)
        $stderr.reopen(File::NULL)
        IO.select(nil, nil, nil, 120) # lives far longer than the wait below
      end
      puts "CHILD \#{child}"
      $stdout.flush
      $stdin.read
    RUBY
    Open3.popen2e({ "SVC_SANDBOX_URL" => nil }, RbConfig.ruby, "-I", LIB, "-e", code) do |stdin, output, waiter|
      server = Integer(read_line(output, 30)[/\ASERVER (\d+)$/, 1])
      forked = Integer(read_line(output, 30)[/\ACHILD (\d+)$/, 1])
      begin
        Process.kill("KILL", waiter.pid)
        assert_equal "KILL", Signal.signame(waiter.value.termsig)
        refute gone?(forked), "the forked child ended too early to show anything"
        assert wait_gone(server), "the server #{server} outlived its SIGKILLed process while its forked child #{forked} lived"
      ensure
        stdin.close
        Process.kill("KILL", forked) unless gone?(forked)
      end
    end
  end

  def test_a_process_interrupted_with_sigint
    status, = assert_no_orphan("$stdin.read", then_do: ->(pid) { Process.kill("INT", pid) })
    refute status.success?
  end

  def test_a_minitest_run_that_passes_and_one_that_fails
    suite = <<~RUBY
      require "minitest/autorun"
      class T < Minitest::Test
        include SvcSandbox::Minitest
        def test_it
          assert_equal "2026-01-01T00:00:02.000Z", sandbox.advance("2s")["now"]
          flunk "as asked" if ENV["FAIL"]
        end
      end
    RUBY
    # The server started before minitest/autorun registered its at_exit hook, which runs the
    # tests: it is stopped only after them.
    status, output = assert_no_orphan(suite)
    assert status.success?, output
    assert_includes output, "1 runs, 1 assertions, 0 failures, 0 errors"

    status, output = with_env("FAIL" => "1") { assert_no_orphan(suite) }
    assert_equal 1, status.exitstatus
    assert_includes output, "as asked"
  end
end
