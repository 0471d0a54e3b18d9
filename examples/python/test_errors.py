"""Errors as the SDK sees them (the envelope, auth, rate limits) and the control API's refusals as SandboxError."""

import os
import re

import pytest
from sdk import Api, http

from svc_sandbox import SandboxError

REQUEST_ID = r"^req_[0-9A-Za-z]{16}$"
START = 1767225600  # 2026-01-01T00:00:00Z, where every session's virtual clock starts


def test_a_bad_body_is_400_naming_the_field_and_the_fix(api):
    answer = api.create_call("4155550123")

    assert (answer.status, answer.error["code"], answer.error["param"]) == (400, "invalid_parameter", "to")
    assert "E.164" in answer.error["message"]

    missing = api.request("POST", "/v1/calls", {"from": "+14155550100"})
    assert (missing.status, missing.error["code"], missing.error["param"]) == (400, "missing_parameter", "to")

    broken = api.request("POST", "/v1/calls", b'{"to": "+14155550123",')
    assert (broken.status, broken.error["code"]) == (400, "invalid_json")


def test_an_unknown_event_name_is_400_with_a_suggestion(api):
    answer = api.subscribe("http://127.0.0.1:9/hooks", ["call.start"])

    assert (answer.status, answer.error["param"]) == (400, "events[0]")
    assert 'did you mean "call.started"' in answer.error["message"]


def test_keys_missing_or_live_are_401(svc_sandbox):
    no_key = Api(None, svc_sandbox.base_url).list_calls()
    assert (no_key.status, no_key.error["code"]) == (401, "invalid_api_key")

    live = Api("SVC_LIVE_0123456789", svc_sandbox.base_url).list_calls()
    assert (live.status, live.error["code"]) == (401, "live_key_not_allowed")


def test_another_sessions_call_is_404(svc_server, api):
    call = api.create_call("+14155550123").json

    with svc_server.session(seed=42) as other:
        answer = Api(other.api_key, other.base_url).get_call(call["id"])

    assert (answer.status, answer.error["code"]) == (404, "not_found")


def test_every_response_carries_request_id_and_rate_limit_headers(svc_sandbox, api):
    live = Api("SVC_LIVE_0123456789", svc_sandbox.base_url)
    answers = {
        201: api.create_call("+14155550123"),
        200: api.list_calls(),
        400: api.create_call("bad"),
        401: live.list_calls(),
        404: api.get_call("call_0000000000000000"),
        422: api.create_call("+15005550001"),
    }
    for status, answer in answers.items():
        assert answer.status == status
        assert re.match(REQUEST_ID, answer.headers["X-Request-Id"])
        assert answer.headers["X-RateLimit-Limit"] == "100"
        assert int(answer.headers["X-RateLimit-Remaining"]) >= 0
        assert answer.headers["X-RateLimit-Reset"].isdigit()
    # Windows are one second of the session's virtual clock: the first one ends at START + 1.
    assert int(answers[201].headers["X-RateLimit-Reset"]) == START + 1


def test_the_101st_request_in_a_virtual_second_is_429(svc_sandbox, api):
    for _ in range(100):
        assert api.list_calls().status == 200

    limited = api.list_calls()

    assert (limited.status, limited.error["code"]) == (429, "rate_limited")
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    assert int(limited.headers["Retry-After"]) >= 1
    svc_sandbox.advance("1s")  # the next window, without waiting a real second
    assert api.list_calls().status == 200


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.advance("soon"), "duration"),
        (lambda s: s.control("POST", "/advance", {}), "duration"),
        (lambda s: s.set_behavior("+14155550123", outcome="bussy"), "outcome"),
        (lambda s: s.inject_fault(path="/v1/calls", status=404), "status"),
    ],
    ids=["a bad duration", "no duration", "a misspelt outcome", "a fault status of 404"],
)
def test_bad_control_input_raises_sandbox_error_naming_the_field(svc_sandbox, call, field):
    with pytest.raises(SandboxError) as refused:
        call(svc_sandbox)

    error = refused.value
    assert error.status == 400
    assert error.code in ("invalid_parameter", "missing_parameter")
    assert error.param == field
    assert field in error.message
    assert svc_sandbox.id in str(error)  # says which session


def test_an_unknown_session_is_404(svc_server):
    with pytest.raises(SandboxError) as refused:
        svc_server.attach("ses_doesNotExist0000").advance("1s")

    assert (refused.value.status, refused.value.code) == (404, "not_found")


def test_the_server_is_up_and_the_default_sessions_key_works(svc_server):
    assert http("GET", svc_server.control_url + "/health").json == {"status": "ok"}
    # SVC_API_KEY, set by `svc-sandbox exec`, is a test key of the shared `default` session
    # (as is any SVC_TEST_ key that no session made).
    default_key = os.environ.get("SVC_API_KEY", "SVC_TEST_python_examples")
    assert Api(default_key, svc_server.url).list_calls().status == 200
