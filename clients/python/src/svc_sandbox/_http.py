"""JSON over HTTP to the control API, with http.client: bounded, and every failure a SandboxError."""

from __future__ import annotations

import http.client
import json
import os
import socket
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from .errors import SandboxConnectionError, SandboxError, SandboxTimeoutError

DEFAULT_TIMEOUT = 60.0
"""Seconds a control call may wait for its answer. An advance waits for the webhook deliveries
it starts, each bounded by the session's ``webhook_timeout`` (10 s by default), so a minute
covers a day of retries to a receiver that answers."""


def seconds_from_env(name: str, default: float) -> float:
    """A positive number of seconds from the environment variable ``name``, else ``default``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise SandboxError(
            f"{name}={raw!r} is not a number of seconds: set it to a positive number such as 30, or unset it "
            f"(default {default:g}).",
            code="invalid_environment",
            param=name,
        )
    return value


def split_base_url(url: str, *, variable: Optional[str] = None) -> "tuple[str, int, str]":
    """``(host, port, base)`` of an ``http://HOST:PORT`` URL; a trailing ``/__sandbox`` or ``/`` is dropped."""
    where = f"{variable}={url!r}" if variable else repr(url)
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    if path.endswith("/__sandbox"):
        path = path[: -len("/__sandbox")]
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "http" or not parts.hostname or port is None or path or parts.query or parts.fragment:
        raise SandboxError(
            f"{where} is not the address of a svc-sandbox server: give http://HOST:PORT (or http://HOST:PORT/__sandbox, "
            "as `svc-sandbox exec` sets it).",
            code="invalid_url",
            param=variable,
        )
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    return host, port, f"http://{shown}:{port}"


class Transport:
    """Sends one JSON request per connection (thread-safe: nothing is shared between calls).

    ``diagnose`` is asked, when a call gets no answer, whether the server is known to be gone
    (its process exited): its sentence then replaces the generic one.
    """

    def __init__(self, base_url: str, timeout: float, diagnose: Optional[Callable[[], Optional[str]]] = None) -> None:
        self.host, self.port, self.base_url = split_base_url(base_url)
        self.timeout = timeout
        self.diagnose = diagnose

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        operation: str,
        session_id: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """The decoded JSON answer (None for 204); raises SandboxError for 4xx/5xx or no answer."""
        wait = self.timeout if timeout is None else timeout
        headers = {"Accept": "application/json"}
        data: Optional[bytes] = None
        if method not in ("GET", "HEAD", "DELETE") or body is not None:
            # The server refuses a control body of any other type (cross-site forms cannot send this one).
            headers["Content-Type"] = "application/json"
            data = b"" if body is None else json.dumps(body).encode("utf-8")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=wait)
        try:
            connection.request(method, path, body=data, headers=headers)
            answer = connection.getresponse()
            status, raw = answer.status, answer.read()
        except (socket.timeout, TimeoutError) as error:
            raise SandboxTimeoutError(
                f"no answer from {self.base_url} within {wait:g} s ({method} {path}). Raise the bound with SVC_SANDBOX_TIMEOUT "
                "(seconds) or timeout=...; an advance waits for its webhook deliveries, each up to the session's webhook_timeout, "
                "so a receiver that never answers holds it (give the session webhook_timeout='1s').",
                code="timeout",
                operation=operation,
                session_id=session_id,
            ) from error
        except (OSError, http.client.HTTPException) as error:
            gone = self.diagnose() if self.diagnose else None
            raise SandboxConnectionError(
                gone
                or f"no answer from {self.base_url} ({method} {path}): {error or type(error).__name__}. Is the svc-sandbox server "
                "still running there?",
                code="connection_failed",
                operation=operation,
                session_id=session_id,
            ) from error
        finally:
            connection.close()
        return decode(status, raw, method, path, operation=operation, session_id=session_id)


def decode(status: int, raw: bytes, method: str, path: str, *, operation: str, session_id: Optional[str]) -> Any:
    """The JSON of a 2xx answer, or the SandboxError of any other."""
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        raise SandboxError(
            f"{method} {path} answered {status} with a body that is not JSON ({raw[:80]!r}): is this a svc-sandbox server?",
            status=status,
            code="invalid_response",
            operation=operation,
            session_id=session_id,
        ) from None
    if 200 <= status < 300:
        return value
    error = value.get("error") if isinstance(value, dict) else None
    if not isinstance(error, dict):
        raise SandboxError(
            f"{method} {path} answered {status} without the error envelope: {raw[:200]!r}",
            status=status,
            code="invalid_response",
            operation=operation,
            session_id=session_id,
        )
    raise SandboxError(
        str(error.get("message", "")),
        status=status,
        code=str(error.get("code", "error")),
        param=error.get("param") if isinstance(error.get("param"), str) else None,
        operation=operation,
        session_id=session_id,
    )
