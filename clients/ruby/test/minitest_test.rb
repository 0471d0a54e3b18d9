# frozen_string_literal: true

require "test_helper"
require "fileutils"

# Test classes as a user writes them, run one test at a time by the tests below (and taken out
# of this suite's own run: some of them fail on purpose).
class SandboxProbe < Minitest::Test
  include SvcSandbox::Minitest
  sandbox_options seed: 9

  class << self
    attr_accessor :seen, :on_teardown
  end

  def test_uses_the_sandbox
    SandboxProbe.seen = sandbox
    assert_equal sandbox, sandbox # one session per test
  end

  def test_never_touches_it
    assert true
  end

  def test_fails
    SandboxProbe.seen = sandbox
    sandbox.advance("1s")
    flunk "on purpose"
  end

  def teardown
    SandboxProbe.on_teardown&.call(@svc_sandbox)
  end
end

class LaterProbe < SandboxProbe
  sandbox_options start_time: "2026-06-01T12:00:00Z"
end

[SandboxProbe, LaterProbe].each { |probe| Minitest::Runnable.runnables.delete(probe) }

class MinitestHelperTest < Minitest::Test
  include Support

  def run_probe(test, klass: SandboxProbe)
    SandboxProbe.seen = nil
    klass.new(test).run
  end

  def test_sandbox_is_a_session_of_its_own_closed_after_the_test
    result = run_probe(:test_uses_the_sandbox)

    assert result.passed?, result.failures.inspect
    session = SandboxProbe.seen
    assert session.closed?
    missing = assert_raises(SvcSandbox::Error) { SvcSandbox.server.call("GET", "/sessions/#{session.id}", operation: "look") }
    assert_equal 404, missing.status
    assert_equal 401, api(session, "GET", "/v1/calls").first
  end

  def test_the_sessions_options_come_from_the_class_and_its_ancestors
    assert_equal({ seed: 9 }, SandboxProbe.sandbox_options)
    assert_equal({ seed: 9, start_time: "2026-06-01T12:00:00Z" }, LaterProbe.sandbox_options)

    seen_now = nil
    SandboxProbe.on_teardown = ->(session) { seen_now = session.info }
    result = run_probe(:test_uses_the_sandbox, klass: LaterProbe)

    assert result.passed?, result.failures.inspect
    # The test's own teardown still has its session; it is closed after.
    assert_equal [9, "2026-06-01T12:00:00.000Z"], seen_now.values_at("seed", "now")
  ensure
    SandboxProbe.on_teardown = nil
  end

  def test_a_test_that_never_calls_sandbox_makes_no_session
    before = SvcSandbox.server.sessions.size

    assert run_probe(:test_never_touches_it).passed?

    assert_nil SandboxProbe.seen
    assert_equal before, SvcSandbox.server.sessions.size
  end

  def test_a_failed_tests_session_is_saved_when_svc_sandbox_snapshots_is_set
    Dir.mktmpdir do |dir|
      result = nil
      _, err = capture_io { with_env("SVC_SANDBOX_SNAPSHOTS" => File.join(dir, "snaps")) { result = run_probe(:test_fails) } }

      refute result.passed?
      path = File.join(dir, "snaps", "SandboxProbe_test_fails.json")
      printed = err[/open it with: (.*)$/, 1]
      assert_equal "#{REAL_BIN} show #{path}", printed # the executable the helper used: SVC_SANDBOX_BIN
      assert_shows(printed, path)
      snapshot = JSON.parse(File.read(path))
      assert_equal "2026-01-01T00:00:01.000Z", snapshot["now"]
      assert SandboxProbe.seen.closed?

      # The same name again gets a name of its own; a passing test writes nothing.
      capture_io { with_env("SVC_SANDBOX_SNAPSHOTS" => File.join(dir, "snaps")) { run_probe(:test_fails) } }
      capture_io { with_env("SVC_SANDBOX_SNAPSHOTS" => File.join(dir, "snaps")) { run_probe(:test_uses_the_sandbox) } }
      assert_equal %w[SandboxProbe_test_fails-2.json SandboxProbe_test_fails.json], Dir.children(File.join(dir, "snaps")).sort
    end
  end

  # Issue: the printed `svc-sandbox show FILE` was "command not found" in a user's shell. The
  # command printed runs as printed: here through `sh -c`, as a user's shell would.
  def assert_shows(command, path)
    Open3.popen2e("sh", "-c", command, pgroup: true) do |stdin, output, waiter|
      stdin.close
      line = nil
      if IO.select([output], nil, nil, 30) # a bound only a hang reaches: it starts in well under a second
        line = output.gets
      end
      assert_includes line.to_s, "svc-sandbox showing #{path} on http://127.0.0.1:"
    ensure
      Process.kill("TERM", -waiter.pid)
      assert waiter.join(30), "show did not stop on SIGTERM"
    end
  end

  def test_the_show_command_is_npx_svc_sandbox_when_the_server_comes_from_the_projects_npm_package
    Dir.mktmpdir do |dir|
      bin = File.join(dir, "node_modules", ".bin")
      FileUtils.mkdir_p(bin)
      script(bin, "svc-sandbox", "exit 0")
      nested = File.join(dir, "test", "unit")
      FileUtils.mkdir_p(nested)
      Dir.chdir(nested) do
        with_env("SVC_SANDBOX_BIN" => nil, "PATH" => "/nonexistent") do
          argv, source, shell = SvcSandbox::Child.command
          assert_equal [File.join(File.realpath(bin), "svc-sandbox")], argv.map { |a| File.join(File.realpath(File.dirname(a)), File.basename(a)) }
          assert_includes source, "the npm package of this project"
          assert_equal "npx svc-sandbox", shell
        end
      end
      with_env("SVC_SANDBOX_BIN" => REAL_BIN) { assert_equal REAL_BIN, SvcSandbox::Child.command[2] }
    end
  end

  def test_a_snapshot_is_never_written_through_a_symlink
    Dir.mktmpdir do |dir|
      victim = File.join(dir, "victim")
      File.write(victim, "keep me")
      name = "LaterProbe_test_fails"
      File.symlink(victim, File.join(dir, "#{name}.json"))

      _, err = capture_io { with_env("SVC_SANDBOX_SNAPSHOTS" => dir) { run_probe(:test_fails, klass: LaterProbe) } }

      assert_includes err, "something other than a regular file is there"
      assert_equal "keep me", File.read(victim)
    end
  end
end
