# frozen_string_literal: true

require "test_helper"
require "fileutils"

# Finding or starting the server, and every way that can fail: each fails at once or within a
# bounded timeout, with a message naming the variable, binary or session and the fix.
class ServerTest < Minitest::Test
  include Support

  # A `svc-sandbox` stand-in that runs the real one (with this process's PATH, for node).
  def forwarding_script(dir, name, before = "")
    script(dir, name, "#{before}\nPATH='#{ENV["PATH"]}' exec '#{REAL_BIN}' \"$@\"")
  end

  def start_failure(env, **options)
    began = monotonic
    error = with_env(env) { assert_raises(SvcSandbox::ServerStartError) { SvcSandbox::Server.start(url: nil, **options) } }
    [error, monotonic - began]
  end

  def test_under_exec_it_connects_to_svc_sandbox_url
    own = SvcSandbox::Server.start(url: nil)
    server = with_env("SVC_SANDBOX_URL" => own.control_url) { SvcSandbox::Server.start }

    assert_nil server.pid
    assert_equal own.url, server.url
    assert_includes server.inspect, "SVC_SANDBOX_URL=#{own.control_url}"
    server.session(seed: 1) { |s| assert_equal own.url, s.base_url }
    assert_equal own.url, SvcSandbox::Server.connect(own.url).url # the bare base URL works too
  ensure
    own&.stop
  end

  def test_an_unreachable_svc_sandbox_url_fails_at_once_naming_the_variable
    url = "http://127.0.0.1:#{free_port}/__sandbox"
    began = monotonic

    error = with_env("SVC_SANDBOX_URL" => url) { assert_raises(SvcSandbox::ConnectionError) { SvcSandbox::Server.start } }

    assert_operator monotonic - began, :<, 5
    assert_equal ["connection_failed", nil], [error.code, error.status]
    assert_includes error.message, "SVC_SANDBOX_URL=#{url} names no running server"
    assert_includes error.message, "Unset SVC_SANDBOX_URL"
  end

  def test_a_url_that_is_not_a_control_url_is_refused
    ["ftp://127.0.0.1/__sandbox", "http://127.0.0.1:1/v1", "not a url"].each do |url|
      error = assert_raises(SvcSandbox::Error) { SvcSandbox::Server.connect(url) }
      assert_equal "invalid_argument", error.code
      assert_includes error.message, "http://HOST:PORT/__sandbox"
    end
  end

  def test_svc_sandbox_bin_must_name_an_executable_regular_file
    Dir.mktmpdir do |dir|
      plain = File.join(dir, "plain")
      File.write(plain, "#!/bin/sh\n")
      { File.join(dir, "missing") => "no such file", dir => "not a regular file", plain => "not executable (chmod +x #{plain})" }.each do |bin, problem|
        error, took = start_failure({ "SVC_SANDBOX_BIN" => bin })
        assert_operator took, :<, 5
        assert_includes error.message, "SVC_SANDBOX_BIN=#{bin}: #{problem}"
        assert_includes error.message, "Set it to the svc-sandbox executable"
      end
    end
  end

  # Issue: the advice was to install svc-sandbox from the npm registry, which does not have it.
  # The error names SVC_SANDBOX_BIN, SVC_SANDBOX_URL and `npm run build:binary` instead.
  def assert_says_how_to_get_a_server(message)
    assert_includes message, "Set SVC_SANDBOX_BIN to the svc-sandbox executable (`npm run build:binary` in a svc-sandbox checkout"
    assert_includes message, "SVC_SANDBOX_URL"
    assert_includes message, "svc-sandbox exec -- rake test"
    refute_match(/npm install|npx svc-sandbox@|registry/, message.sub(/Its last lines of output:.*/m, ""))
  end

  def test_with_no_bin_no_svc_sandbox_and_no_npx_it_says_how_to_get_a_server
    Dir.mktmpdir do |empty|
      error, took = Dir.chdir(empty) { start_failure({ "SVC_SANDBOX_BIN" => nil, "PATH" => empty }) }

      assert_operator took, :<, 5
      assert_equal "server_start_failed", error.code
      assert_includes error.message, "SVC_SANDBOX_URL and SVC_SANDBOX_BIN are not set, no svc-sandbox is on PATH or in node_modules/.bin"
      assert_says_how_to_get_a_server(error.message)
      assert_equal 1, error.message.lines.size
    end
  end

  def test_when_npx_finds_no_svc_sandbox_the_error_says_how_to_get_a_server_not_only_npxs_404
    Dir.mktmpdir do |dir|
      script(dir, "npx", "echo 'npm error 404 Not Found - GET https://registry.example/svc-sandbox - Not found' >&2\nexit 1")
      error, = Dir.chdir(dir) { start_failure({ "SVC_SANDBOX_BIN" => nil, "PATH" => dir }) }

      assert_includes error.message, "exited (exit 1) before printing its ready line"
      assert_includes error.message, "npx --no-install runs only a svc-sandbox this project installed"
      assert_says_how_to_get_a_server(error.message)
      assert_includes error.message, "  npm error 404" # npx's own words stay, last
    end
  end

  def test_the_npm_package_of_the_project_comes_before_npx
    Dir.mktmpdir do |dir|
      bin = File.join(dir, "node_modules", ".bin")
      FileUtils.mkdir_p(bin)
      forwarding_script(bin, "svc-sandbox")
      script(dir, "npx", "echo 'npx must not run' >&2; exit 9")
      server = Dir.chdir(dir) { with_env("SVC_SANDBOX_BIN" => nil, "PATH" => dir) { SvcSandbox::Server.start(url: nil) } }

      assert_includes server.inspect, "the npm package of this project"
      assert_equal "npx svc-sandbox show a.json", server.show_command("a.json")
      server.session { |s| assert_match(/\Ases_/, s.id) }
      server.stop
    end
  end

  def test_svc_sandbox_on_path_comes_before_npx
    Dir.mktmpdir do |dir|
      forwarding_script(dir, "svc-sandbox")
      script(dir, "npx", "echo 'npx must not run' >&2; exit 9")
      server = with_env("SVC_SANDBOX_BIN" => nil, "PATH" => dir) { SvcSandbox::Server.start(url: nil) }

      assert_includes server.inspect, "svc-sandbox on PATH (#{dir}/svc-sandbox)"
      server.session { |s| assert_equal "2026-01-01T00:00:01.000Z", s.advance("1s")["now"] }
      server.stop
      assert wait_gone(server.pid)
    end
  end

  def test_npx_comes_last_and_may_not_install_anything
    Dir.mktmpdir do |dir|
      args = File.join(dir, "args")
      forwarding_script(dir, "npx", %(echo "$@" > '#{args}'\n[ "$1 $2" = "--no-install svc-sandbox" ] || exit 9\nshift 2))
      server = with_env("SVC_SANDBOX_BIN" => nil, "PATH" => dir) { SvcSandbox::Server.start(url: nil) }

      assert_equal "--no-install svc-sandbox serve --port 0 --exit-on-stdin-close\n", File.read(args)
      server.session { |s| assert_match(/\Ases_/, s.id) }
      server.stop
    end
  end

  def test_a_server_that_prints_no_ready_line_is_killed_after_the_start_timeout
    Dir.mktmpdir do |dir|
      pid_file = File.join(dir, "pid")
      # It ignores SIGTERM too: the helper ends it with SIGKILL.
      bin = script(dir, "svc-sandbox", "echo $$ > '#{pid_file}'\ntrap '' TERM\necho 'warming up' >&2\nexec tail -f /dev/null")

      error, took = start_failure({ "SVC_SANDBOX_BIN" => bin }, start_timeout: 1)

      assert_operator took, :<, 1 + SvcSandbox::Child::TERM_GRACE + 3
      assert_includes error.message, "svc-sandbox from SVC_SANDBOX_BIN=#{bin} printed no ready line within 1 s"
      assert_includes error.message, "SVC_SANDBOX_START_TIMEOUT"
      assert_includes error.message, "  warming up"
      assert wait_gone(Integer(File.read(pid_file))), "the stuck server was left running"
    end
  end

  def test_a_server_that_exits_before_its_ready_line_shows_its_stderr
    Dir.mktmpdir do |dir|
      bin = script(dir, "svc-sandbox", "echo 'port 1 is busy' >&2\nexit 3")

      error, = start_failure({ "SVC_SANDBOX_BIN" => bin })

      assert_includes error.message, "exited (exit 3) before printing its ready line"
      assert_includes error.message, "Its last lines of output:\n  port 1 is busy"
    end
  end

  def test_a_first_line_that_is_not_the_ready_line_fails_the_start
    Dir.mktmpdir do |dir|
      bin = script(dir, "svc-sandbox", "echo 'Usage: something else'\nexec tail -f /dev/null")

      error, took = start_failure({ "SVC_SANDBOX_BIN" => bin })

      assert_operator took, :<, 5
      assert_includes error.message, %(printed "Usage: something else" instead of its ready line)
    end
  end

  def test_a_server_that_dies_mid_run_fails_the_next_call_naming_it_and_the_session
    server = SvcSandbox::Server.start(url: nil)
    session = server.session
    Process.kill("KILL", server.pid)
    began = monotonic

    error = assert_raises(SvcSandbox::ConnectionError) { session.advance("1s") }

    assert_operator monotonic - began, :<, 5
    assert_includes error.message, "advance on session #{session.id}: nothing answers at #{server.url}"
    assert_includes error.message, "The server this process started (pid #{server.pid}, from SVC_SANDBOX_BIN=#{ENV["SVC_SANDBOX_BIN"]}) " \
                                   "has ended (killed by SIGKILL); it is not restarted"
    # Short: the cause is said on the error's own line, with no chain of Errno below it.
    assert_nil error.cause
    refute_includes error.full_message(highlight: false), "Errno::ECONNREFUSED)"
  ensure
    server&.stop
  end

  def test_a_control_call_that_hangs_times_out_naming_the_session
    stuck = StuckServer.new(hang_on: "/advance")
    session = SvcSandbox::Server.connect(stuck.url, timeout: 0.5).session
    began = monotonic

    error = assert_raises(SvcSandbox::TimeoutError) { session.advance("1s") }

    assert_operator monotonic - began, :<, 5
    assert_equal "timeout", error.code
    assert_includes error.message, "advance on session ses_stuck: no answer from #{stuck.url.delete_suffix("/__sandbox")} within 0.5 s"
    assert_includes error.message, "SVC_SANDBOX_TIMEOUT"
  ensure
    stuck&.stop
  end

  def test_a_server_that_accepts_and_never_answers_fails_the_connect_in_time
    silent = TCPServer.new("127.0.0.1", 0)
    began = monotonic

    error = with_env("SVC_SANDBOX_TIMEOUT" => "0.5") do
      assert_raises(SvcSandbox::TimeoutError) { SvcSandbox::Server.connect("http://127.0.0.1:#{silent.addr[1]}/__sandbox") }
    end

    assert_operator monotonic - began, :<, 5
    assert_includes error.message, "check the server: no answer"
  ensure
    silent&.close
  end

  def test_timeouts_from_the_environment_must_be_positive_numbers
    %w[SVC_SANDBOX_TIMEOUT SVC_SANDBOX_START_TIMEOUT].each do |name|
      error = with_env(name => "soon") { assert_raises(SvcSandbox::Error) { SvcSandbox::Server.start(url: nil) } }
      assert_equal "#{name} must be a positive number of seconds (got \"soon\").", error.message
    end
  end

  def test_a_server_of_its_own_takes_serve_flags_and_stops_when_asked
    server = SvcSandbox::Server.start(url: nil, args: ["--start-time", "2027-05-01T00:00:00Z"])
    server.session { |s| assert_equal Time.utc(2027, 5, 1), s.now }
    began = monotonic

    server.stop

    assert wait_gone(server.pid, timeout: 1), "stop left the server running"
    assert_operator monotonic - began, :<, SvcSandbox::Child::STOP_GRACE
    assert_raises(SvcSandbox::ConnectionError) { server.sessions }
  end

  def test_the_process_server_is_found_once
    servers = Array.new(8) { Thread.new { SvcSandbox.server } }.map(&:value)
    assert_equal [SvcSandbox.server], servers.uniq

    Dir.mktmpdir do |empty|
      output, status = ruby(<<~RUBY, env: { "SVC_SANDBOX_BIN" => nil, "SVC_SANDBOX_URL" => nil, "PATH" => empty })
        require "svc_sandbox"
        first = (SvcSandbox.server rescue $!)
        second = (SvcSandbox.server rescue $!)
        puts first.class, first.equal?(second)
      RUBY
      assert status.success?, output
      assert_equal "SvcSandbox::ServerStartError\ntrue\n", output
    end
  end
end
