"""Webhooks over real HTTP: the sandbox server POSTs signed events to a receiver in this process."""

import json
import re

from svc_sandbox import verify_webhook

CALL_EVENTS = ["call.started", "call.answered", "call.completed"]


def test_events_arrive_signed_and_the_signature_verifies_in_python(svc_sandbox, api, receiver, subscribe):
    subscription = subscribe(CALL_EVENTS)
    assert re.match(r"^wh_[0-9A-Za-z]{16}$", subscription["id"])
    assert subscription["secret"].startswith("whsec_")

    call = api.create_call("+14155550123").json
    svc_sandbox.advance("65s")

    requests = receiver.wait_for(3)
    for request in requests:
        headers, raw = request["headers"], request["body"]
        # Verify the exact raw bytes first, then parse them.
        assert verify_webhook(raw, headers["X-Service-Signature"], subscription["secret"])
        event = json.loads(raw)
        assert request["path"] == "/hooks"
        assert headers["Content-Type"] == "application/json"
        assert headers["X-Service-Event-Id"] == event["id"]
        assert headers["X-Service-Event-Type"] == event["type"]
        assert headers["X-Service-Delivery-Attempt"] == "1"
        assert event["data"]["id"] == call["id"]

    events = [json.loads(r["body"]) for r in requests]
    assert [e["type"] for e in events] == CALL_EVENTS
    assert [e["id"] for e in events] == [e["id"] for e in svc_sandbox.events()[:3]]
    completed = events[2]["data"]
    assert (completed["duration"], completed["disposition"]) == (60, "answered")
    assert "recording_url" in completed


def test_a_tampered_body_or_a_wrong_secret_does_not_verify(api, receiver, subscribe):
    subscription = subscribe(["call.started"])
    api.create_call("+14155550123")  # call.started is emitted now, and sent at once
    [request] = receiver.wait_for(1)
    signature = request["headers"]["X-Service-Signature"]

    assert re.match(r"^[0-9a-f]{64}$", signature)
    assert verify_webhook(request["body"], signature, subscription["secret"])
    assert not verify_webhook(request["body"] + b" ", signature, subscription["secret"])
    assert not verify_webhook(request["body"], signature, "whsec_not_the_secret")
    assert not verify_webhook(request["body"], signature.upper(), subscription["secret"])


def test_a_failing_receiver_is_retried_for_a_day_then_dead_lettered_and_replayed(svc_sandbox, api, receiver, subscribe):
    receiver.status = 500
    subscribe(["call.completed"])
    api.create_call("+14155550123")

    svc_sandbox.advance("25h")  # 30 s, 1 m, 2 m, ... doubling, the last 24 h after the first

    [dead] = svc_sandbox.dead_letters()
    assert dead["eventType"] == "call.completed"
    assert len(dead["attempts"]) == 13
    assert all(not a["ok"] and a["status"] == 500 for a in dead["attempts"])
    failed = receiver.wait_for(12)
    assert [r["headers"]["X-Service-Delivery-Attempt"] for r in failed] == [str(n) for n in range(1, 13)]
    assert {r["headers"]["X-Service-Event-Id"] for r in failed} == {dead["eventId"]}

    # The receiver is fixed: replay the dead letter.
    receiver.status = 200
    [attempt] = svc_sandbox.replay(dead["id"])

    assert (attempt["attempt"], attempt["ok"], attempt["status"]) == (1, True, 200)
    replayed = receiver.wait_for(13)[-1]
    assert replayed["headers"]["X-Service-Event-Id"] == dead["eventId"]  # de-duplicate on it
    assert replayed["headers"]["X-Service-Delivery-Attempt"] == "1"
    assert replayed["body"] == failed[0]["body"]  # the same bytes
    assert svc_sandbox.dead_letters() == []
