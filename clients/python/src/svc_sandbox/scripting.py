"""The session's scripting methods: keys, faults, the simulated network, calls, messages, media."""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional

from . import _wire as wire
from .types import ApiKey, Duration, Fault, Resource


class Scripting:
    """What :class:`Session` scripts: each method one control route below ``/__sandbox/sessions/{s}``."""

    def _call(self, method: str, path: str, body: Any = None, *, operation: str) -> Any:
        raise NotImplementedError

    def _all(self, path: str, operation: str) -> List[Any]:
        raise NotImplementedError

    # Keys

    def create_key(self, *, plan: Optional[str] = None, scopes: Optional[Iterable[str]] = None, account: Optional[str] = None) -> ApiKey:
        """A new test key of this session: ``{key, plan, scopes}`` (``plan="enterprise"`` has no rate cap)."""
        body = wire.fields(plan=plan, scopes=None if scopes is None else list(scopes), account=account)
        return self._call("POST", "/keys", body, operation="Session.create_key")

    def keys(self) -> List[ApiKey]:
        """The keys made in this session, oldest first."""
        return self._all("/keys", "Session.keys")

    def revoke_key(self, key: str) -> None:
        """Revokes a key of this session: 401 from then on."""
        self._call("DELETE", f"/keys/{wire.segment(key)}", operation="Session.revoke_key")

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
        body = wire.fields(method=method, path=path, status=status, network=network, retryAfter=retry_after, times=wire_times)
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
        body = wire.behavior(outcome=outcome, ring=ring, talk=talk, answered_by=answered_by, agent=agent)
        self._call("PUT", f"/network/{wire.segment(number)}", body, operation="Session.set_behavior")

    def queue_behavior(self, number: str, *behaviors: Mapping[str, Any]) -> None:
        """The next calls to ``number`` take these behaviours, one each (dicts with :meth:`set_behavior`'s keys)."""
        body = {"behaviors": [wire.behavior(**behavior) for behavior in behaviors]}
        self._call("POST", f"/network/{wire.segment(number)}/queue", body, operation="Session.queue_behavior")

    def set_message_behavior(self, number: str, outcome: str) -> None:
        """Every later message to ``number`` ends ``outcome``: ``"delivered"`` or ``"failed"``."""
        self._call("PUT", f"/network/{wire.segment(number)}/messages", {"outcome": outcome}, operation="Session.set_message_behavior")

    def queue_message_behavior(self, number: str, *outcomes: str) -> None:
        """The next messages to ``number`` end so, one each: ``queue_message_behavior(n, "failed", "delivered")``."""
        body = {"behaviors": [{"outcome": outcome} for outcome in outcomes]}
        self._call("POST", f"/network/{wire.segment(number)}/messages/queue", body, operation="Session.queue_message_behavior")

    def clear_behavior(self, number: Optional[str] = None) -> None:
        """Forgets the scripted behaviour of ``number``, or of every number."""
        path = "/network" if number is None else f"/network/{wire.segment(number)}"
        self._call("DELETE", path, operation="Session.clear_behavior")

    # Calls, messages, recordings, transcripts

    def call(self, call_id: str) -> Resource:
        """A call as the API shows it, whatever its account."""
        return self._call("GET", f"/calls/{wire.segment(call_id)}", operation="Session.call")

    def calls(self) -> List[Resource]:
        """Every call of the session, newest first, each with its ``timeline``."""
        return self._all("/calls", "Session.calls")

    def answer(self, call_id: str, *, by: Optional[str] = None) -> Resource:
        """Answers a ringing call now (``by``: human, the default, voicemail, ai_receptionist); the call."""
        return self._call("POST", f"/calls/{wire.segment(call_id)}/answer", wire.fields(by=by), operation="Session.answer")

    def hang_up(self, call_id: str) -> Resource:
        """Ends a live call now: an answered one completes ``answered``, a ringing one ``canceled``; the call."""
        return self._call("POST", f"/calls/{wire.segment(call_id)}/hang-up", operation="Session.hang_up")

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
        return self._call("POST", "/calls/inbound", body, operation="Session.inbound_call")

    def inbound_message(self, from_: str, to: str, body: Optional[str] = None, *, media_urls: Optional[Iterable[str]] = None) -> Resource:
        """Delivers an SMS (or with ``media_urls`` an MMS) from ``from_`` to a provisioned number ``to``; the message."""
        fields = wire.fields(from_=from_, to=to, body=body, mediaUrls=None if media_urls is None else list(media_urls))
        return self._call("POST", "/messages/inbound", fields, operation="Session.inbound_message")

    def message(self, message_id: str) -> Resource:
        return self._call("GET", f"/messages/{wire.segment(message_id)}", operation="Session.message")

    def recording(self, recording_id: str) -> Resource:
        return self._call("GET", f"/recordings/{wire.segment(recording_id)}", operation="Session.recording")

    def transcript(self, transcript_id: str) -> Resource:
        return self._call("GET", f"/transcripts/{wire.segment(transcript_id)}", operation="Session.transcript")

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
        path = "/recording-timing" if call_id is None else f"/calls/{wire.segment(call_id)}/recording-timing"
        self._call("PUT", path, body, operation="Session.set_recording_timing")

    def set_script(self, call_id: str, lines: Iterable[Mapping[str, Any]]) -> None:
        """The conversation a ringing call will carry: ``[{"speaker", "text", "start"?, "end"?}]``."""
        body = {"lines": [dict(line) for line in lines]}
        self._call("PUT", f"/calls/{wire.segment(call_id)}/script", body, operation="Session.set_script")

    def transcript_streams(self) -> int:
        """How many live transcript streams (server-sent events) are open."""
        return self._call("GET", "/transcript-streams", operation="Session.transcript_streams")["openStreams"]
