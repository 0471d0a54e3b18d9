"""A tiny client for the svc-sandbox server, standard library only.

It stands in for the service's Python SDK: the API part (`Api`) is what your SDK does
against SVC_API_BASE_URL, the control part (`Session`) drives the sandbox itself through
SVC_SANDBOX_URL (its virtual clock, scripted network, faults, webhook queues).
Both URLs are set by `npx svc-sandbox exec -- <your test command>`.
"""

import hashlib
import hmac
import json
import os
import urllib.error
import urllib.parse
import urllib.request

API_BASE_URL = os.environ.get("SVC_API_BASE_URL", "http://127.0.0.1:12111")
SANDBOX_URL = os.environ.get("SVC_SANDBOX_URL", API_BASE_URL + "/__sandbox")

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
    """One JSON request with urllib; a 4xx/5xx answer is returned, not raised.

    `body` is JSON-encoded, unless it is bytes already (to send a malformed body on purpose).
    """
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with _opener.open(request, timeout=30) as answer:
            return Response(answer.status, answer.headers, answer.read())
    except urllib.error.HTTPError as answer:
        return Response(answer.code, answer.headers, answer.read())


class Api:
    """The Voice and Messaging API with one key: what the SDK would do."""

    def __init__(self, api_key, base_url=API_BASE_URL):
        self.api_key = api_key
        self.base_url = base_url

    def request(self, method, path, body=None):
        return http(method, self.base_url + path, body, {"Authorization": f"Bearer {self.api_key}"})

    def create_call(self, to, from_="+14155550100", **fields):
        return self.request("POST", "/v1/calls", {"to": to, "from": from_, **fields})

    def get_call(self, call_id):
        return self.request("GET", f"/v1/calls/{call_id}")

    def list_calls(self):
        return self.request("GET", "/v1/calls")

    def subscribe(self, url, events):
        return self.request("POST", "/v1/webhooks", {"url": url, "events": events})


class Session:
    """One sandbox session of the server: its own virtual clock, seed, ids and queues."""

    def __init__(self, session_id, api_key):
        self.id = session_id
        self.api_key = api_key  # routes to this session on the same /v1 base URL
        self.url = f"{SANDBOX_URL}/sessions/{session_id}"

    @classmethod
    def create(cls, seed=None):
        answer = http("POST", SANDBOX_URL + "/sessions", {} if seed is None else {"seed": seed})
        assert answer.status == 201, answer
        return cls(answer.json["id"], answer.json["apiKey"])

    def control(self, method, path="", body=None):
        """A raw control API request below /__sandbox/sessions/{id}."""
        return http(method, self.url + path, body)

    def _ok(self, method, path="", body=None, status=200):
        answer = self.control(method, path, body)
        assert answer.status == status, f"{method} {path}: {answer}"
        return answer.json

    def advance(self, duration):
        """Moves virtual time; returns {now, events}: the events emitted during it."""
        return self._ok("POST", "/advance", {"duration": duration})

    def _all(self, path):
        """Every item of a control list, page by page (limit 200, following next_cursor)."""
        items, cursor = [], None
        while True:
            query = "?limit=200" + ("&cursor=" + urllib.parse.quote(cursor) if cursor else "")
            page = self._ok("GET", path + query)
            items += page["data"]
            if not page["has_more"]:
                return items
            cursor = page["next_cursor"]

    def now(self):
        """The session's virtual time (GET /__sandbox/sessions/{id})."""
        return self._ok("GET")["now"]

    def reset(self):
        self._ok("POST", "/reset", status=204)

    def delete(self):
        self._ok("DELETE", status=204)

    def events(self):
        """The session's event log, oldest first."""
        return self._all("/events")

    def dead_letters(self):
        return self._all("/dead-letters")

    def replay(self, dead_letter_id):
        """Replays a dead letter now; returns the attempts it made."""
        return self._ok("POST", f"/dead-letters/{dead_letter_id}/replay")["data"]

    def set_behavior(self, number, **behavior):
        """How the simulated network treats calls to `number`: outcome, ring, talk, ..."""
        self._ok("PUT", "/network/" + urllib.parse.quote(number), behavior, status=204)

    def answer(self, call_id):
        return self._ok("POST", f"/calls/{call_id}/answer")

    def inject_fault(self, **rule):
        self._ok("POST", "/faults", rule, status=201)

    def trigger(self, event_type, **data):
        """One event of `event_type` through a real state change (data: fields to set); returns the event."""
        return self._ok("POST", "/trigger", {"type": event_type, "data": data}, status=201)

    def run_scenario(self, scenario):
        """Runs a scenario file's JSON on this session; returns {passed, timeline, failure, ...}."""
        return self._ok("POST", "/scenario", scenario)


def verify_webhook(raw_body, signature, secret):
    """The SDK's verifyWebhook(): lowercase hex HMAC-SHA256 of the raw body, constant-time compare."""
    expected = hmac.new(secret.encode("utf-8"), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), (signature or "").encode("utf-8"))
