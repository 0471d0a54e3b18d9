"""Shapes of the control API's answers, for editors and type checkers.

The helper returns the decoded JSON as plain dicts and lists; these TypedDicts name their keys
(camelCase, as on the wire; a resource's own fields are snake_case, as the /v1 API has them).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Dict, List, Optional, TypedDict, Union

Duration = Union[str, int, float, timedelta]
"""A span of virtual time: a string as the server takes it (``"500ms"``, ``"30s"``, ``"5m"``,
``"2h"``, ``"1d"``), a number of **seconds** (as ``time.sleep`` takes), or a ``timedelta``."""

Resource = Dict[str, Any]
"""A call, message, recording or transcript as the /v1 API shows it."""


class Event(TypedDict):
    """A platform event: ``{id, type, created_at, data}``, ``data`` being the resource."""

    id: str
    type: str
    created_at: str
    data: Resource


class AdvanceResult(TypedDict):
    """What ``advance`` answers: the virtual now after it, and the events emitted meanwhile, oldest first."""

    now: str
    events: List[Event]


class SessionInfo(TypedDict):
    id: str
    seed: int
    now: str


class ApiKey(TypedDict, total=False):
    key: str
    createdAt: str
    account: str
    plan: str
    scopes: List[str]


class Attempt(TypedDict):
    """One HTTP attempt of one webhook delivery."""

    deliveryId: str
    eventId: str
    eventType: str
    subscriptionId: str
    url: str
    attempt: int
    replay: int
    at: str
    status: Optional[int]
    ok: bool
    durationMs: float
    error: Optional[str]


class Delivery(TypedDict, total=False):
    """One event on its way to one subscription (a dead letter is one in state ``dead``)."""

    id: str
    eventId: str
    eventType: str
    subscriptionId: str
    url: str
    state: str
    attempts: List[Attempt]
    nextAttemptAt: Optional[str]
    replays: int
    event: Event
    chaos: str


class Fault(TypedDict):
    """An injected fault with hits left; ``remaining`` is None for ``times=math.inf``."""

    method: Optional[str]
    path: Optional[str]
    status: Optional[int]
    network: bool
    retryAfter: Optional[int]
    remaining: Optional[int]


class RequestRecord(TypedDict):
    """One line of the request journal of /v1."""

    requestId: str
    method: str
    path: str
    target: str
    status: int
    errorCode: Optional[str]
    apiKey: Optional[str]
    at: str


class ScenarioFailure(TypedDict):
    step: int
    path: str
    message: str
    expected: Any
    seen: Any


class ScenarioResult(TypedDict):
    """What ``run_scenario`` answers, passed or not."""

    name: str
    passed: bool
    held: int
    timeline: List[Dict[str, Any]]
    failure: Optional[ScenarioFailure]
    startedAt: str
    endedAt: str
