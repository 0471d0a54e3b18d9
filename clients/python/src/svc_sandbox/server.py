"""``Server``: the svc-sandbox server this process uses, found or started once, stopped when it ends."""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, Union, cast

from ._http import DEFAULT_TIMEOUT, Transport, seconds_from_env, split_base_url
from ._operations import ControlApi
from ._process import DEFAULT_START_TIMEOUT, ServerProcess, server_command
from .errors import SandboxConnectionError, SandboxError, ServerStartError
from . import _wire as wire
from .session import Session
from .types import Duration, SessionInfo

_lock = threading.Lock()
_shared: Optional["Server"] = None
_connected: Dict[str, "Server"] = {}
_started: "weakref.WeakSet[Server]" = weakref.WeakSet()


class Server:
    """A svc-sandbox server: the one ``svc-sandbox exec`` runs, or one this process started.

    :meth:`start` finds it: under ``svc-sandbox exec`` (``SVC_SANDBOX_URL`` set) it connects to
    that server; otherwise it starts ``svc-sandbox serve --port 0`` once per process, from
    ``SVC_SANDBOX_BIN``, else ``svc-sandbox`` on PATH, else the project's
    ``node_modules/.bin/svc-sandbox`` (from the working directory up), else
    ``npx --no-install svc-sandbox``, and stops it when the process ends, however it ends.

    Example::

        server = Server.start()
        with server.session(seed=42) as s:
            ...
    """

    url: str
    """``http://HOST:PORT``: the /v1 base URL of every session (the control API is under ``/__sandbox``)."""

    def __init__(self, url: str, *, timeout: float, process: Optional[ServerProcess] = None, source: str) -> None:
        self._process = process
        self._transport = Transport(url, timeout, self.exited)
        self.url = self._transport.base_url
        self.api = ControlApi(self._transport)
        """Every control operation, generated from the server's control document: ``server.api.console_numbers(s.id)``."""
        self.source = source
        self._stopped = False

    def __repr__(self) -> str:
        return f"<Server {self.url} ({self.source})>"

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.stop()

    @classmethod
    def start(
        cls,
        *,
        timeout: Optional[float] = None,
        start_timeout: Optional[float] = None,
        fresh: bool = False,
        args: Sequence[str] = (),
    ) -> "Server":
        """The server for this process: connected under ``svc-sandbox exec``, else started once and shared.

        ``timeout``: seconds a control call may take, whole: connect, headers and body (``SVC_SANDBOX_TIMEOUT``,
        default 60). ``start_timeout``: seconds ``serve`` may take to print its ready line
        (``SVC_SANDBOX_START_TIMEOUT``, default 30). ``fresh=True`` starts a server of the
        caller's own instead (never shared, never connected), with extra ``serve`` ``args``
        such as ``["--clock", "realtime"]``.
        """
        if args and not fresh:
            raise ValueError("args= go to a server of your own: pass fresh=True too (the shared server is started once, plainly)")
        wait = timeout if timeout is not None else seconds_from_env("SVC_SANDBOX_TIMEOUT", DEFAULT_TIMEOUT)
        url = os.environ.get("SVC_SANDBOX_URL", "").strip()
        if url and not fresh:
            return cls._connect(url, wait, "SVC_SANDBOX_URL")
        boot = start_timeout if start_timeout is not None else seconds_from_env("SVC_SANDBOX_START_TIMEOUT", DEFAULT_START_TIMEOUT)
        global _shared
        with _lock:
            if not fresh and _shared is not None and _shared.exited() is None and not _shared._stopped:
                return _shared
            try:
                command, source = server_command(os.environ)
                process = ServerProcess(command, source, args, os.environ, boot)
            except ServerStartError as error:
                error.operation = "Server.start"
                raise
            server = cls(process.url, timeout=wait, process=process, source=source)
            _started.add(server)
            if not fresh:
                _shared = server
            return server

    @classmethod
    def connect(cls, url: str, *, timeout: Optional[float] = None) -> "Server":
        """A server already running at ``url`` (``http://HOST:PORT``), e.g. one you keep open to watch its console."""
        wait = timeout if timeout is not None else seconds_from_env("SVC_SANDBOX_TIMEOUT", DEFAULT_TIMEOUT)
        return cls._connect(url, wait, None)

    @classmethod
    def _connect(cls, url: str, timeout: float, variable: Optional[str]) -> "Server":
        base = split_base_url(url, variable=variable)[2]
        with _lock:
            known = _connected.get(base)
            if known is not None and known._transport.timeout == timeout:
                return known
        server = cls(base, timeout=timeout, source=f"{variable}={url}" if variable else url)
        named = f"{variable}={url} is set, but" if variable else f"At {url}"
        try:
            health = server.api.health()
        except SandboxConnectionError as error:
            fix = (
                "Is `svc-sandbox exec` still running? Unset SVC_SANDBOX_URL to let the helper start a server of its own."
                if variable
                else "Start one there with `svc-sandbox serve`, or use Server.start()."
            )
            cause = error.message.split(". Is the svc-sandbox server still running there?")[0]
            message = f"{named} no svc-sandbox server answers there: {cause}. {fix}"
            raise type(error)(message, code=error.code, param=variable, operation="Server.start" if variable else "Server.connect") from None
        except SandboxError as error:
            health = error
        if health != {"status": "ok"}:
            raise SandboxError(
                f"{named} GET /__sandbox/health answered {health!r} there, not {{'status': 'ok'}}: is it a svc-sandbox server?",
                code="invalid_response",
                param=variable,
            )
        with _lock:
            _connected[base] = server
        return server

    @property
    def control_url(self) -> str:
        """``http://HOST:PORT/__sandbox``, as ``svc-sandbox exec`` sets ``SVC_SANDBOX_URL``."""
        return self.url + "/__sandbox"

    @property
    def pid(self) -> Optional[int]:
        """The server's process id when this process started it, else None."""
        return self._process.pid if self._process else None

    def exited(self) -> Optional[str]:
        """None while the server runs (or when it is not ours to watch); else a sentence saying how it ended."""
        return self._process.exited() if self._process else None

    def session(
        self,
        *,
        seed: Optional[int] = None,
        start_time: Union[str, datetime, None] = None,
        clock: Optional[str] = None,
        webhook_timeout: Optional[Duration] = None,
        deprecation: Optional[Mapping[str, Any]] = None,
        chaos: Optional[Mapping[str, Any]] = None,
        snapshot: Union[str, "os.PathLike[str]", Mapping[str, Any], None] = None,
        fork: Union[str, Session, None] = None,
        timeout: Optional[float] = None,
    ) -> Session:
        """A new session: a sandbox of its own, with its own clock, seed, ids and accounts.

        ``seed`` (default the server's, 0), ``start_time`` (ISO 8601 or a ``datetime``; a naive
        one is taken as UTC), ``clock`` (``"manual"``, the default, or ``"realtime"``),
        ``webhook_timeout`` (real time a webhook attempt may take, default 10 s),
        ``deprecation`` (``{"sunset", "link"?, "date"?}``), ``chaos`` (a chaos profile),
        ``snapshot`` (a snapshot dict, or the path of a snapshot file) or ``fork`` (a session,
        or its id, to start from as it is now). ``timeout`` overrides the server's control
        timeout for this session's calls.
        """
        body: Dict[str, Any] = {}
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise TypeError(f"`seed` must be an int, got {seed!r}")
            body["seed"] = seed
        if start_time is not None:
            body["startTime"] = wire.instant(start_time)
        if clock is not None:
            body["clock"] = clock
        if webhook_timeout is not None:
            body["webhookTimeout"] = wire.duration(webhook_timeout, "webhook_timeout")
        if deprecation is not None:
            body["deprecation"] = {name: wire.instant(value) if isinstance(value, datetime) else value for name, value in deprecation.items()}
        if chaos is not None:
            body["chaos"] = dict(chaos)
        if snapshot is not None:
            body["snapshot"] = wire.load_json(snapshot, "Server.session(snapshot=...)") if isinstance(snapshot, (str, os.PathLike)) else dict(snapshot)
        if fork is not None:
            body["from"] = fork.id if isinstance(fork, Session) else fork
        try:
            made = self.api.create_session(body)
        except SandboxError as error:
            error.operation = "Server.session"
            raise
        session = Session(self, made["id"], made["apiKey"], clock=clock, timeout=timeout)
        session._note_now(made["now"])
        return session

    def attach(self, session_id: str, api_key: Optional[str] = None) -> Session:
        """A :class:`Session` for a session made elsewhere (``"default"``, or one a console user made); closing it leaves it be."""
        return Session(self, session_id, api_key, owned=False)

    def sessions(self) -> List[SessionInfo]:
        """Every live session, oldest first."""
        return wire.walk_pages(
            lambda cursor: self.api.list_sessions(limit=wire.PAGE, cursor=cursor), base_url=self.url, operation="Server.sessions"
        )

    def coverage(self) -> Dict[str, Any]:
        """The union of every session's coverage, deleted ones included."""
        return cast(Dict[str, Any], self.api.get_server_coverage())

    def stop(self) -> None:
        """Stops the server if this process started it (a connected one is left running); idempotent, bounded."""
        global _shared
        self._stopped = True
        if self._process is not None:
            self._process.stop()
        with _lock:
            if _shared is self:
                _shared = None


@atexit.register
def _stop_started() -> None:
    for server in list(_started):
        server.stop()


def _after_fork_in_child() -> None:
    # A forked child shares the parent's servers but does not own them: it must neither keep the
    # stdin pipe open (the server would outlive the parent) nor stop them at its exit.
    global _shared, _lock
    _lock = threading.Lock()
    for server in list(_started):
        if server._process is not None:
            server._process.forget_after_fork()
    _started.clear()
    _shared = None
    _connected.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
