# frozen_string_literal: true

require "test_helper"
require "timeout"

# fake_sleep and Session#sleep: an SDK's back-off runs on the session's virtual clock.
class FakeSleepTest < Minitest::Test
  include Support

  # What an SDK does: a 429 or 503 with Retry-After is retried after sleeping that many seconds.
  class TinySdk
    attr_reader :slept

    def initialize(session, sleeper: nil)
      @session = session
      @sleeper = sleeper
      @slept = Queue.new
      @in_flight = 0
      @lock = Mutex.new
    end

    def in_flight?
      @lock.synchronize { @in_flight.positive? }
    end

    def create_call(to)
      6.times do
        @lock.synchronize { @in_flight += 1 }
        begin
          status, body, response = Support.api(@session, "POST", "/v1/calls", { to: to, from: "+14155550100" })
        ensure
          @lock.synchronize { @in_flight -= 1 }
        end
        return body if status == 201
        raise "unexpected #{status}: #{body}" unless [429, 503].include?(status)

        seconds = Integer(response["retry-after"])
        @slept << seconds
        @sleeper ? @sleeper.call(seconds) : sleep(seconds)
      end
      raise "gave up after 6 attempts"
    end
  end

  def setup
    @s = SvcSandbox.session(seed: 5)
  end

  # Makes `threads` act at one virtual instant, as clients of a real service do when time is
  # frozen: each advance waits until no request is in flight and every other thread waits on
  # time (blocked in its sleep) or has finished. Without this, a thread that the machine's
  # scheduler delays would begin its sleep after the clock moved, at a later virtual instant.
  def advance_when_settled(threads, count, sdk: nil)
    session = @s
    session.define_singleton_method(:advance) do |duration|
      deadline = Support.monotonic + 30
      until threads.size == count && !sdk&.in_flight? &&
            threads.all? { |t| t.equal?(Thread.current) || !t.alive? || t.status == "sleep" }
        raise "the threads never settled" if Support.monotonic > deadline

        Thread.pass
      end
      super(duration)
    end
  end

  def teardown
    @s.close
  end

  def test_a_burst_over_the_rate_limit_backs_off_on_virtual_time_exactly
    sdk = TinySdk.new(@s)
    started = @s.now
    threads = []
    advance_when_settled(threads, 250, sdk: sdk)

    calls = @s.fake_sleep do
      250.times { threads << Thread.new { sdk.create_call("+14155550123") } }
      threads.map(&:value)
    end

    assert_equal 250, calls.map { |c| c["id"] }.uniq.size
    slept = Array.new(sdk.slept.size) { sdk.slept.pop }
    assert_operator slept.size, :>=, 150 # at least the 150 refused in the first one-second window
    assert_equal [1], slept.uniq
    # 100 calls a window: three windows, so the clock moved 2 s. Each sleep waits until its own
    # start + 1 s, so the hundreds of sleeps that began together moved it once per window.
    assert_equal started + 2, @s.now
  end

  def test_a_long_retry_after_costs_no_real_time
    @s.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 60)
    sdk = TinySdk.new(@s)
    began = monotonic

    call = @s.fake_sleep { sdk.create_call("+14155550123") }

    assert_equal "ringing", call["status"]
    assert_equal [60], [sdk.slept.pop]
    assert_equal Time.utc(2026, 1, 1, 0, 1), @s.now
    assert_operator monotonic - began, :<, 30
  end

  # Issue: Python's fake_sleep gives a record of the sleeps (sleeps.calls); Ruby had none.
  def test_the_sleeps_are_recorded_in_order_and_kept_after_the_block
    @s.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 2, times: 2)
    sdk = TinySdk.new(@s)

    seen = @s.fake_sleep do |sleeps|
      sdk.create_call("+14155550123")
      sleep 0.5
      sleeps.calls
    end

    assert_equal [2, 2, 0.5], seen
    assert_equal [2, 2, 0.5], @s.sleeps.calls
    assert_equal 4.5, @s.sleeps.total
    assert_equal Time.utc(2026, 1, 1, 0, 0, 4, 500_000), @s.now
    sleep 0.001 # real: not recorded
    assert_equal 3, @s.sleeps.size

    @s.fake_sleep { |sleeps| assert_equal [], sleeps.calls } # a new fake_sleep starts a new record
    @s.fake_sleep { sleep(1) && @s.fake_sleep { sleep 2 } } # a nested one keeps the outer one's
    assert_equal [1, 2], @s.sleeps.calls
    @s.sleep(3) # the sleeper method records too
    assert_equal [1, 2, 3], @s.sleeps.calls
  end

  def test_an_sdk_that_takes_a_sleeper_gets_the_sessions_sleep
    @s.inject_fault(method: "POST", path: "/v1/calls", status: 429, retry_after: 30)
    sdk = TinySdk.new(@s, sleeper: @s.method(:sleep))

    sdk.create_call("+14155550123")

    assert_equal Time.utc(2026, 1, 1, 0, 0, 30), @s.now
    assert_equal 2, @s.sleep(1.6) # rounded seconds, as Kernel#sleep answers
    assert_equal Time.utc(2026, 1, 1, 0, 0, 31, 600_000), @s.now
  end

  def test_threads_sleeping_at_one_instant_move_the_clock_by_the_longest_sleep
    threads = []
    advance_when_settled(threads, 250)
    @s.fake_sleep do
      250.times { |i| threads << Thread.new { sleep(i.even? ? 0.6 : 0.25) } }
      threads.each(&:join)
      assert_equal Time.utc(2026, 1, 1, 0, 0, 0, 600_000), @s.now
      sleep 2
      Kernel.sleep(0.5)
    end

    assert_equal Time.utc(2026, 1, 1, 0, 0, 3, 100_000), @s.now
  end

  def test_sleep_is_real_again_after_the_block_even_when_it_raises
    assert_raises(RuntimeError) { @s.fake_sleep { raise "boom" } }

    sleep 0.001 # real: the virtual clock stays where it was
    assert_equal Time.utc(2026, 1, 1), @s.now
    @s.fake_sleep { @s.fake_sleep { sleep 1 } && sleep(1) } # nested: restored when the outer block ends
    sleep 0.001
    assert_equal Time.utc(2026, 1, 1, 0, 0, 2), @s.now
  end

  def test_a_clock_moved_by_a_trigger_or_a_reset_is_read_again_before_the_next_sleep
    @s.fake_sleep do
      @s.trigger("call.completed")
      moved = @s.now
      sleep 1
      assert_equal moved + 1, @s.now
      @s.reset
      sleep 1
      assert_equal Time.utc(2026, 1, 1, 0, 0, 1), @s.now
    end
  end

  def test_the_timeout_librarys_sleeps_stay_real
    value = @s.fake_sleep { Timeout.timeout(30) { :in_time } }

    assert_equal :in_time, value
    assert_equal Time.utc(2026, 1, 1), @s.now
  end

  def test_one_session_at_a_time_may_fake_sleep
    entered = Queue.new
    release = Queue.new
    holder = Thread.new { @s.fake_sleep { entered << true && release.pop } }
    entered.pop

    SvcSandbox.session do |other|
      error = assert_raises(SvcSandbox::Error) { other.fake_sleep { sleep 1 } }
      assert_includes error.message, "another session's fake_sleep is active"
    end
  ensure
    release << true
    holder&.join
  end

  def test_a_sleep_needs_a_non_negative_number
    @s.fake_sleep do
      assert_raises(ArgumentError) { sleep(-1) }
      assert_equal "invalid_argument", assert_raises(SvcSandbox::Error) { sleep("1") }.code
      assert_includes assert_raises(SvcSandbox::Error) { sleep }.message, "never wake"
    end
    assert_raises(ArgumentError) { @s.fake_sleep }
  end
end
