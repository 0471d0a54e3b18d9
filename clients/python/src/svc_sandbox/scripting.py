"""The session's scripting methods: keys, faults, the simulated network, calls, messages, media.

Each is a thin, typed wrapper of one generated control operation (``_operations.ControlApi``):
snake_case arguments and durations in, the server's JSON out.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Callable, Iterable, List, Mapping, Optional, TypeVar, cast

from . import _wire as wire
from .errors import SandboxError
from .types import ApiKey, Duration, Fault, Resource

if TYPE_CHECKING:
    from ._operations import ControlApi

F = TypeVar("F", bound=Callable[..., Any])


def operation(method: F) -> F:
    """A session method: refused at once on a closed session; its errors name it (``Session.advance``), not the raw call."""
    name = f"Session.{method.__name__}"

    @functools.wraps(method)
    def wrapper(self: "Scripting", *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        self._check_open(name)
        try:
            return method(self, *args, **kwargs)
        except SandboxError as error:
            if error.operation is None or error.operation.startswith("ControlApi."):
                error.operation = name
            raise

    return cast(F, wrapper)


class Scripting:
    """What :class:`Session` scripts: each method one control operation below ``/__sandbox/sessions/{s}``."""

    id: str
    api: "ControlApi"

    def _check_open(self, operation: str) -> None:
        raise NotImplementedError

    def _walk(self, fetch: Callable[[Optional[str]], Any], operation: str) -> List[Any]:
        raise NotImplementedError

    # Keys

    @operation
    def create_key(self, *, plan: Optional[str] = None, scopes: Optional[Iterable[str]] = None, account: Optional[str] = None) -> ApiKey:
        """A new test key of this session: ``{key, plan, scopes}`` (``plan="enterprise"`` has no rate cap)."""
        body = wire.fields(plan=plan, scopes=None if scopes is None else list(scopes), account=account)
        return cast(ApiKey, self.api.create_key(self.id, body))

    @operation
    def keys(self) -> List[ApiKey]:
        """The keys made in this session, oldest first."""
        return self._walk(lambda cursor: self.api.list_keys(self.id, limit=wire.PAGE, cursor=cursor), "Session.keys")

    @operation
    def revoke_key(self, key: str) -> None:
        """Revokes a key of this session: 401 from then on."""
        self.api.revoke_key(self.id, key)

    # Faults

    @operation
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
        body = wire.fields(method=method, path=path, status=status, network=network, retryAfter=retry_after, times=wire_times)
        return cast(List[Fault], self.api.inject_fault(self.id, body)["data"])

    @operation
    def faults(self) -> List[Fault]:
        """The injected faults with hits left, in order."""
        return cast(List[Fault], self.api.list_faults(self.id)["data"])

    @operation
    def clear_faults(self) -> None:
        self.api.clear_faults(self.id)

    # The simulated network

    @operation
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
        self.api.set_behavior(self.id, number, wire.behavior(outcome=outcome, ring=ring, talk=talk, answered_by=answered_by, agent=agent))

    @operation
    def queue_behavior(self, number: str, *behaviors: Mapping[str, Any]) -> None:
        """The next calls to ``number`` take these behaviours, one each (dicts with :meth:`set_behavior`'s keys)."""
        self.api.queue_behavior(self.id, number, {"behaviors": [wire.behavior(**behavior) for behavior in behaviors]})

    @operation
    def set_message_behavior(self, number: str, outcome: str) -> None:
        """Every later message to ``number`` ends ``outcome``: ``"delivered"`` or ``"failed"``."""
        self.api.set_message_behavior(self.id, number, {"outcome": outcome})

    @operation
    def queue_message_behavior(self, number: str, *outcomes: str) -> None:
        """The next messages to ``number`` end so, one each: ``queue_message_behavior(n, "failed", "delivered")``."""
        self.api.queue_message_behavior(self.id, number, {"behaviors": [{"outcome": outcome} for outcome in outcomes]})

    @operation
    def clear_behavior(self, number: Optional[str] = None) -> None:
        """Forgets the scripted behaviour of ``number``, or of every number."""
        if number is None:
            self.api.clear_all_behavior(self.id)
        else:
            self.api.clear_behavior(self.id, number)

    # Calls, messages, recordings, transcripts

    @operation
    def call(self, call_id: str) -> Resource:
        """A call as the API shows it, whatever its account."""
        return cast(Resource, self.api.inspect_call(self.id, call_id))

    @operation
    def calls(self) -> List[Resource]:
        """Every call of the session, newest first, each with its ``timeline``."""
        return self._walk(lambda cursor: self.api.list_session_calls(self.id, limit=wire.PAGE, cursor=cursor), "Session.calls")

    @operation
    def answer(self, call_id: str, *, by: Optional[str] = None) -> Resource:
        """Answers a ringing call now (``by``: human, the default, voicemail, ai_receptionist); the call."""
        return cast(Resource, self.api.answer_call(self.id, call_id, wire.fields(by=by)))

    @operation
    def hang_up(self, call_id: str) -> Resource:
        """Ends a live call now: an answered one completes ``answered``, a ringing one ``canceled``; the call."""
        return cast(Resource, self.api.hang_up_call(self.id, call_id))

    @operation
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
        body = wire.fields(from_=from_, to=to, apiKey=api_key, aiReceptionist=ai_receptionist)
        if behavior is not None:
            body["behavior"] = wire.behavior(**behavior)
        return cast(Resource, self.api.inbound_call(self.id, body))

    @operation
    def inbound_message(self, from_: str, to: str, body: Optional[str] = None, *, media_urls: Optional[Iterable[str]] = None) -> Resource:
        """Delivers an SMS (or with ``media_urls`` an MMS) from ``from_`` to a provisioned number ``to``; the message."""
        fields = wire.fields(from_=from_, to=to, body=body, mediaUrls=None if media_urls is None else list(media_urls))
        return cast(Resource, self.api.inbound_message(self.id, fields))

    @operation
    def message(self, message_id: str) -> Resource:
        return cast(Resource, self.api.inspect_message(self.id, message_id))

    @operation
    def recording(self, recording_id: str) -> Resource:
        return cast(Resource, self.api.inspect_recording(self.id, recording_id))

    @operation
    def transcript(self, transcript_id: str) -> Resource:
        return cast(Resource, self.api.inspect_transcript(self.id, transcript_id))

    @operation
    def set_recording_timing(
        self,
        *,
        recording_delay: Optional[Duration] = None,
        transcript_delay: Optional[Duration] = None,
        call_id: Optional[str] = None,
    ) -> None:
        """When recordings (after the call ends) and transcripts (after the recording) become ready; for one call with ``call_id``."""
        body = wire.fields(
            recordingDelay=None if recording_delay is None else wire.duration(recording_delay, "recording_delay"),
            transcriptDelay=None if transcript_delay is None else wire.duration(transcript_delay, "transcript_delay"),
        )
        if call_id is None:
            self.api.set_recording_timing(self.id, body)
        else:
            self.api.set_call_recording_timing(self.id, call_id, body)

    @operation
    def set_script(self, call_id: str, lines: Iterable[Mapping[str, Any]]) -> None:
        """The conversation a ringing call will carry: ``[{"speaker", "text", "start"?, "end"?}]``."""
        self.api.set_conversation_script(self.id, call_id, {"lines": [dict(line) for line in lines]})

    @operation
    def transcript_streams(self) -> int:
        """How many live transcript streams (server-sent events) are open."""
        return int(self.api.count_transcript_streams(self.id)["openStreams"])

    @operation
    def recording_audio(self, recording_id: str) -> bytes:
        """A recording's audio, the WAV file the console plays (``audio/wav``)."""
        return self.api.console_recording_audio(self.id, recording_id)
