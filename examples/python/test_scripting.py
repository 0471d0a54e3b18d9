"""Scripting the sandbox: per-number behaviour, manual answers, faults."""

CUSTOMER = "+14155550123"


def test_a_number_scripted_busy_ends_busy(svc_sandbox, api):
    svc_sandbox.set_behavior(CUSTOMER, outcome="busy")
    call = api.create_call(CUSTOMER).json
    assert call["status"] == "ringing"

    moved = svc_sandbox.advance("5s")

    assert [e["type"] for e in moved["events"]] == ["call.completed"]
    ended = api.get_call(call["id"]).json
    assert (ended["status"], ended["disposition"], ended["duration"]) == ("completed", "busy", 0)


def test_a_manual_ring_waits_for_the_test_to_answer(svc_sandbox, api):
    svc_sandbox.set_behavior(CUSTOMER, ring="manual")
    call = api.create_call(CUSTOMER).json

    svc_sandbox.advance("1h")  # nobody answers on their own
    assert api.get_call(call["id"]).json["status"] == "ringing"

    answered = svc_sandbox.answer(call["id"])

    assert (answered["status"], answered["answered_at"]) == ("answered", "2026-01-01T01:00:00.000Z")
    svc_sandbox.advance("60s")  # the default talk time
    done = api.get_call(call["id"]).json
    assert (done["status"], done["duration"]) == ("completed", 60)


def test_an_injected_503_fails_the_next_matching_request_only(svc_sandbox, api):
    svc_sandbox.inject_fault(path="/v1/calls", status=503)

    failed = api.create_call(CUSTOMER)
    assert failed.status == 503
    assert "code" in failed.error
    assert api.list_calls().json["data"] == []  # a fault changes nothing

    # Once by default (`times`), so a retrying client gets through on its second try.
    assert api.create_call(CUSTOMER).status == 201
