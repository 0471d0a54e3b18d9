"""unittest style: SandboxTestCase gives each test `self.sandbox`, a fresh session, deleted after it.

pytest runs it with the rest; alone: `python -m unittest test_unittest_style` in this folder.
"""

import unittest

from sdk import Api

from svc_sandbox import SandboxTestCase


class CallTest(SandboxTestCase):
    sandbox_options = {"seed": 42}

    def setUp(self):
        self.api = Api(self.sandbox.api_key, self.sandbox.base_url)

    def test_a_call_rings_is_answered_and_completes(self):
        call = self.api.create_call("+14155550123").json

        self.sandbox.advance("65s")

        done = self.api.get_call(call["id"]).json
        self.assertEqual((done["status"], done["disposition"], done["duration"]), ("completed", "answered", 60))

    def test_a_busy_line(self):
        self.sandbox.set_behavior("+14155550123", outcome="busy")
        call = self.api.create_call("+14155550123").json

        event = self.sandbox.advance_until("call.completed")

        self.assertEqual((event["data"]["id"], event["data"]["disposition"]), (call["id"], "busy"))
        self.assertEqual(event["created_at"], "2026-01-01T00:00:01.000Z")


if __name__ == "__main__":
    unittest.main()
