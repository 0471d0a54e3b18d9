"""Webhooks over real HTTP: the sandbox server POSTs signed events to a receiver in this process."""

import json
import unittest

from sandbox_client import verify_webhook
from sandbox_testcase import SandboxTestCase
from webhook_receiver import WebhookReceiver

CALL_EVENTS = ["call.started", "call.answered", "call.completed"]


class WebhookTestCase(SandboxTestCase):
    def setUp(self):
        super().setUp()
        self.receiver = WebhookReceiver().start()

    def tearDown(self):
        self.receiver.stop()
        super().tearDown()

    def subscribe(self, events):
        subscribed = self.api.subscribe(self.receiver.url, events)
        self.assertEqual(subscribed.status, 201, subscribed)
        return subscribed.json


class WebhookDeliveryTest(WebhookTestCase):
    def test_events_arrive_signed_and_the_signature_verifies_in_python(self):
        subscription = self.subscribe(CALL_EVENTS)
        self.assertRegex(subscription["id"], r"^wh_[0-9A-Za-z]{16}$")
        self.assertTrue(subscription["secret"].startswith("whsec_"))

        call = self.api.create_call("+14155550123").json
        self.session.advance("65s")

        requests = self.receiver.wait_for(3)
        for request in requests:
            headers, raw = request["headers"], request["body"]
            # Verify the exact raw bytes first, then parse them.
            self.assertTrue(verify_webhook(raw, headers["X-Service-Signature"], subscription["secret"]))
            event = json.loads(raw)
            self.assertEqual(request["path"], "/hooks")
            self.assertEqual(headers["Content-Type"], "application/json")
            self.assertEqual(headers["X-Service-Event-Id"], event["id"])
            self.assertEqual(headers["X-Service-Event-Type"], event["type"])
            self.assertEqual(headers["X-Service-Delivery-Attempt"], "1")
            self.assertEqual(event["data"]["id"], call["id"])

        events = [json.loads(r["body"]) for r in requests]
        self.assertEqual([e["type"] for e in events], CALL_EVENTS)
        self.assertEqual([e["id"] for e in events], [e["id"] for e in self.session.events()[:3]])
        completed = events[2]["data"]
        self.assertEqual((completed["duration"], completed["disposition"]), (60, "answered"))
        self.assertIn("recording_url", completed)

    def test_a_tampered_body_or_a_wrong_secret_does_not_verify(self):
        subscription = self.subscribe(["call.started"])
        self.api.create_call("+14155550123")  # call.started is emitted now, and sent at once
        [request] = self.receiver.wait_for(1)
        signature = request["headers"]["X-Service-Signature"]

        self.assertRegex(signature, r"^[0-9a-f]{64}$")
        self.assertTrue(verify_webhook(request["body"], signature, subscription["secret"]))
        self.assertFalse(verify_webhook(request["body"] + b" ", signature, subscription["secret"]))
        self.assertFalse(verify_webhook(request["body"], signature, "whsec_not_the_secret"))
        self.assertFalse(verify_webhook(request["body"], signature.upper(), subscription["secret"]))


class WebhookRetryTest(WebhookTestCase):
    def test_a_failing_receiver_is_retried_for_a_day_then_dead_lettered_and_replayed(self):
        self.receiver.status = 500
        self.subscribe(["call.completed"])
        self.api.create_call("+14155550123")

        self.session.advance("25h")  # 30 s, 1 m, 2 m, ... doubling, within 24 h of the first

        [dead] = self.session.dead_letters()
        self.assertEqual(dead["eventType"], "call.completed")
        self.assertEqual(len(dead["attempts"]), 12)
        self.assertTrue(all(not a["ok"] and a["status"] == 500 for a in dead["attempts"]))
        failed = self.receiver.wait_for(12)
        self.assertEqual([r["headers"]["X-Service-Delivery-Attempt"] for r in failed], [str(n) for n in range(1, 13)])
        self.assertEqual({r["headers"]["X-Service-Event-Id"] for r in failed}, {dead["eventId"]})

        # The receiver is fixed: replay the dead letter from the control API.
        self.receiver.status = 200
        [attempt] = self.session.replay(dead["id"])

        self.assertEqual((attempt["attempt"], attempt["ok"], attempt["status"]), (1, True, 200))
        replayed = self.receiver.wait_for(13)[-1]
        self.assertEqual(replayed["headers"]["X-Service-Event-Id"], dead["eventId"])  # de-duplicate on it
        self.assertEqual(replayed["headers"]["X-Service-Delivery-Attempt"], "1")
        self.assertEqual(replayed["body"], failed[0]["body"])  # the same bytes
        self.assertEqual(self.session.dead_letters(), [])


if __name__ == "__main__":
    unittest.main()
