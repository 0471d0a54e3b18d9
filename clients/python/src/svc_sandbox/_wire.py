"""The wire's shapes: durations, instants, path segments, bodies, pages, files."""

from __future__ import annotations

import json
import math
import os
from datetime import datetime, timedelta, timezone
from numbers import Real
from typing import Any, Callable, Dict, List, Optional, Union
from urllib.parse import quote

from .errors import SandboxError
from .types import Duration

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
PAGE = 200
"""Items per page when the helper walks a control list to its end."""
MAX_PAGES = 10_000
"""Pages a listing helper walks at most (two million items): a server that always has more is refused."""


def walk_pages(fetch: Callable[[Optional[str]], Any], *, base_url: str, operation: str, session_id: Optional[str] = None) -> List[Any]:
    """Every item of a paginated control list: ``fetch(cursor)`` is one page, from ``None`` on, following ``next_cursor``."""
    __tracebackhide__ = True
    items: List[Any] = []
    cursor: Optional[str] = None
    for _ in range(MAX_PAGES):
        page = fetch(cursor)
        data = page.get("data") if isinstance(page, dict) else None
        more = page.get("has_more") if isinstance(page, dict) else None
        following = page.get("next_cursor") if isinstance(page, dict) else None
        if not isinstance(data, list) or (more and (not isinstance(following, str) or not following)):
            raise SandboxError(
                f"{base_url} answered a page of {operation} that is not {{data: [...], has_more, next_cursor}}: "
                f"{json.dumps(page)[:200]}. Is it a svc-sandbox server?",
                code="invalid_response",
                operation=operation,
                session_id=session_id,
            )
        items.extend(data)
        if not more:
            return items
        cursor = following
    raise SandboxError(
        f"{base_url} still had more after {MAX_PAGES} pages of {operation}: the helper walks no further. "
        "Is it a svc-sandbox server?",
        code="too_many_pages",
        operation=operation,
        session_id=session_id,
    )


def segment(value: str) -> str:
    """One path segment: percent-encoded (``+1415…`` as ``%2B1415…``), as the server decodes it once."""
    if not isinstance(value, str) or not value:
        raise TypeError(f"expected a non-empty string, got {value!r}")
    return quote(value, safe="")


def fields(**fields: Any) -> Dict[str, Any]:
    """The fields given (None left out), ``from_`` sent as ``from``."""
    return {("from" if name == "from_" else name): value for name, value in fields.items() if value is not None}


def behavior(
    outcome: Optional[str] = None,
    ring: Optional[Duration] = None,
    talk: Optional[Duration] = None,
    answered_by: Optional[str] = None,
    agent: Optional[str] = None,
) -> Dict[str, Any]:
    """A ``CallBehavior`` on the wire; ``ring``/``talk`` keep ``"manual"``."""

    def span(value: Optional[Duration], name: str) -> Any:
        return value if value is None or value == "manual" else duration(value, name)

    return fields(outcome=outcome, ring=span(ring, "ring"), talk=span(talk, "talk"), answeredBy=answered_by, agent=agent)


def duration(value: Duration, name: str) -> Union[str, int]:
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


def sleep_ms(seconds: float) -> int:
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


def parse_instant(instant: str) -> datetime:
    return datetime.fromisoformat(instant.replace("Z", "+00:00"))


def instant_ms(instant: str) -> int:
    return (parse_instant(instant) - _EPOCH) // timedelta(milliseconds=1)


def load_json(path: Union[str, "os.PathLike[str]"], what: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as file:
            value = json.load(file)
    except OSError as error:
        raise SandboxError(f"{what}: cannot read {os.fspath(path)!r}: {error.strerror or error}.", code="invalid_file") from None
    except ValueError as error:
        raise SandboxError(f"{what}: {os.fspath(path)!r} is not JSON: {error}.", code="invalid_file") from None
    if not isinstance(value, dict):
        raise SandboxError(f"{what}: {os.fspath(path)!r} holds {type(value).__name__}, not a JSON object.", code="invalid_file")
    return value


def instant(value: Union[str, datetime]) -> str:
    if isinstance(value, str):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
