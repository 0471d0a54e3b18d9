"""Sessions: each one a sandbox of its own, deterministic from its seed, isolated in time and state."""

from datetime import datetime, timezone

import pytest
from sdk import Api

from svc_sandbox import SandboxError

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_two_sessions_with_the_same_seed_give_the_same_ids(svc_server, svc_sandbox, api):
    with svc_server.session(seed=42) as twin:
        twin_api = Api(twin.api_key, twin.base_url)
        mine = [api.create_call("+14155550123").json["id"] for _ in range(3)]
        theirs = [twin_api.create_call("+14155550123").json["id"] for _ in range(3)]

        assert mine == theirs
        assert len(set(mine)) == 3
        assert twin.id != svc_sandbox.id


def test_a_different_seed_gives_different_ids(svc_server, api):
    with svc_server.session(seed=43) as other:
        theirs = Api(other.api_key, other.base_url).create_call("+14155550123").json["id"]

    assert api.create_call("+14155550123").json["id"] != theirs


def test_time_in_one_session_does_not_move_another(svc_server, svc_sandbox, api):
    with svc_server.session(seed=42) as other:
        other_api = Api(other.api_key, other.base_url)
        mine = api.create_call("+14155550123").json
        theirs = other_api.create_call("+14155550123").json

        svc_sandbox.advance("65s")

        assert api.get_call(mine["id"]).json["status"] == "completed"
        assert other_api.get_call(theirs["id"]).json["status"] == "ringing"
        assert other.now() == START


def test_reset_empties_the_session_and_its_key_keeps_working(svc_sandbox, api):
    first_id = api.create_call("+14155550123").json["id"]
    svc_sandbox.advance("2m")
    assert len(api.list_calls().json["data"]) == 1

    svc_sandbox.reset()

    calls = api.list_calls()
    assert (calls.status, calls.json["data"]) == (200, [])
    assert svc_sandbox.events() == []
    assert svc_sandbox.now() == START
    # Reset means "as new": the same seed gives the same first id again.
    assert api.create_call("+14155550123").json["id"] == first_id


def test_a_deleted_sessions_key_is_401(svc_server):
    doomed = svc_server.session(seed=42)
    api = Api(doomed.api_key, doomed.base_url)
    assert api.list_calls().status == 200

    doomed.close()

    answer = api.list_calls()
    assert (answer.status, answer.error["code"]) == (401, "invalid_api_key")
    with pytest.raises(SandboxError) as refused:  # the server has no such session any more
        svc_server.attach(doomed.id).advance("1s")
    assert refused.value.status == 404


def test_a_deleted_sessions_401_carries_the_headers_of_every_response(svc_server):
    with svc_server.session(seed=42) as doomed:
        api = Api(doomed.api_key, doomed.base_url)

    answer = api.list_calls()

    assert answer.status == 401
    assert answer.headers["X-Request-Id"] is not None
    assert answer.headers["X-RateLimit-Limit"] is not None
