"""A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so."""

import re

CALL_ID = r"^call_[0-9A-Za-z]{16}$"


def test_a_call_rings_is_answered_and_completes(svc_sandbox, api):
    created = api.create_call("+14155550123")

    assert created.status == 201
    call = created.json
    assert re.match(CALL_ID, call["id"])
    assert call["status"] == "ringing"
    assert call["ai_handler"] == "none"

    # Any ordinary number rings 5 s, is answered, talks 60 s.
    moved = svc_sandbox.advance("65s")

    assert moved["now"] == "2026-01-01T00:01:05.000Z"
    assert [e["type"] for e in moved["events"]] == ["call.answered", "call.completed"]
    fetched = api.get_call(call["id"])
    assert fetched.status == 200
    assert (fetched.json["status"], fetched.json["disposition"], fetched.json["duration"]) == ("completed", "answered", 60)


def test_an_ai_receptionist_answers_and_the_recording_and_transcript_follow(svc_sandbox, api):
    call = api.create_call("+14155550123", ai_receptionist=True).json
    assert call["ai_handler"] != "none"

    moved = svc_sandbox.advance("2m")

    # Recording ready 10 s after the end, transcript 20 s after that.
    assert [(e["type"], e["created_at"]) for e in moved["events"]] == [
        ("call.answered", "2026-01-01T00:00:05.000Z"),
        ("call.completed", "2026-01-01T00:01:05.000Z"),
        ("recording.ready", "2026-01-01T00:01:15.000Z"),
        ("transcript.ready", "2026-01-01T00:01:35.000Z"),
    ]
    done = api.get_call(call["id"]).json
    assert done["answered_by"] == "ai_receptionist"
    assert re.match(r"^rec_[0-9A-Za-z]{16}$", done["recording_id"])
    # The session's event log has everything, call.started (emitted at creation) included.
    assert [e["type"] for e in svc_sandbox.events()] == [
        "call.started",
        "call.answered",
        "call.completed",
        "recording.ready",
        "transcript.ready",
    ]


def test_the_magic_numbers_of_the_simulated_network(svc_sandbox, api):
    unreachable = api.create_call("+15005550001")
    assert (unreachable.status, unreachable.error["code"]) == (422, "unreachable_destination")

    busy = api.create_call("+15005550002").json
    no_answer = api.create_call("+15005550003").json
    svc_sandbox.advance("30s")

    assert api.get_call(busy["id"]).json["disposition"] == "busy"
    assert api.get_call(no_answer["id"]).json["disposition"] == "no_answer"
