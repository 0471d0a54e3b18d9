"""The helper's exceptions: one base class, with the server's error envelope as attributes."""

from __future__ import annotations

from typing import Optional


class SandboxError(Exception):
    """A control call the server refused (4xx/5xx), or that never got an answer.

    ``status``, ``code``, ``message`` and ``param`` are the server's error envelope
    (``{"error": {"code", "message", "param"?}}``); ``operation`` and ``session_id`` say which
    call of the helper failed, and on which session. ``status`` is 0 when there was no answer.
    """

    status: int
    code: str
    message: str
    param: Optional[str]
    operation: Optional[str]
    session_id: Optional[str]

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "error",
        param: Optional[str] = None,
        operation: Optional[str] = None,
        session_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.operation = operation
        self.session_id = session_id

    def __str__(self) -> str:
        where = self.operation or "svc-sandbox"
        if self.session_id is not None:
            where += f" (session {self.session_id})"
        answer = f"{self.status} {self.code}" if self.status else self.code
        param = f" [param: {self.param}]" if self.param else ""
        return f"{where} failed: {answer}: {self.message}{param}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r}, param={self.param!r})"


class SandboxConnectionError(SandboxError, ConnectionError):
    """No answer: the server is unreachable, refused the connection, or died mid-call."""


class SandboxTimeoutError(SandboxConnectionError, TimeoutError):
    """The server did not answer within the helper's timeout (``SVC_SANDBOX_TIMEOUT``)."""


class ServerStartError(SandboxError):
    """The helper could not find or start ``svc-sandbox serve`` (``code`` says why)."""
