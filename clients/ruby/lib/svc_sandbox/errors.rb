# frozen_string_literal: true

module SvcSandbox
  # What every failure of the helper raises, so one `rescue SvcSandbox::Error` catches them all.
  #
  # For a control call the server refused (4xx) or failed (5xx), `status`, `code` and `param`
  # are those of the answer's error envelope and `message` names the operation, the session and
  # the server's own words:
  #
  #   s.advance("soon")
  #   # SvcSandbox::Error: advance on session ses_…: 400 invalid_parameter: `duration` is not a duration: …
  #   #   (POST /__sandbox/sessions/ses_…/advance)
  #
  # Failures with no answer have `status` nil and a `code` of the helper's own:
  # `connection_failed` ({ConnectionError}), `timeout` ({TimeoutError}), `server_start_failed`
  # ({ServerStartError}), `bad_response`, `session_closed`, `invalid_argument`.
  #
  # @example
  #   begin
  #     s.answer("call_missing")
  #   rescue SvcSandbox::Error => e
  #     e.status # => 404
  #     e.code   # => "not_found"
  #     e.param  # => "id"
  #   end
  class Error < StandardError
    # @return [Integer, nil] the HTTP status of the control answer, nil when there was none
    attr_reader :status
    # @return [String] the error code: the server's (`not_found`), or the helper's own
    attr_reader :code
    # @return [String, nil] the field the server blamed (`duration`, `id`), when it named one
    attr_reader :param
    # @return [String, nil] the server's own message, without the operation and session
    attr_reader :server_message

    def initialize(message, status: nil, code: nil, param: nil, server_message: nil)
      super(message)
      @status = status
      @code = code
      @param = param
      @server_message = server_message
    end
  end

  # Nothing answered: the server is not running (any more), or the address is wrong.
  # `message` names the address, where it came from (SVC_SANDBOX_URL, or the server this
  # process started, with its exit status and last lines of stderr) and the fix.
  class ConnectionError < Error; end

  # The server took longer than the helper's bounded wait: a control call past the request
  # timeout (SVC_SANDBOX_TIMEOUT, default 60 s), or a connection that was never accepted.
  class TimeoutError < Error; end

  # The helper could not start a server of its own: no executable found, SVC_SANDBOX_BIN names
  # no executable file, or the server exited or printed no ready line within the start timeout
  # (SVC_SANDBOX_START_TIMEOUT, default 30 s). `message` names what was tried and its stderr.
  class ServerStartError < Error; end
end
