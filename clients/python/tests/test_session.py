"""Session: every control-API operation as a method, answered with the server's JSON, refused with SandboxError."""

from __future__ import annotations

import json
import math
import pickle
import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Dict, Union

import pytest
from sdk import Client

from svc_sandbox import SandboxError, Server, Session

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
CUSTOMER = "+14155550123"
SCENARIO = Path(__file__).resolve().parents[3] / "examples" / "scenarios" / "busy-then-answered.json"


def place(client: Client, to: str = CUSTOMER, **fields: object) -> dict:
    answer = client.send("POST", "/v1/calls", {"to": to, "from": "+14155550100", **fields})
    assert answer.status == 201, answer
    return answer.json


def provision(client: Client) -> str:
    answer = client.send("POST", "/v1/numbers", {"kind": "local"})
    assert answer.status == 201, answer
    return answer.json["number"]


# The session and its clock


def test_a_session_has_its_key_on_the_servers_base_url(svc_server: Server, svc_sandbox: Session, client: Client) -> None:
    assert svc_sandbox.base_url == svc_server.url
    assert svc_sandbox.api_key and svc_sandbox.api_key.startswith(f"SVC_TEST_{svc_sandbox.id}_")
    assert svc_sandbox.info() == {"id": svc_sandbox.id, "seed": 0, "now": "2026-01-01T00:00:00.000Z"}
    assert client.send("GET", "/v1/calls").status == 200


def test_advance_takes_strings_seconds_and_timedeltas(svc_sandbox: Session, client: Client) -> None:
    place(client)

    moved = svc_sandbox.advance("5s")
    svc_sandbox.advance(30)
    svc_sandbox.advance(timedelta(minutes=1, milliseconds=500))

    assert moved == {"now": "2026-01-01T00:00:05.000Z", "events": moved["events"]}
    assert [e["type"] for e in moved["events"]] == ["call.answered"]
    assert svc_sandbox.now() == START + timedelta(seconds=95.5)
    with pytest.raises(ValueError, match="non-negative"):
        svc_sandbox.advance(-1)
    with pytest.raises(TypeError, match="duration"):
        svc_sandbox.advance(None)  # type: ignore[arg-type]


def test_advance_until_returns_the_event_or_404_naming_until(svc_sandbox: Session, client: Client) -> None:
    call = place(client)

    event = svc_sandbox.advance_until("call.completed")

    assert (event["type"], event["data"]["id"], event["created_at"]) == ("call.completed", call["id"], "2026-01-01T00:01:05.000Z")
    with pytest.raises(SandboxError) as caught:
        svc_sandbox.advance_until("recording.ready", max="5s")
    assert (caught.value.status, caught.value.code, caught.value.param) == (404, "not_found", "until")


def test_reset_empties_the_session_and_its_key_keeps_working(svc_sandbox: Session, client: Client) -> None:
    first = place(client)["id"]
    svc_sandbox.advance("2m")

    svc_sandbox.reset()

    assert svc_sandbox.events() == []
    assert svc_sandbox.now() == START
    assert place(client)["id"] == first


def test_session_options_reach_the_server(svc_server: Server) -> None:
    with svc_server.session(seed=42, start_time=datetime(2026, 3, 1, 9, 30), deprecation={"sunset": "2027-01-01T00:00:00Z"}) as s:
        assert s.info()["seed"] == 42
        assert s.now() == datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
        answer = Client(s.api_key or "", s.base_url).send("GET", "/v1/calls")
        assert answer.headers["Sunset"] == "Fri, 01 Jan 2027 00:00:00 GMT"
    with pytest.raises(SandboxError) as caught:
        svc_server.session(clock="sundial")
    assert (caught.value.status, caught.value.param) == (400, "clock")


def test_same_seed_same_ids_and_a_fork_continues_from_now(svc_server: Server) -> None:
    with svc_server.session(seed=9) as one, svc_server.session(seed=9) as two:
        ids = [place(Client(s.api_key or "", s.base_url))["id"] for s in (one, two)]
        assert ids[0] == ids[1]
        with one.fork() as fork:
            assert [e["data"]["id"] for e in fork.events()] == [ids[0]]
            assert place(Client(fork.api_key or "", fork.base_url))["id"] == place(Client(one.api_key or "", one.base_url))["id"]


def test_a_snapshot_starts_a_session_that_answers_the_same(svc_server: Server, svc_sandbox: Session, client: Client, tmp_path: Path) -> None:
    place(client)
    svc_sandbox.advance("65s")
    snapshot = svc_sandbox.snapshot()
    (tmp_path / "s.json").write_text(json.dumps(snapshot))

    sources: "list[Union[Dict[str, Any], Path, str]]" = [snapshot, tmp_path / "s.json", str(tmp_path / "s.json")]
    for source in sources:
        with svc_server.session(snapshot=source) as copy:
            assert copy.events() == svc_sandbox.events()
            assert copy.now() == svc_sandbox.now()
    with pytest.raises(SandboxError, match="cannot read"):
        svc_server.session(snapshot=tmp_path / "missing.json")


def test_close_deletes_the_session_once_and_its_key_is_401(svc_server: Server) -> None:
    with svc_server.session() as session:
        client = Client(session.api_key or "", session.base_url)
        assert client.send("GET", "/v1/calls").status == 200
    session.close()

    assert session.closed
    assert client.send("GET", "/v1/calls").status == 401
    assert session.id not in [s["id"] for s in svc_server.sessions()]
    with pytest.raises(SandboxError) as caught:
        session.advance("1s")
    assert caught.value.code == "session_closed"
    assert str(caught.value) == f"Session.advance (session {session.id}) failed: session_closed: session {session.id} is closed; make another with server.session()."


def test_attach_reaches_a_session_made_elsewhere_and_leaves_it_open(svc_server: Server) -> None:
    default = svc_server.attach("default")

    assert default.info()["id"] == "default"
    default.close()
    assert "default" in [s["id"] for s in svc_server.sessions()]


# Errors


def test_a_refusal_is_a_sandbox_error_with_the_envelope(svc_sandbox: Session) -> None:
    with pytest.raises(SandboxError) as caught:
        svc_sandbox.set_behavior(CUSTOMER, outcome="bussy")

    error = caught.value
    assert (error.status, error.code, error.param) == (400, "invalid_parameter", "outcome")
    assert 'did you mean "busy"?' in error.message
    assert (error.operation, error.session_id) == ("Session.set_behavior", svc_sandbox.id)
    assert str(error) == f"Session.set_behavior (session {svc_sandbox.id}) failed: 400 invalid_parameter: {error.message} [param: outcome]"
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.param) == (SandboxError, str(error), "outcome")


def test_an_unknown_session_is_404(svc_server: Server) -> None:
    with pytest.raises(SandboxError) as caught:
        svc_server.attach("ses_doesNotExist0000").advance("1s")
    assert (caught.value.status, caught.value.code, caught.value.param) == (404, "not_found", "s")


# Events, webhooks, the journal


def test_lists_are_walked_to_their_end(svc_sandbox: Session) -> None:
    fast = Client(svc_sandbox.create_key(plan="enterprise")["key"], svc_sandbox.base_url)
    ids = [place(fast)["id"] for _ in range(210)]

    events = svc_sandbox.events()

    assert [e["data"]["id"] for e in events] == ids  # oldest first, over two pages of 200
    assert len(svc_sandbox.requests()) == 210
    assert [c["id"] for c in svc_sandbox.calls()] == ids[::-1]


def test_dead_letters_deliveries_attempts_and_replay(svc_sandbox: Session, client: Client) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    nobody = f"http://127.0.0.1:{probe.getsockname()[1]}/hooks"  # bound, not listening: refused at once
    try:
        assert client.send("POST", "/v1/webhooks", {"url": nobody, "events": ["call.completed"]}).status == 201
        place(client)
        svc_sandbox.advance("25h")

        [dead] = svc_sandbox.dead_letters()
        assert (dead["eventType"], dead["state"], len(dead["attempts"])) == ("call.completed", "dead", 13)
        assert [d["id"] for d in svc_sandbox.deliveries()] == [dead["id"]]
        assert len(svc_sandbox.attempts()) == 13

        [again] = svc_sandbox.replay(dead["id"])
        assert (again["attempt"], again["replay"], again["ok"]) == (1, 1, False)
        assert svc_sandbox.dead_letters() == []  # a replay that fails starts the retries over
        svc_sandbox.advance("25h")
        [all_again] = svc_sandbox.replay_all(type="call.completed")
        assert all_again["replay"] == 2
        assert svc_sandbox.replay_all(type="call.started") == []
    finally:
        probe.close()


def test_control_reaches_any_route_of_the_session(svc_sandbox: Session, client: Client) -> None:
    provision(client)

    page = svc_sandbox.control("GET", "/console/numbers?limit=10")

    assert [n["status"] for n in page["data"]] == ["provisioned"]
    assert svc_sandbox.control("post", "/advance", {"duration": "1s"})["now"] == "2026-01-01T00:00:01.000Z"
    with pytest.raises(SandboxError) as caught:
        svc_sandbox.control("GET", "/nothing-here")
    assert (caught.value.status, caught.value.operation) == (404, "Session.control(GET /nothing-here)")
    with pytest.raises(ValueError):
        svc_sandbox.control("GET", "events")


def test_coverage_internal_errors_and_transcript_streams(svc_sandbox: Session, client: Client) -> None:
    place(client)
    svc_sandbox.advance("2m")

    assert svc_sandbox.coverage()["events"]
    assert svc_sandbox.internal_errors() == []
    assert svc_sandbox.transcript_streams() == 0


# Scenarios and triggers


def test_trigger_makes_one_event_with_the_fields_asked(svc_sandbox: Session, client: Client) -> None:
    event = svc_sandbox.trigger("call.completed", {"disposition": "busy"})

    assert (event["type"], event["data"]["disposition"]) == ("call.completed", "busy")
    assert client.send("GET", f"/v1/calls/{event['data']['id']}").json == event["data"]
    with pytest.raises(SandboxError) as caught:
        svc_sandbox.trigger("call.completed", {"dispositon": "busy"})
    assert (caught.value.status, caught.value.param) == (400, "data.dispositon")


def test_run_scenario_takes_a_path_or_a_dict_and_reports_a_failure_as_a_result(svc_server: Server) -> None:
    with svc_server.session() as by_path:
        assert by_path.run_scenario(SCENARIO)["passed"] is True
    scenario = json.loads(SCENARIO.read_text())
    scenario["steps"][1]["expect"]["resources"][0]["fields"]["disposition"] = "no_answer"
    with svc_server.session() as by_dict:
        result = by_dict.run_scenario(scenario)
        assert result["passed"] is False
        assert result["failure"] is not None
        assert result["failure"]["path"] == "steps[1].expect.resources[0].fields.disposition"
        with pytest.raises(SandboxError) as caught:
            by_dict.run_scenario({"name": "no steps"})
        assert caught.value.status == 400 and caught.value.param


# Keys and faults


def test_keys_are_made_listed_and_revoked(svc_sandbox: Session) -> None:
    made = svc_sandbox.create_key(scopes=["calls:read"])
    reader = Client(made["key"], svc_sandbox.base_url)

    assert (made["plan"], made["scopes"]) == ("standard", ["calls:read"])
    assert reader.send("GET", "/v1/calls").status == 200
    assert place_status(reader) == 403
    assert made["key"] in [k["key"] for k in svc_sandbox.keys()]
    svc_sandbox.revoke_key(made["key"])
    assert reader.send("GET", "/v1/calls").status == 401


def place_status(client: Client) -> int:
    return client.send("POST", "/v1/calls", {"to": CUSTOMER, "from": "+14155550100"}).status


def test_faults_are_injected_listed_and_cleared(svc_sandbox: Session, client: Client) -> None:
    rules = svc_sandbox.inject_fault(method="POST", path="/v1/calls", status=503, retry_after=2, times=math.inf)

    assert rules == [{"method": "POST", "path": "/v1/calls", "status": 503, "network": False, "retryAfter": 2, "remaining": None}]
    assert [place_status(client) for _ in range(3)] == [503, 503, 503]
    assert svc_sandbox.faults() == rules
    svc_sandbox.clear_faults()
    assert svc_sandbox.faults() == []
    assert place_status(client) == 201


# The network, calls, messages, media


def test_behaviours_script_the_carrier_per_number(svc_sandbox: Session, client: Client) -> None:
    svc_sandbox.set_behavior(CUSTOMER, outcome="answered", ring="2s", talk="10s", answered_by="voicemail", agent="maria")
    svc_sandbox.queue_behavior(CUSTOMER, {"outcome": "busy"})
    busy, scripted = place(client), place(client)
    svc_sandbox.clear_behavior(CUSTOMER)
    ordinary = place(client)
    svc_sandbox.advance("2m")

    assert svc_sandbox.call(busy["id"])["disposition"] == "busy"
    done = svc_sandbox.call(scripted["id"])
    assert (done["answered_by"], done["duration"], done["answered_at"]) == ("voicemail", 10, "2026-01-01T00:00:02.000Z")
    assert svc_sandbox.call(ordinary["id"])["duration"] == 60
    svc_sandbox.set_behavior(CUSTOMER, outcome="busy")
    svc_sandbox.clear_behavior()
    assert svc_sandbox.call(place(client)["id"])["status"] == "ringing"


def test_message_behaviours(svc_sandbox: Session, client: Client) -> None:
    own = provision(client)
    svc_sandbox.queue_message_behavior(CUSTOMER, "failed", "delivered")
    svc_sandbox.set_message_behavior("+14155550124", "failed")
    sent = [client.send("POST", "/v1/messages", {"from": own, "to": to, "body": "hi"}).json["id"] for to in (CUSTOMER, CUSTOMER, "+14155550124")]
    svc_sandbox.advance("1m")

    assert [svc_sandbox.message(m)["status"] for m in sent] == ["failed", "delivered", "failed"]


def test_calls_are_answered_and_hung_up_by_hand(svc_sandbox: Session, client: Client) -> None:
    svc_sandbox.set_behavior(CUSTOMER, ring="manual", talk="manual")
    call = place(client)
    svc_sandbox.advance("1h")

    answered = svc_sandbox.answer(call["id"], by="human")
    svc_sandbox.advance("42s")
    ended = svc_sandbox.hang_up(call["id"])

    assert (answered["status"], answered["answered_at"]) == ("answered", "2026-01-01T01:00:00.000Z")
    assert (ended["status"], ended["disposition"], ended["duration"]) == ("completed", "answered", 42)
    with pytest.raises(SandboxError) as caught:
        svc_sandbox.answer(call["id"])
    assert (caught.value.status, caught.value.code) == (409, "conflict")


def test_inbound_calls_and_messages_reach_a_provisioned_number(svc_sandbox: Session, client: Client) -> None:
    own = provision(client)

    call = svc_sandbox.inbound_call("+442071234567", own, behavior={"outcome": "answered", "talk": 30})
    message = svc_sandbox.inbound_message("+442071234567", own, "Can I move my cleaning?")
    svc_sandbox.advance("1m")

    assert (call["direction"], call["from"], call["to"]) == ("inbound", "+442071234567", own)
    assert svc_sandbox.call(call["id"])["duration"] == 30
    assert (message["direction"], message["status"], message["body"]) == ("inbound", "received", "Can I move my cleaning?")
    assert [e["type"] for e in svc_sandbox.events()][:3] == ["call.started", "message.received", "call.answered"]


def test_recordings_transcripts_timing_and_scripts(svc_sandbox: Session, client: Client) -> None:
    svc_sandbox.set_recording_timing(recording_delay="5s", transcript_delay=15)
    call = place(client)
    svc_sandbox.set_script(call["id"], [{"speaker": "agent", "text": "Harbour Dental, good morning."}, {"speaker": "customer", "text": "Hello."}])
    svc_sandbox.set_recording_timing(transcript_delay="1m", call_id=call["id"])

    svc_sandbox.advance("65s")
    recording_id = svc_sandbox.call(call["id"])["recording_id"]
    svc_sandbox.advance("5s")

    assert svc_sandbox.recording(recording_id)["status"] == "ready"
    audio = svc_sandbox.recording_audio(recording_id)
    assert audio[:4] == b"RIFF" and audio[8:12] == b"WAVE"  # the bytes, not JSON
    transcript_id = svc_sandbox.call(call["id"])["transcript_id"]
    assert [s["text"] for s in svc_sandbox.transcript(transcript_id)["segments"]] == ["Harbour Dental, good morning.", "Hello."]
    assert svc_sandbox.advance_until("transcript.ready")["created_at"] == "2026-01-01T00:02:10.000Z"
