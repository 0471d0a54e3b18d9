"""JSON over HTTP to the control API, with http.client: bounded, and every failure a SandboxError.

The helper trusts the server at ``SVC_SANDBOX_URL`` no more than it must: it follows no redirect,
gives each call one deadline for the whole exchange (connect, headers and body), and reads at
most ``MAX_ANSWER_BYTES`` of an answer. Each refusal names the server's URL.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional
from urllib.parse import urlencode, urlsplit

from .errors import SandboxConnectionError, SandboxError, SandboxTimeoutError

DEFAULT_TIMEOUT = 60.0
"""Seconds a control call may take, answer included. An advance waits for the webhook deliveries
it starts, each bounded by the session's ``webhook_timeout`` (10 s by default), so a minute
covers a day of retries to a receiver that answers."""

MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""The largest answer read (64 MiB): a snapshot of a long session is a few MiB; more is refused."""

_CHUNK = 1024 * 1024


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


class _Deadline:
    """Shuts the connection's socket down when the call's time is up, however the server drips its answer.

    A socket timeout bounds each read, not the call: a server that sends a byte a second would
    hold a call for ever. The watchdog ends it at the deadline, from another thread, which wakes
    the blocked read.
    """

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.expired = False
        self._sock: Optional[socket.socket] = None
        self._lock = threading.Lock()
        self._timer: Optional[threading.Timer] = None

    def left(self) -> float:
        return max(self.end - time.monotonic(), 0.001)

    def watch(self, sock: Optional[socket.socket]) -> None:
        self._sock = sock
        self._timer = threading.Timer(self.left(), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._sock is not None:
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._sock = None


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
        query: Optional[Mapping[str, Any]] = None,
        expect: str = "json",
        session_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_events: Optional[int] = None,
    ) -> Any:
        """The decoded answer (JSON; bytes, text or None as ``expect`` says); raises SandboxError for 4xx/5xx or no answer.

        ``expect="events"`` reads a server-sent event stream until ``max_events`` events came or the
        deadline passed (``timeout``, at most the transport's own: a stream never ends by itself),
        and returns the events read as ``{"event", "data", "id"}`` dicts.
        """
        __tracebackhide__ = True
        wait = self.timeout if timeout is None else timeout
        if expect == "events":
            wait = min(wait, self.timeout)
            if max_events is not None and max_events < 1:
                raise ValueError(f"max_events={max_events!r}: give a positive number of events, or None to read until the timeout")
        sent = {name: value for name, value in (query or {}).items() if value is not None}
        target = f"{path}?{urlencode(sent)}" if sent else path
        headers = {
            "Accept": "application/json" if expect in ("json", "none") else "text/event-stream" if expect == "events" else "*/*"
        }
        data: Optional[bytes] = None
        if method not in ("GET", "HEAD", "DELETE") or body is not None:
            # The server refuses a control body of any other type (cross-site forms cannot send this one).
            headers["Content-Type"] = "application/json"
            data = b"" if body is None else json.dumps(body).encode("utf-8")
        deadline = _Deadline(wait)
        connection = http.client.HTTPConnection(self.host, self.port, timeout=wait)
        try:
            connection.connect()
            deadline.watch(connection.sock)
            connection.request(method, target, body=data, headers=headers)
            answer = connection.getresponse()
            status = answer.status
            if 300 <= status < 400:
                location = answer.getheader("Location") or "no Location"
                raise SandboxError(
                    f"{self.base_url} answered {method} {target} with {status}, a redirect to {location}: the helper follows "
                    "no redirect (a svc-sandbox server sends none). Is SVC_SANDBOX_URL the address of a svc-sandbox server?",
                    status=status,
                    code="redirect_refused",
                    operation=operation,
                    session_id=session_id,
                )
            if expect == "events" and 200 <= status < 300:
                return self._read_events(answer, deadline, max_events, method, target, operation, session_id)
            raw = self._read(answer, method, target, operation, session_id)
            deadline.cancel()
            if deadline.expired:  # the watchdog cut the answer short: what was read is not all of it
                raise socket.timeout()
        except SandboxError:
            raise
        except (OSError, http.client.HTTPException) as error:
            deadline.cancel()
            if deadline.expired or isinstance(error, (socket.timeout, TimeoutError)):
                raise SandboxTimeoutError(
                    f"no answer from {self.base_url} within {wait:g} s ({method} {target}; the bound covers the whole call: "
                    "connect, headers and body). Raise it with "
                    "SVC_SANDBOX_TIMEOUT (seconds) or timeout=...; an advance waits for its webhook deliveries, each up to "
                    "the session's webhook_timeout, so a receiver that never answers holds it (give the session "
                    "webhook_timeout='1s').",
                    code="timeout",
                    operation=operation,
                    session_id=session_id,
                ) from None
            gone = self.diagnose() if self.diagnose else None
            raise SandboxConnectionError(
                gone
                or f"no answer from {self.base_url} ({method} {target}): {error or type(error).__name__}. Is the svc-sandbox "
                "server still running there?",
                code="connection_failed",
                operation=operation,
                session_id=session_id,
            ) from None
        finally:
            deadline.cancel()
            connection.close()
        return decode(status, raw, method, target, expect=expect, base_url=self.base_url, operation=operation, session_id=session_id)

    def _read(self, answer: http.client.HTTPResponse, method: str, target: str, operation: str, session_id: Optional[str]) -> bytes:
        """The answer's body, at most MAX_ANSWER_BYTES: one byte more is a refusal naming the server."""
        limit = MAX_ANSWER_BYTES
        length = answer.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            raise self._too_large(method, target, f"{int(length)} bytes", operation, session_id)
        chunks = []
        size = 0
        while size <= limit:
            chunk = answer.read(min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise self._too_large(method, target, "more", operation, session_id)
        return b"".join(chunks)

    def _read_events(
        self,
        answer: http.client.HTTPResponse,
        deadline: _Deadline,
        max_events: Optional[int],
        method: str,
        target: str,
        operation: str,
        session_id: Optional[str],
    ) -> List[Dict[str, Any]]:
        """The stream's events until ``max_events`` or the deadline (then no error: a stream has no end), at most MAX_ANSWER_BYTES read."""
        events: List[Dict[str, Any]] = []
        pending = bytearray()
        size = 0
        frame: Dict[str, Any] = {}
        data: List[str] = []
        while max_events is None or len(events) < max_events:
            try:
                chunk = answer.read1(_CHUNK) if not deadline.expired else b""
            except (OSError, http.client.HTTPException) as error:
                # Time is up (the watchdog shut the socket, or the read's own timeout, the same deadline, came first).
                if deadline.expired or isinstance(error, (socket.timeout, TimeoutError)):
                    break
                raise
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise self._too_large(method, target, "more", operation, session_id)
            pending += chunk
            if b"\n" not in chunk:  # a line still coming: split only when one ends, never a growing line again and again
                continue
            *lines, rest = bytes(pending).split(b"\n")
            pending = bytearray(rest)
            for raw_line in lines:
                line = raw_line.rstrip(b"\r").decode("utf-8", "replace")
                if line == "":
                    if data:
                        text = "\n".join(data)
                        try:
                            value: Any = json.loads(text)
                        except ValueError:
                            value = text
                        events.append({"event": frame.get("event", "message"), "data": value, "id": frame.get("id")})
                        if max_events is not None and len(events) >= max_events:
                            return events
                    frame, data = {}, []
                    continue
                if line.startswith(":"):
                    continue
                name, _, value_text = line.partition(":")
                value_text = value_text[1:] if value_text.startswith(" ") else value_text
                if name == "data":
                    data.append(value_text)
                elif name in ("event", "id"):
                    frame[name] = value_text
        return events

    def _too_large(self, method: str, target: str, size: str, operation: str, session_id: Optional[str]) -> SandboxError:
        return SandboxError(
            f"{self.base_url} answered {method} {target} with {size} than the helper reads ({MAX_ANSWER_BYTES} bytes, 64 MiB): "
            "is it a svc-sandbox server?",
            code="answer_too_large",
            operation=operation,
            session_id=session_id,
        )


def decode(
    status: int,
    raw: bytes,
    method: str,
    path: str,
    *,
    expect: str = "json",
    base_url: str = "svc-sandbox",
    operation: str,
    session_id: Optional[str],
) -> Any:
    """The decoded body of a 2xx answer, or the SandboxError of any other."""
    if 200 <= status < 300 and expect != "json":
        if expect == "bytes":
            return raw
        return raw.decode("utf-8", "replace") if expect == "text" else None
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        raise SandboxError(
            f"{base_url} answered {method} {path} with {status} and a body that is not JSON ({raw[:80]!r}): is it a "
            "svc-sandbox server?",
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
            f"{base_url} answered {method} {path} with {status} without the error envelope: {raw[:200]!r}",
            status=status,
            code="invalid_response",
            operation=operation,
            session_id=session_id,
        )
    raise SandboxError(
        str(error.get("message", "")),
        code=str(error.get("code", "error")),
        param=error.get("param") if isinstance(error.get("param"), str) else None,
        status=status,
        operation=operation,
        session_id=session_id,
    )
