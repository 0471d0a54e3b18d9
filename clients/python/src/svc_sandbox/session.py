"""``Session``: one sandbox of the server, and every control-API operation on it as a method."""

from __future__ import annotations

import os
import threading
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Type, Union, cast

from . import _wire as wire
from .errors import SandboxError
from .fake_sleep import FakeSleep, _real_sleep
from ._operations import ControlApi
from .scripting import Scripting, operation
from .types import AdvanceResult, Attempt, Delivery, Duration, Event, RequestRecord, ScenarioResult, SessionInfo

if TYPE_CHECKING:
    from .server import Server


class Session(Scripting):
    """One session of the server: a sandbox of its own (clock, seed, ids, accounts, webhook queues).

    Made by :meth:`Server.session`. Its key, :attr:`api_key`, routes to it on the one /v1 base
    URL, :attr:`base_url`: point the code under test there. Methods return the decoded JSON of
    the control API (dicts and lists, field names camelCase as on the wire); arguments are
    snake_case. Every refusal raises :class:`SandboxError`. A context manager: leaving it
    deletes the session (its keys are 401 from then on).

    Example::

        with server.session(seed=42) as s:
            client = MySdk(api_key=s.api_key, base_url=s.base_url)
            call = client.calls.create(to="+14155550123", from_="+14155550100")
            s.advance("65s")
            assert s.call(call.id)["status"] == "completed"
    """

    def __init__(
        self,
        server: "Server",
        session_id: str,
        api_key: Optional[str],
        *,
        owned: bool = True,
        clock: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> None:
        self.server = server
        self.id = session_id
        self.api_key = api_key
        self.base_url = server.url
        self._owned = owned
        self._closed = False
        self._realtime = clock == "realtime"
        self._timeout = timeout
        self._now_ms: Optional[int] = None
        self._sleep_lock = threading.Lock()
        self.api = ControlApi(server._transport, timeout=timeout)
        """Every control operation, generated from the server's control document (``_operations.py``)."""

    def __repr__(self) -> str:
        return f"<Session {self.id} on {self.base_url}{' (closed)' if self._closed else ''}>"

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    # The session itself

    def close(self) -> None:
        """Deletes the session (``DELETE /__sandbox/sessions/{s}``); its keys are 401 from then on.

        Idempotent. A session the server no longer has (deleted elsewhere, or its server has
        exited) counts as closed; one this helper attached to and did not make is left alone.
        """
        if self._closed:
            return
        try:
            if self._owned and self.server.exited() is None:
                self.api.delete_session(self.id)
        except SandboxError as error:
            if error.status != 404:
                error.operation = "Session.close"
                raise
        finally:
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    @operation
    def info(self) -> SessionInfo:
        """``{id, seed, now}``."""
        info: SessionInfo = self.api.get_session(self.id)
        self._note_now(info["now"])
        return info

    @operation
    def now(self) -> datetime:
        """The session's virtual now, a timezone-aware UTC ``datetime``."""
        return wire.parse_instant(self.info()["now"])

    @operation
    def reset(self) -> None:
        """Empties the session and puts its clock back at its start; keys it made stay valid."""
        self._forget_now()
        self.api.reset(self.id)

    def fork(self, **options: Any) -> "Session":
        """A new session that starts as this one is now (``POST /__sandbox/sessions {from}``); ``options`` as :meth:`Server.session`."""
        return self.server.session(fork=self, **options)

    @operation
    def snapshot(self) -> Dict[str, Any]:
        """The session as plain JSON: ``server.session(snapshot=...)`` starts another from it; ``svc-sandbox show FILE`` opens it."""
        return cast(Dict[str, Any], self.api.get_snapshot(self.id))

    @operation
    def coverage(self) -> Dict[str, Any]:
        """What the session's life exercised of the API, and what it never did."""
        return cast(Dict[str, Any], self.api.get_coverage(self.id))

    @operation
    def internal_errors(self) -> List[Dict[str, Any]]:
        """Unexpected failures inside the session's sandbox, each answered as a 500 (empty when healthy)."""
        return cast(List[Dict[str, Any]], self.api.list_internal_errors(self.id)["data"])

    # Time

    @operation
    def advance(self, duration: Duration) -> AdvanceResult:
        """Moves virtual time by ``duration``, running everything due; ``{now, events}``: the events it emitted.

        ``duration``: ``"500ms"``, ``"30s"``, ``"5m"``, ``"2h"``, ``"1d"``, a number of seconds, or a ``timedelta``.
        """
        result: AdvanceResult = self.api.advance(self.id, {"duration": wire.duration(duration, "duration")})
        self._note_now(result["now"])
        return result

    @operation
    def advance_until(self, event_type: str, max: Optional[Duration] = None) -> Event:  # noqa: A002 - the wire's name
        """Moves virtual time until an event of ``event_type`` is emitted (at most ``max``, default 1 day); the event.

        None within ``max``: :class:`SandboxError` 404 with ``param == "until"``.
        """
        body: Dict[str, Any] = {"until": event_type}
        if max is not None:
            body["max"] = wire.duration(max, "max")
        result = self.api.advance(self.id, body)
        self._note_now(result["now"])
        return result["event"]

    @operation
    def sleep(self, seconds: float) -> None:
        """Sleeps ``seconds`` of virtual time: a ``time.sleep`` to give an SDK that takes a sleep function.

        Returns once the session's clock has reached the virtual now at which the sleep began
        plus ``seconds``; sleeps that overlap in several threads move the clock once.
        """
        self._sleep_until(self._sleep_target(seconds))

    def fake_sleep(self) -> FakeSleep:
        """A context manager under which ``time.sleep(x)`` advances this session's clock by ``x`` instead of sleeping.

        It yields a :class:`FakeSleep` whose ``calls`` lists the sleeps (seconds). Nested and
        thread-safe; ``time.sleep`` is restored when the last one exits. Code that did
        ``from time import sleep`` keeps the real one: hand it :meth:`sleep` instead.
        """
        return FakeSleep(self)

    # Events, webhooks, the journal

    @operation
    def events(self) -> List[Event]:
        """The session's event log, oldest first."""
        return self._walk(lambda cursor: self.api.list_events(self.id, limit=wire.PAGE, cursor=cursor), "Session.events")

    @operation
    def deliveries(self) -> List[Delivery]:
        """Every webhook delivery with its attempts, oldest first."""
        return self._walk(lambda cursor: self.api.list_deliveries(self.id, limit=wire.PAGE, cursor=cursor), "Session.deliveries")

    @operation
    def dead_letters(self) -> List[Delivery]:
        """Deliveries that failed for a day, oldest first; :meth:`replay` sends one again."""
        return self._walk(lambda cursor: self.api.list_dead_letters(self.id, limit=wire.PAGE, cursor=cursor), "Session.dead_letters")

    @operation
    def attempts(self) -> List[Attempt]:
        """Every webhook attempt, in the order sent."""
        return cast(List[Attempt], self.api.list_attempts(self.id)["data"])

    @operation
    def replay(self, delivery_id: str) -> List[Attempt]:
        """Replays a dead letter now (a ``dlv_`` id, or an ``evt_`` id for all of that event's); the attempts made."""
        return cast(List[Attempt], self.api.replay_dead_letter(self.id, delivery_id)["data"])

    @operation
    def replay_all(
        self,
        *,
        api_key: Optional[str] = None,
        event_id: Optional[str] = None,
        subscription_id: Optional[str] = None,
        type: Optional[str] = None,  # noqa: A002 - the wire's name
        state: Optional[str] = None,
    ) -> List[Attempt]:
        """Replays every dead letter matching the filter whose subscription still exists; the attempts made."""
        body = wire.fields(apiKey=api_key, eventId=event_id, subscriptionId=subscription_id, type=type, state=state)
        return cast(List[Attempt], self.api.replay_all_dead_letters(self.id, body)["data"])

    @operation
    def requests(self) -> List[RequestRecord]:
        """The request journal of /v1 (method, documented path, status, error code, key, virtual time), oldest first."""
        return self._walk(lambda cursor: self.api.list_requests(self.id, limit=wire.PAGE, cursor=cursor), "Session.requests")

    # Scenarios and triggers

    @operation
    def trigger(self, event_type: str, data: Optional[Mapping[str, Any]] = None, *, api_key: Optional[str] = None) -> Event:
        """One event of ``event_type`` through a real state change (virtual time moves as far as it needs); the event.

        ``data`` sets fields of the event's data (``{"disposition": "busy"}``); an unknown one
        is a 400 naming ``data.<field>``. ``api_key``: the account (default: the session's key).
        """
        self._forget_now()
        body = wire.fields(type=event_type, data=None if data is None else dict(data), apiKey=api_key)
        return cast(Event, self.api.trigger_event(self.id, body))

    @operation
    def run_scenario(self, scenario: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> ScenarioResult:
        """Runs a scenario file (a path, or its JSON as a dict) on the session; the result, passed or not.

        A failed expectation is ``result["passed"] is False`` with ``result["failure"]``; an
        invalid file is a :class:`SandboxError` 400 whose ``param`` is the JSON path at fault.
        """
        body = wire.load_json(scenario, "run_scenario") if isinstance(scenario, (str, os.PathLike)) else dict(scenario)
        self._forget_now()
        return cast(ScenarioResult, self.api.run_scenario(self.id, body))

    def control(self, method: str, path: str = "", body: Any = None) -> Any:
        """Any control route below ``/__sandbox/sessions/{s}`` (``path`` starts with ``/``): its decoded JSON, or None for 204.

        Every operation of the control document is also a method of :attr:`api`
        (``s.api.console_numbers(s.id, limit=10)``); refusals raise :class:`SandboxError` as everywhere.
        Example: ``s.control("GET", "/console/numbers?limit=10")``.
        """
        __tracebackhide__ = True
        if path and not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        name = f"Session.control({method.upper()} {path or '/'})"
        self._check_open(name)
        self._forget_now()  # it may have moved the clock
        return self.server._transport.request(
            method.upper(),
            f"/__sandbox/sessions/{wire.segment(self.id)}{path}",
            body,
            operation=name,
            session_id=self.id,
            timeout=self._timeout,
        )

    # Plumbing

    def _check_open(self, operation: str) -> None:
        if self._closed:
            raise SandboxError(
                f"session {self.id} is closed; make another with server.session().",
                code="session_closed",
                operation=operation,
                session_id=self.id,
            )

    def _walk(self, fetch: Callable[[Optional[str]], Any], operation: str) -> List[Any]:
        __tracebackhide__ = True
        return wire.walk_pages(fetch, base_url=self.base_url, operation=operation, session_id=self.id)

    def _note_now(self, instant: str) -> None:
        self._now_ms = wire.instant_ms(instant)

    def _forget_now(self) -> None:
        self._now_ms = None

    def _refresh_now(self) -> int:
        self.info()
        assert self._now_ms is not None
        return self._now_ms

    def _sleep_target(self, seconds: float) -> Optional[int]:
        """The virtual instant (ms) a sleep of ``seconds`` beginning now ends at; None for a sleep of 0.

        The start is the now this object last saw (refreshed on entering ``fake_sleep``, and by
        every advance): read without a round trip, so sleepers that begin together agree on it.
        A realtime session's clock flows by itself, so it is read from the server each time.
        """
        ms = wire.sleep_ms(seconds)
        if ms == 0:
            return None
        known = self._now_ms
        start = known if known is not None and not self._realtime else self._refresh_now()
        return start + ms

    def _sleep_until(self, target: Optional[int]) -> None:
        if target is None:
            _real_sleep(0)  # sleep(0) still yields to other threads, as the real one does
            return
        with self._sleep_lock:
            try:
                now = self._refresh_now()
                if target > now:
                    result = self.api.advance(self.id, {"duration": target - now})
                    self._note_now(result["now"])
            except SandboxError as error:  # a faked time.sleep has no wrapper of its own to name it
                error.operation = "Session.sleep"
                raise
