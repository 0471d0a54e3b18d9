"""Scripting the sandbox through the control API: per-number behaviour, manual answers, faults."""

import unittest

from sandbox_testcase import SandboxTestCase

CUSTOMER = "+14155550123"


class NetworkScriptingTest(SandboxTestCase):
    def test_a_number_scripted_busy_ends_busy(self):
        self.session.set_behavior(CUSTOMER, outcome="busy")  # PUT .../network/{number} -> 204
        call = self.api.create_call(CUSTOMER).json
        self.assertEqual(call["status"], "ringing")

        moved = self.session.advance("5s")

        self.assertEqual([e["type"] for e in moved["events"]], ["call.completed"])
        ended = self.api.get_call(call["id"]).json
        self.assertEqual((ended["status"], ended["disposition"], ended["duration"]), ("completed", "busy", 0))

    def test_a_manual_ring_waits_for_the_test_to_answer(self):
        self.session.set_behavior(CUSTOMER, ring="manual")
        call = self.api.create_call(CUSTOMER).json

        self.session.advance("1h")  # nobody answers on their own
        self.assertEqual(self.api.get_call(call["id"]).json["status"], "ringing")

        answered = self.session.answer(call["id"])  # POST .../calls/{id}/answer -> 200, the call

        self.assertEqual(answered["status"], "answered")
        self.assertEqual(answered["answered_at"], "2026-01-01T01:00:00.000Z")
        self.session.advance("60s")  # the default talk time
        done = self.api.get_call(call["id"]).json
        self.assertEqual((done["status"], done["duration"]), ("completed", 60))


class FaultInjectionTest(SandboxTestCase):
    def test_an_injected_503_fails_the_next_matching_request_only(self):
        self.session.inject_fault(path="/v1/calls", status=503)  # POST .../faults -> 201

        failed = self.api.create_call(CUSTOMER)
        self.assertEqual(failed.status, 503)
        self.assertIn("code", failed.error)
        self.assertEqual(self.api.list_calls().json["data"], [])  # a fault changes nothing

        # Once by default (`times`), so a retrying client gets through on its second try.
        self.assertEqual(self.api.create_call(CUSTOMER).status, 201)


if __name__ == "__main__":
    unittest.main()
