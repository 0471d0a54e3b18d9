"""``Session``: one sandbox of the server, and every control-API operation on it as a method."""

from __future__ import annotations

import json
import math
import os
import threading
from datetime import datetime, timedelta, timezone
from numbers import Real
from types import TracebackType
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Type, Union
from urllib.parse import quote, urlencode

from .errors import SandboxError
from .fake_sleep import FakeSleep, _real_sleep
from .types import (
    AdvanceResult,
    ApiKey,
    Attempt,
    Delivery,
    Duration,
    Event,
    Fault,
    RequestRecord,
    Resource,
    ScenarioResult,
    SessionInfo,
)

if TYPE_CHECKING:
    from ._http import Transport
    from .server import Server

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_PAGE = 200
"""Items per page when the helper walks a control list to its end."""


class Session:
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
                self._call("DELETE", "", operation="Session.close")
        except SandboxError as error:
            if error.status != 404:
                raise
        finally:
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def info(self) -> SessionInfo:
        """``{id, seed, now}``."""
        info = self._call("GET", "", operation="Session.info")
        self._note_now(info["now"])
        return info

    def now(self) -> datetime:
        """The session's virtual now, a timezone-aware UTC ``datetime``."""
        return _parse_instant(self.info()["now"])

    def reset(self) -> None:
        """Empties the session and puts its clock back at its start; keys it made stay valid."""
        self._forget_now()
        self._call("POST", "/reset", operation="Session.reset")

    def fork(self, **options: Any) -> "Session":
        """A new session that starts as this one is now (``POST /__sandbox/sessions {from}``); ``options`` as :meth:`Server.session`."""
        return self.server.session(fork=self, **options)

    def snapshot(self) -> Dict[str, Any]:
        """The session as plain JSON: ``server.session(snapshot=...)`` starts another from it; ``svc-sandbox show FILE`` opens it."""
        return self._call("GET", "/snapshot", operation="Session.snapshot")

    def coverage(self) -> Dict[str, Any]:
        """What the session's life exercised of the API, and what it never did."""
        return self._call("GET", "/coverage", operation="Session.coverage")

    def internal_errors(self) -> List[Dict[str, Any]]:
        """Unexpected failures inside the session's sandbox, each answered as a 500 (empty when healthy)."""
        return self._call("GET", "/internal-errors", operation="Session.internal_errors")["data"]

    # Time

    def advance(self, duration: Duration) -> AdvanceResult:
        """Moves virtual time by ``duration``, running everything due; ``{now, events}``: the events it emitted.

        ``duration``: ``"500ms"``, ``"30s"``, ``"5m"``, ``"2h"``, ``"1d"``, a number of seconds, or a ``timedelta``.
        """
        result = self._call("POST", "/advance", {"duration": _duration(duration, "duration")}, operation="Session.advance")
        self._note_now(result["now"])
        return result

    def advance_until(self, event_type: str, max: Optional[Duration] = None) -> Event:  # noqa: A002 - the wire's name
        """Moves virtual time until an event of ``event_type`` is emitted (at most ``max``, default 1 day); the event.

        None within ``max``: :class:`SandboxError` 404 with ``param == "until"``.
        """
        body: Dict[str, Any] = {"until": event_type}
        if max is not None:
            body["max"] = _duration(max, "max")
        result = self._call("POST", "/advance", body, operation="Session.advance_until")
        self._note_now(result["now"])
        return result["event"]

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

    def events(self) -> List[Event]:
        """The session's event log, oldest first."""
        return self._all("/events", "Session.events")

    def deliveries(self) -> List[Delivery]:
        """Every webhook delivery with its attempts, oldest first."""
        return self._all("/deliveries", "Session.deliveries")

    def dead_letters(self) -> List[Delivery]:
        """Deliveries that failed for a day, oldest first; :meth:`replay` sends one again."""
        return self._all("/dead-letters", "Session.dead_letters")

    def attempts(self) -> List[Attempt]:
        """Every webhook attempt, in the order sent."""
        return self._call("GET", "/attempts", operation="Session.attempts")["data"]

    def replay(self, delivery_id: str) -> List[Attempt]:
        """Replays a dead letter now (a ``dlv_`` id, or an ``evt_`` id for all of that event's); the attempts made."""
        return self._call("POST", f"/dead-letters/{_segment(delivery_id)}/replay", operation="Session.replay")["data"]

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
        body = _fields(apiKey=api_key, eventId=event_id, subscriptionId=subscription_id, type=type, state=state)
        return self._call("POST", "/dead-letters/replay", body, operation="Session.replay_all")["data"]

    def requests(self) -> List[RequestRecord]:
        """The request journal of /v1 (method, documented path, status, error code, key, virtual time), oldest first."""
        return self._all("/requests", "Session.requests")

    # Scenarios and triggers

    def trigger(self, event_type: str, data: Optional[Mapping[str, Any]] = None, *, api_key: Optional[str] = None) -> Event:
        """One event of ``event_type`` through a real state change (virtual time moves as far as it needs); the event.

        ``data`` sets fields of the event's data (``{"disposition": "busy"}``); an unknown one
        is a 400 naming ``data.<field>``. ``api_key``: the account (default: the session's key).
        """
        self._forget_now()
        body = _fields(type=event_type, data=None if data is None else dict(data), apiKey=api_key)
        return self._call("POST", "/trigger", body, operation="Session.trigger")

    def run_scenario(self, scenario: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> ScenarioResult:
        """Runs a scenario file (a path, or its JSON as a dict) on the session; the result, passed or not.

        A failed expectation is ``result["passed"] is False`` with ``result["failure"]``; an
        invalid file is a :class:`SandboxError` 400 whose ``param`` is the JSON path at fault.
        """
        body = _load_json(scenario, "run_scenario") if isinstance(scenario, (str, os.PathLike)) else dict(scenario)
        self._forget_now()
        return self._call("POST", "/scenario", body, operation="Session.run_scenario")

    # Keys

    def create_key(self, *, plan: Optional[str] = None, scopes: Optional[Iterable[str]] = None, account: Optional[str] = None) -> ApiKey:
        """A new test key of this session: ``{key, plan, scopes}`` (``plan="enterprise"`` has no rate cap)."""
        body = _fields(plan=plan, scopes=None if scopes is None else list(scopes), account=account)
        return self._call("POST", "/keys", body, operation="Session.create_key")

    def keys(self) -> List[ApiKey]:
        """The keys made in this session, oldest first."""
        return self._all("/keys", "Session.keys")

    def revoke_key(self, key: str) -> None:
        """Revokes a key of this session: 401 from then on."""
        self._call("DELETE", f"/keys/{_segment(key)}", operation="Session.revoke_key")

    # Faults

    def inject_fault(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        status: Optional[int] = None,
        network: Optional[bool] = None,
        retry_after: Optional[int] = None,
        times: Optional[float] = None,
    ) -> List[Fault]:
        """The next matching /v1 requests fail (``status`` 503 by default, or a dropped connection); the rules now active.

        ``times``: how many requests it hits (default 1; ``math.inf`` until cleared).
        """
        wire_times: Any = "Infinity" if times is not None and math.isinf(times) else times
        body = _fields(method=method, path=path, status=status, network=network, retryAfter=retry_after, times=wire_times)
        return self._call("POST", "/faults", body, operation="Session.inject_fault")["data"]

    def faults(self) -> List[Fault]:
        """The injected faults with hits left, in order."""
        return self._call("GET", "/faults", operation="Session.faults")["data"]

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults", operation="Session.clear_faults")

    # The simulated network

    def set_behavior(
        self,
        number: str,
        *,
        outcome: Optional[str] = None,
        ring: Optional[Duration] = None,
        talk: Optional[Duration] = None,
        answered_by: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> None:
        """Every later call to ``number`` goes so: ``outcome`` (answered, busy, no_answer, failed, unreachable),
        ``ring`` and ``talk`` (a duration, or ``"manual"`` to wait for :meth:`answer` / :meth:`hang_up`),
        ``answered_by`` (human, voicemail), ``agent``."""
        body = _behavior(outcome=outcome, ring=ring, talk=talk, answered_by=answered_by, agent=agent)
        self._call("PUT", f"/network/{_segment(number)}", body, operation="Session.set_behavior")

    def queue_behavior(self, number: str, *behaviors: Mapping[str, Any]) -> None:
        """The next calls to ``number`` take these behaviours, one each (dicts with :meth:`set_behavior`'s keys)."""
        body = {"behaviors": [_behavior(**behavior) for behavior in behaviors]}
        self._call("POST", f"/network/{_segment(number)}/queue", body, operation="Session.queue_behavior")

    def set_message_behavior(self, number: str, outcome: str) -> None:
        """Every later message to ``number`` ends ``outcome``: ``"delivered"`` or ``"failed"``."""
        self._call("PUT", f"/network/{_segment(number)}/messages", {"outcome": outcome}, operation="Session.set_message_behavior")

    def queue_message_behavior(self, number: str, *outcomes: str) -> None:
        """The next messages to ``number`` end so, one each: ``queue_message_behavior(n, "failed", "delivered")``."""
        body = {"behaviors": [{"outcome": outcome} for outcome in outcomes]}
        self._call("POST", f"/network/{_segment(number)}/messages/queue", body, operation="Session.queue_message_behavior")

    def clear_behavior(self, number: Optional[str] = None) -> None:
        """Forgets the scripted behaviour of ``number``, or of every number."""
        path = "/network" if number is None else f"/network/{_segment(number)}"
        self._call("DELETE", path, operation="Session.clear_behavior")

    # Calls, messages, recordings, transcripts

    def call(self, call_id: str) -> Resource:
        """A call as the API shows it, whatever its account."""
        return self._call("GET", f"/calls/{_segment(call_id)}", operation="Session.call")

    def calls(self) -> List[Resource]:
        """Every call of the session, newest first, each with its ``timeline``."""
        return self._all("/calls", "Session.calls")

    def answer(self, call_id: str, *, by: Optional[str] = None) -> Resource:
        """Answers a ringing call now (``by``: human, the default, voicemail, ai_receptionist); the call."""
        return self._call("POST", f"/calls/{_segment(call_id)}/answer", _fields(by=by), operation="Session.answer")

    def hang_up(self, call_id: str) -> Resource:
        """Ends a live call now: an answered one completes ``answered``, a ringing one ``canceled``; the call."""
        return self._call("POST", f"/calls/{_segment(call_id)}/hang-up", operation="Session.hang_up")

    def inbound_call(
        self,
        from_: str,
        to: str,
        *,
        api_key: Optional[str] = None,
        ai_receptionist: Optional[bool] = None,
        behavior: Optional[Mapping[str, Any]] = None,
    ) -> Resource:
        """Rings ``to`` (a number of an account) from ``from_``; the new call."""
        body = _fields(from_=from_, to=to, apiKey=api_key, aiReceptionist=ai_receptionist)
        if behavior is not None:
            body["behavior"] = _behavior(**behavior)
        return self._call("POST", "/calls/inbound", body, operation="Session.inbound_call")

    def inbound_message(self, from_: str, to: str, body: Optional[str] = None, *, media_urls: Optional[Iterable[str]] = None) -> Resource:
        """Delivers an SMS (or with ``media_urls`` an MMS) from ``from_`` to a provisioned number ``to``; the message."""
        fields = _fields(from_=from_, to=to, body=body, mediaUrls=None if media_urls is None else list(media_urls))
        return self._call("POST", "/messages/inbound", fields, operation="Session.inbound_message")

    def message(self, message_id: str) -> Resource:
        return self._call("GET", f"/messages/{_segment(message_id)}", operation="Session.message")

    def recording(self, recording_id: str) -> Resource:
        return self._call("GET", f"/recordings/{_segment(recording_id)}", operation="Session.recording")

    def transcript(self, transcript_id: str) -> Resource:
        return self._call("GET", f"/transcripts/{_segment(transcript_id)}", operation="Session.transcript")

    def set_recording_timing(
        self,
        *,
        recording_delay: Optional[Duration] = None,
        transcript_delay: Optional[Duration] = None,
        call_id: Optional[str] = None,
    ) -> None:
        """When recordings (after the call ends) and transcripts (after the recording) become ready; for one call with ``call_id``."""
        body = _fields(
            recordingDelay=None if recording_delay is None else _duration(recording_delay, "recording_delay"),
            transcriptDelay=None if transcript_delay is None else _duration(transcript_delay, "transcript_delay"),
        )
        path = "/recording-timing" if call_id is None else f"/calls/{_segment(call_id)}/recording-timing"
        self._call("PUT", path, body, operation="Session.set_recording_timing")

    def set_script(self, call_id: str, lines: Iterable[Mapping[str, Any]]) -> None:
        """The conversation a ringing call will carry: ``[{"speaker", "text", "start"?, "end"?}]``."""
        body = {"lines": [dict(line) for line in lines]}
        self._call("PUT", f"/calls/{_segment(call_id)}/script", body, operation="Session.set_script")

    def transcript_streams(self) -> int:
        """How many live transcript streams (server-sent events) are open."""
        return self._call("GET", "/transcript-streams", operation="Session.transcript_streams")["openStreams"]

    def control(self, method: str, path: str = "", body: Any = None) -> Any:
        """Any control route below ``/__sandbox/sessions/{s}`` (``path`` starts with ``/``): its decoded JSON, or None for 204.

        For routes this class does not wrap; refusals raise :class:`SandboxError` as everywhere.
        Example: ``s.control("GET", "/console/numbers?limit=10")``.
        """
        if path and not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        self._forget_now()  # it may have moved the clock
        return self._call(method.upper(), path, body, operation=f"Session.control({method.upper()} {path or '/'})")

    # Plumbing

    def _check_open(self, operation: str) -> None:
        if self._closed:
            raise SandboxError(
                f"session {self.id} is closed; make another with server.session().",
                code="session_closed",
                operation=operation,
                session_id=self.id,
            )

    def _call(self, method: str, path: str, body: Any = None, *, operation: str) -> Any:
        self._check_open(operation)
        return self.server._transport.request(
            method,
            f"/__sandbox/sessions/{_segment(self.id)}{path}",
            body,
            operation=operation,
            session_id=self.id,
            timeout=self._timeout,
        )

    def _all(self, path: str, operation: str) -> List[Any]:
        self._check_open(operation)
        base = f"/__sandbox/sessions/{_segment(self.id)}{path}"
        return walk_pages(self.server._transport, base, operation=operation, session_id=self.id, timeout=self._timeout)

    def _note_now(self, instant: str) -> None:
        self._now_ms = _instant_ms(instant)

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
        ms = _sleep_ms(seconds)
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
            now = self._refresh_now()
            if target > now:
                result = self._call("POST", "/advance", {"duration": target - now}, operation="Session.sleep")
                self._note_now(result["now"])


def walk_pages(
    transport: "Transport", path: str, *, operation: str, session_id: Optional[str] = None, timeout: Optional[float] = None
) -> List[Any]:
    """Every item of a paginated control list, following ``next_cursor``."""
    items: List[Any] = []
    cursor: Optional[str] = None
    while True:
        query: Dict[str, Union[int, str]] = {"limit": _PAGE} if cursor is None else {"limit": _PAGE, "cursor": cursor}
        page = transport.request("GET", f"{path}?{urlencode(query)}", operation=operation, session_id=session_id, timeout=timeout)
        items.extend(page["data"])
        if not page.get("has_more"):
            return items
        cursor = page["next_cursor"]


def _segment(value: str) -> str:
    """One path segment: percent-encoded (``+1415…`` as ``%2B1415…``), as the server decodes it once."""
    if not isinstance(value, str) or not value:
        raise TypeError(f"expected a non-empty string, got {value!r}")
    return quote(value, safe="")


def _fields(**fields: Any) -> Dict[str, Any]:
    """The fields given (None left out), ``from_`` sent as ``from``."""
    return {("from" if name == "from_" else name): value for name, value in fields.items() if value is not None}


def _behavior(
    outcome: Optional[str] = None,
    ring: Optional[Duration] = None,
    talk: Optional[Duration] = None,
    answered_by: Optional[str] = None,
    agent: Optional[str] = None,
) -> Dict[str, Any]:
    """A ``CallBehavior`` on the wire; ``ring``/``talk`` keep ``"manual"``."""

    def span(value: Optional[Duration], name: str) -> Any:
        return value if value is None or value == "manual" else _duration(value, name)

    return _fields(outcome=outcome, ring=span(ring, "ring"), talk=span(talk, "talk"), answeredBy=answered_by, agent=agent)


def _duration(value: Duration, name: str) -> Union[str, int]:
    """A duration on the wire: strings as given, seconds and timedeltas as whole milliseconds."""
    if isinstance(value, str):
        return value
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, Real) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"`{name}` must be a duration: a string such as '30s', a number of seconds or a timedelta, got {value!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"`{name}` must be a finite, non-negative duration, got {value!r}")
    return round(seconds * 1000)


def _sleep_ms(seconds: float) -> int:
    """Milliseconds of a sleep, checked as ``time.sleep`` checks its argument."""
    if isinstance(seconds, bool) or not isinstance(seconds, Real):
        raise TypeError(f"sleep length must be a number of seconds, not {type(seconds).__name__}")
    value = float(seconds)
    if math.isnan(value):
        raise ValueError("Invalid value NaN (not a number)")
    if value < 0:
        raise ValueError("sleep length must be non-negative")
    if math.isinf(value):
        raise ValueError("an infinite sleep never ends in virtual time either")
    return round(value * 1000)


def _parse_instant(instant: str) -> datetime:
    return datetime.fromisoformat(instant.replace("Z", "+00:00"))


def _instant_ms(instant: str) -> int:
    return (_parse_instant(instant) - _EPOCH) // timedelta(milliseconds=1)


def _load_json(path: Union[str, "os.PathLike[str]"], what: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as file:
            value = json.load(file)
    except OSError as error:
        raise SandboxError(f"{what}: cannot read {os.fspath(path)!r}: {error.strerror or error}.", code="invalid_file") from error
    except ValueError as error:
        raise SandboxError(f"{what}: {os.fspath(path)!r} is not JSON: {error}.", code="invalid_file") from error
    if not isinstance(value, dict):
        raise SandboxError(f"{what}: {os.fspath(path)!r} holds {type(value).__name__}, not a JSON object.", code="invalid_file")
    return value
