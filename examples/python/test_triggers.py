"""Triggers and scenario files: one event of each type on demand, and a scenario shared with Node suites."""

import json
import os

import pytest

from svc_sandbox import SandboxError, verify_webhook

EVENT_TYPES = [
    "call.started",
    "call.answered",
    "call.completed",
    "message.received",
    "message.delivered",
    "recording.ready",
    "transcript.ready",
]
SCENARIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "busy-then-answered.json")


def read(api, event_type, resource_id):
    """The resource as the API shows it now (messages have no GET by id: found in the list)."""
    if event_type.startswith("message."):
        listed = api.request("GET", "/v1/messages?limit=100").json["data"]
        return next(m for m in listed if m["id"] == resource_id)
    collection = {"call": "calls", "recording": "recordings", "transcript": "transcripts"}[event_type.split(".")[0]]
    answer = api.request("GET", f"/v1/{collection}/{resource_id}")
    assert answer.status == 200, answer
    return answer.json


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_each_type_makes_one_event_equal_to_the_resource_and_delivered_signed(svc_sandbox, api, receiver, subscribe, event_type):
    subscription = subscribe([event_type])

    event = svc_sandbox.trigger(event_type)

    assert event["type"] == event_type
    assert [e["id"] for e in svc_sandbox.events() if e["type"] == event_type] == [event["id"]]
    assert read(api, event_type, event["data"]["id"]) == event["data"]
    [request] = receiver.wait_for(1)
    assert verify_webhook(request["body"], request["headers"]["X-Service-Signature"], subscription["secret"])
    assert json.loads(request["body"]) == event


def test_a_busy_call_completed(svc_sandbox, api):
    event = svc_sandbox.trigger("call.completed", {"disposition": "busy"})

    assert (event["data"]["disposition"], event["data"]["duration"]) == ("busy", 0)
    assert api.get_call(event["data"]["id"]).json == event["data"]


def test_an_unknown_field_is_refused_naming_it(svc_sandbox):
    with pytest.raises(SandboxError) as refused:
        svc_sandbox.trigger("call.completed", {"dispositon": "busy"})

    assert (refused.value.status, refused.value.param) == (400, "data.dispositon")


def test_the_shared_scenario_file_passes_here_too(svc_sandbox, api):
    result = svc_sandbox.run_scenario(SCENARIO)

    assert result["passed"], result["failure"]
    assert [c["disposition"] for c in api.list_calls().json["data"]] == ["answered", "busy"]


def test_a_failed_expectation_says_what_was_seen(svc_sandbox):
    with open(SCENARIO, encoding="utf-8") as file:
        scenario = json.load(file)
    scenario["steps"][1]["expect"]["resources"][0]["fields"]["disposition"] = "no_answer"

    result = svc_sandbox.run_scenario(scenario)

    assert result["passed"] is False
    assert result["failure"]["path"] == "steps[1].expect.resources[0].fields.disposition"
    assert result["failure"]["seen"] == "busy"
