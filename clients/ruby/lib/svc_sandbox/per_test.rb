# frozen_string_literal: true

require "json"
require "fileutils"

module SvcSandbox
  # What the Minitest and RSpec helpers share: `sandbox_options` on the class, a lazy `sandbox`
  # per test, and its end (a snapshot of a failed test's session, then close).
  #
  # @api private
  module PerTest
    # Class-level options of the sessions a test class (or example group) makes.
    module ClassMethods
      # Sets the options of every `sandbox` made in this class and its subclasses (merged over a
      # superclass's), or, with no arguments, returns them.
      #
      # @param options [Hash] as {SvcSandbox.session} takes them: `seed:`, `start_time:`, `timeout:`, ...
      # @example
      #   class CallsTest < Minitest::Test
      #     include SvcSandbox::Minitest
      #     sandbox_options seed: 7, start_time: "2026-03-01T09:00:00Z"
      #   end
      def sandbox_options(**options)
        inherited = superclass.respond_to?(:sandbox_options) ? superclass.sandbox_options : {}
        @svc_sandbox_options = (@svc_sandbox_options || {}).merge(options) unless options.empty?
        inherited.merge(@svc_sandbox_options || {})
      end
    end

    SNAPSHOT_NAMES = {}
    SNAPSHOT_LOCK = Mutex.new
    private_constant :SNAPSHOT_NAMES, :SNAPSHOT_LOCK

    # The test's own session, made at its first use (with the class's `sandbox_options`) and
    # closed after the test.
    #
    # @return [Session]
    def sandbox
      @svc_sandbox ||= SvcSandbox.session(**self.class.sandbox_options)
    end

    private

    # Closes the test's session, if it made one; after a failure, with SVC_SANDBOX_SNAPSHOTS
    # set, first writes its snapshot there. Returns the line saying where, or nil.
    def svc_sandbox_finish(test_name, failed)
      session = @svc_sandbox
      return nil unless session

      @svc_sandbox = nil
      begin
        note = PerTest.write_snapshot(session, test_name) if failed
      ensure
        session.close
      end
      note
    end

    class << self
      # Writes `session`'s snapshot to SVC_SANDBOX_SNAPSHOTS/<test name>.json, writing over
      # nothing but a regular file, and returns a line with the command that opens it. Failing
      # to write it says why and fails nothing: the test has failed already.
      #
      # @api private
      def write_snapshot(session, test_name)
        dir = ENV["SVC_SANDBOX_SNAPSHOTS"]
        return nil if dir.nil? || dir.empty?

        FileUtils.mkdir_p(dir)
        path = File.join(dir, "#{unique_name(test_name)}.json")
        if File.symlink?(path) || (File.exist?(path) && !File.file?(path))
          return "svc-sandbox: not writing the session's snapshot to #{path}: something other than a regular file is there."
        end

        # NOFOLLOW and NONBLOCK: a symlink or a FIFO put there since the check is refused, not followed or waited on.
        File.open(path, File::WRONLY | File::CREAT | File::TRUNC | File::NOFOLLOW | File::NONBLOCK, 0o644) do |file|
          file.write(JSON.pretty_generate(session.snapshot))
        end
        "svc-sandbox: the session of this test is in #{path}; open it with: #{session.server.show_command(path)}"
      rescue SystemCallError, Error => e
        "svc-sandbox: could not write the session's snapshot to #{dir}: #{e.message}"
      end

      private

      # The test's name made safe for a file name, and unique within this process.
      def unique_name(test_name)
        base = test_name.to_s.gsub(/[^A-Za-z0-9._-]+/, "_").gsub(/\A[._]+/, "")[0, 120]
        base = "test" if base.empty?
        SNAPSHOT_LOCK.synchronize do
          count = SNAPSHOT_NAMES[base] = SNAPSHOT_NAMES.fetch(base, 0) + 1
          count == 1 ? base : "#{base}-#{count}"
        end
      end
    end
  end
end
