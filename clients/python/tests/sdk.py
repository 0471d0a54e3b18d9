"""A stand-in for the service's Python SDK, as the helper's tests need one: JSON over urllib,
retrying 429 and 503 after ``Retry-After`` seconds with ``time.sleep`` (or the ``sleep`` given)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, NamedTuple, Optional

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Answer(NamedTuple):
    status: int
    headers: Any
    json: Any


class Client:
    def __init__(self, api_key: str, base_url: str, *, sleep: Optional[Callable[[float], None]] = None, retries: int = 5) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self.sleep = sleep
        self.retries = retries

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Answer:
        for attempt in range(self.retries + 1):
            answer = self.send(method, path, body)
            if answer.status not in (429, 503) or attempt == self.retries:
                return answer
            delay = float(answer.headers.get("Retry-After") or 2**attempt)
            (self.sleep or time.sleep)(delay)  # looked up at each call, as an SDK does
        raise AssertionError("unreachable")

    def send(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Answer:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.api_key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with _opener.open(request, timeout=30) as answer:
                return Answer(answer.status, answer.headers, json.loads(answer.read() or b"null"))
        except urllib.error.HTTPError as answer:
            return Answer(answer.code, answer.headers, json.loads(answer.read() or b"null"))
