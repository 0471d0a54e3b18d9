"""Triggers and scenario files: one event of each type on demand, and a scenario shared with Node suites."""

import json
import os
import unittest

from sandbox_client import verify_webhook
from test_webhooks import WebhookTestCase

EVENT_TYPES = [
    "call.started",
    "call.answered",
    "call.completed",
    "message.received",
    "message.delivered",
    "recording.ready",
    "transcript.ready",
]
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenarios")


class TriggerTest(WebhookTestCase):
    def read(self, event_type, resource_id):
        """The resource as the API shows it now (messages have no GET by id: found in the list)."""
        if event_type.startswith("message."):
            listed = self.api.request("GET", "/v1/messages?limit=100").json["data"]
            return next(m for m in listed if m["id"] == resource_id)
        collection = {"call": "calls", "recording": "recordings", "transcript": "transcripts"}[event_type.split(".")[0]]
        answer = self.api.request("GET", f"/v1/{collection}/{resource_id}")
        self.assertEqual(answer.status, 200, answer)
        return answer.json

    def test_each_type_makes_one_event_equal_to_the_resource_and_delivered_signed(self):
        for event_type in EVENT_TYPES:
            with self.subTest(event_type=event_type):
                self.session.reset()
                self.receiver.requests.clear()
                subscription = self.subscribe([event_type])
                event = self.session.trigger(event_type)
                self.assertEqual(event["type"], event_type)
                self.assertEqual([e["id"] for e in self.session.events() if e["type"] == event_type], [event["id"]])
                self.assertEqual(self.read(event_type, event["data"]["id"]), event["data"])
                [request] = self.receiver.wait_for(1)
                self.assertTrue(verify_webhook(request["body"], request["headers"]["X-Service-Signature"], subscription["secret"]))
                self.assertEqual(json.loads(request["body"]), event)

    def test_a_busy_call_completed(self):
        event = self.session.trigger("call.completed", disposition="busy")
        self.assertEqual((event["data"]["disposition"], event["data"]["duration"]), ("busy", 0))
        self.assertEqual(self.api.get_call(event["data"]["id"]).json, event["data"])

    def test_an_unknown_field_is_refused_naming_it(self):
        answer = self.session.control("POST", "/trigger", {"type": "call.completed", "data": {"dispositon": "busy"}})
        self.assertEqual(answer.status, 400)
        self.assertEqual(answer.error["param"], "data.dispositon")


class ScenarioTest(WebhookTestCase):
    def test_the_shared_scenario_file_passes_here_too(self):
        with open(os.path.join(SCENARIOS, "busy-then-answered.json"), encoding="utf-8") as file:
            scenario = json.load(file)
        result = self.session.run_scenario(scenario)
        self.assertTrue(result["passed"], result["failure"])
        dispositions = [c["disposition"] for c in self.api.list_calls().json["data"]]
        self.assertEqual(dispositions, ["answered", "busy"])

    def test_a_failed_expectation_says_what_was_seen(self):
        with open(os.path.join(SCENARIOS, "busy-then-answered.json"), encoding="utf-8") as file:
            scenario = json.load(file)
        scenario["steps"][1]["expect"]["resources"][0]["fields"]["disposition"] = "no_answer"
        result = self.session.run_scenario(scenario)
        self.assertFalse(result["passed"])
        self.assertEqual(result["failure"]["path"], "steps[1].expect.resources[0].fields.disposition")
        self.assertEqual(result["failure"]["seen"], "busy")


if __name__ == "__main__":
    unittest.main()
