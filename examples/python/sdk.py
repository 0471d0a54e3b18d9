"""Stands in for the service's Python SDK: what your application already uses to call the API.

Point it at the sandbox as you would point the real SDK at any base URL: the session's key and
``base_url`` (``svc_sandbox.api_key`` and ``svc_sandbox.base_url`` in a test). Like the real SDKs
it backs off on 429 and 503, sleeping ``Retry-After`` seconds with ``time.sleep`` (or the
``sleep`` it is given), which is what ``fake_sleep`` and ``Session.sleep`` are for (test_backoff.py).
"""

import json
import time
import urllib.error
import urllib.request

# The server is on loopback: never go through an HTTP(S)_PROXY set in the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Response:
    """Status, headers and JSON body of one answer (errors are answers too, not exceptions)."""

    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers  # case-insensitive: headers["X-Request-Id"]
        self.json = json.loads(raw) if raw else None

    @property
    def error(self):
        """The error object {code, message, param?}, or None."""
        return (self.json or {}).get("error")

    def __repr__(self):
        return f"<Response {self.status} {self.json!r}>"


def http(method, url, body=None, headers=None):
    """One JSON request; a 4xx/5xx answer is returned, not raised. ``body`` bytes are sent as they are."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        # urllib would say application/x-www-form-urlencoded, which the API refuses with 400.
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with _opener.open(request, timeout=30) as answer:
            return Response(answer.status, answer.headers, answer.read())
    except urllib.error.HTTPError as answer:
        return Response(answer.code, answer.headers, answer.read())


class Api:
    """The Voice and Messaging API with one key."""

    def __init__(self, api_key, base_url, retries=0, sleep=None):
        self.api_key = api_key
        self.base_url = base_url
        self.retries = retries  # how often a 429 or 503 is retried after its Retry-After
        self.sleep = sleep  # default: time.sleep, looked up at each retry

    def request(self, method, path, body=None):
        headers = {} if self.api_key is None else {"Authorization": f"Bearer {self.api_key}"}
        for attempt in range(self.retries + 1):
            answer = http(method, self.base_url + path, body, headers)
            if answer.status not in (429, 503) or attempt == self.retries:
                return answer
            (self.sleep or time.sleep)(int(answer.headers.get("Retry-After") or 2**attempt))

    def create_call(self, to, from_="+14155550100", **fields):
        return self.request("POST", "/v1/calls", {"to": to, "from": from_, **fields})

    def get_call(self, call_id):
        return self.request("GET", f"/v1/calls/{call_id}")

    def list_calls(self):
        return self.request("GET", "/v1/calls")

    def subscribe(self, url, events):
        return self.request("POST", "/v1/webhooks", {"url": url, "events": events})
