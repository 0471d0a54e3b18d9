"""A call's lifecycle on the session's virtual clock: no sleeps, time moves when the test says so."""

import unittest

from sandbox_testcase import SandboxTestCase

CALL_ID = r"^call_[0-9A-Za-z]{16}$"


class CallLifecycleTest(SandboxTestCase):
    def test_a_call_rings_is_answered_and_completes(self):
        created = self.api.create_call("+14155550123")

        self.assertEqual(created.status, 201)
        call = created.json
        self.assertRegex(call["id"], CALL_ID)
        self.assertEqual(call["status"], "ringing")
        self.assertEqual(call["ai_handler"], "none")

        # Any ordinary number rings 5 s, is answered, talks 60 s (CONTRACT §7).
        moved = self.session.advance("65s")

        self.assertEqual(moved["now"], "2026-01-01T00:01:05.000Z")
        self.assertEqual([e["type"] for e in moved["events"]], ["call.answered", "call.completed"])
        fetched = self.api.get_call(call["id"])
        self.assertEqual(fetched.status, 200)
        self.assertEqual(fetched.json["status"], "completed")
        self.assertEqual(fetched.json["disposition"], "answered")
        self.assertEqual(fetched.json["duration"], 60)

    def test_an_ai_receptionist_answers_and_the_recording_and_transcript_follow(self):
        call = self.api.create_call("+14155550123", ai_receptionist=True).json
        self.assertNotEqual(call["ai_handler"], "none")

        moved = self.session.advance("2m")

        # Recording ready 10 s after the end, transcript 20 s after that.
        self.assertEqual(
            [(e["type"], e["created_at"]) for e in moved["events"]],
            [
                ("call.answered", "2026-01-01T00:00:05.000Z"),
                ("call.completed", "2026-01-01T00:01:05.000Z"),
                ("recording.ready", "2026-01-01T00:01:15.000Z"),
                ("transcript.ready", "2026-01-01T00:01:35.000Z"),
            ],
        )
        done = self.api.get_call(call["id"]).json
        self.assertEqual(done["answered_by"], "ai_receptionist")
        self.assertRegex(done["recording_id"], r"^rec_[0-9A-Za-z]{16}$")
        # The session's event log has everything, call.started (emitted at creation) included.
        self.assertEqual(
            [e["type"] for e in self.session.events()],
            ["call.started", "call.answered", "call.completed", "recording.ready", "transcript.ready"],
        )

    def test_the_magic_numbers_of_the_simulated_network(self):
        unreachable = self.api.create_call("+15005550001")
        self.assertEqual(unreachable.status, 422)
        self.assertEqual(unreachable.error["code"], "unreachable_destination")

        busy = self.api.create_call("+15005550002").json
        no_answer = self.api.create_call("+15005550003").json
        self.session.advance("30s")

        self.assertEqual(self.api.get_call(busy["id"]).json["disposition"], "busy")
        self.assertEqual(self.api.get_call(no_answer["id"]).json["disposition"], "no_answer")


if __name__ == "__main__":
    unittest.main()
