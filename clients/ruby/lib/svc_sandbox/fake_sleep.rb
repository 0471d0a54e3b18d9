# frozen_string_literal: true

require "time"
require "svc_sandbox/errors"

module SvcSandbox
  # The record of a session's virtual sleeps ({Session#sleeps}): what an SDK's back-off asked
  # for, in the order it asked, each as given to `sleep` (seconds). It is emptied when a
  # {Session#fake_sleep} begins and kept after it ends, so a test asserts on it afterwards.
  #
  # @example
  #   s.inject_fault(method: "POST", path: "/v1/calls", status: 503, retry_after: 2, times: 2)
  #   sleeps = s.fake_sleep { |record| my_sdk.create_call(to: "+14155550123"); record }
  #   sleeps.calls # => [2, 2]
  class Sleeps
    def initialize
      @lock = Mutex.new
      @calls = []
    end

    # @return [Array<Numeric>] every sleep's seconds, in the order they began
    def calls
      @lock.synchronize { @calls.dup }
    end

    # @return [Numeric] the seconds of all of them together
    def total
      calls.sum(0)
    end

    # @return [Integer] how many sleeps there were
    def size
      @lock.synchronize { @calls.size }
    end

    def inspect
      "#<#{self.class} #{calls.inspect}>"
    end
    alias to_s inspect

    # @api private
    def record(seconds)
      @lock.synchronize { @calls << seconds }
    end

    # @api private
    def clear
      @lock.synchronize { @calls.clear }
    end
  end

  # A session's virtual clock as a sleeper: {#sleep} waits on virtual time by advancing it.
  #
  # A sleep of x seconds that begins at virtual instant T means "until virtual time reaches
  # T + x". T is the session's now as last seen (kept from every advance's answer), read
  # without waiting; the advance itself is serialised and moves the clock only by what is still
  # missing. So 250 threads that each sleep 0.6 s at the same instant move the clock 0.6 s once,
  # and the other 249 find it already there.
  #
  # @api private
  class VirtualClock
    # @return [Sleeps] every sleep on this clock since the session began or the latest fake_sleep did
    attr_reader :sleeps

    def initialize(session)
      @session = session
      @sleeps = Sleeps.new
      @advancing = Mutex.new
      @seen = Mutex.new
      @now_ms = nil
    end

    # Keeps the virtual now an answer carried (an ISO 8601 string); returns it in milliseconds.
    def observe(iso)
      ms = milliseconds(iso)
      @seen.synchronize { @now_ms = ms }
      ms
    end

    # The clock moved in a way no answer said (a trigger, a scenario, a reset): read it again
    # before the next sleep.
    def forget
      @seen.synchronize { @now_ms = nil }
    end

    # Reads the session's now from the server; returns it in milliseconds.
    def refresh
      observe(@session.info.fetch("now"))
    end

    def sleep(seconds)
      ms = interval_ms(seconds)
      @sleeps.record(seconds)
      target = now_ms + ms
      @advancing.synchronize do
        gap = target - now_ms
        @session.advance(gap) if gap.positive?
      end
      (ms / 1000.0).round
    end

    private

    def now_ms
      @seen.synchronize { @now_ms } || refresh
    end

    def milliseconds(iso)
      (Time.iso8601(iso).to_r * 1000).round
    end

    # Kernel#sleep's rules: a non-negative number. Virtual time counts whole milliseconds.
    def interval_ms(seconds)
      unless seconds.is_a?(Numeric) && !seconds.is_a?(Complex)
        raise Error.new(
          "sleep on session #{@session.id}: a sleep needs a number of seconds (got #{seconds.inspect}); without one it would " \
          "never wake on virtual time.",
          code: "invalid_argument",
        )
      end
      raise ArgumentError, "time interval must not be negative" if seconds.negative?
      raise Error.new("sleep on session #{@session.id}: #{seconds} is not a finite number of seconds.", code: "invalid_argument") unless seconds.finite?

      (seconds * 1000).round
    end
  end

  # Routes Kernel#sleep to a {VirtualClock} while {Session#fake_sleep} runs. The hooks are
  # prepended to Kernel once, at the first fake_sleep, and pass every sleep on to the real one
  # whenever no fake_sleep is active.
  #
  # @api private
  module FakeSleep
    LOCK = Mutex.new
    @active = nil
    @depth = 0
    @installed = false

    # Kernel#sleep, private as it is.
    module Hook
      private

      def sleep(*args)
        FakeSleep.route(args, caller_locations(1, 1).first) { super }
      end
    end

    # Kernel.sleep, public as it is.
    module SingletonHook
      def sleep(*args)
        FakeSleep.route(args, caller_locations(1, 1).first) { super }
      end
    end

    class << self
      # Runs the block with every Kernel#sleep of the process going to `clock`.
      def activate(clock)
        LOCK.synchronize do
          install
          if @active && !@active.equal?(clock)
            raise Error.new(
              "fake_sleep: another session's fake_sleep is active. It replaces Kernel#sleep for every thread of the " \
              "process, so only one session at a time can have it.",
              code: "invalid_argument",
            )
          end
          @active = clock
          @depth += 1
        end
        begin
          yield
        ensure
          LOCK.synchronize do
            @depth -= 1
            @active = nil if @depth.zero?
          end
        end
      end

      # Whether a fake_sleep of `clock` is running now.
      def active?(clock)
        @active.equal?(clock)
      end

      # A sleep: virtual while a fake_sleep is active, real otherwise. The timeout library's own
      # sleeps stay real: they measure how long a block may run, in real time.
      def route(args, caller)
        clock = @active
        return yield if clock.nil? || caller&.path&.end_with?("/timeout.rb")

        raise ArgumentError, "wrong number of arguments (given #{args.size}, expected 0..1)" if args.size > 1

        clock.sleep(args.first)
      end

      private

      def install
        return if @installed

        Kernel.prepend(Hook)
        Kernel.singleton_class.prepend(SingletonHook)
        @installed = true
      end
    end
  end
end
