"""Sessions: each one a sandbox of its own, deterministic from its seed, isolated in time and state."""

import unittest

from sandbox_client import Api, Session
from sandbox_testcase import SandboxTestCase


class DeterminismTest(SandboxTestCase):
    def test_two_sessions_with_the_same_seed_give_the_same_ids(self):
        twin = Session.create(seed=self.SEED)
        self.addCleanup(twin.delete)
        twin_api = Api(twin.api_key)

        mine = [self.api.create_call("+14155550123").json["id"] for _ in range(3)]
        theirs = [twin_api.create_call("+14155550123").json["id"] for _ in range(3)]

        self.assertEqual(mine, theirs)
        self.assertEqual(len(set(mine)), 3)
        self.assertNotEqual(twin.id, self.session.id)

    def test_a_different_seed_gives_different_ids(self):
        other = Session.create(seed=self.SEED + 1)
        self.addCleanup(other.delete)

        mine = self.api.create_call("+14155550123").json["id"]
        theirs = Api(other.api_key).create_call("+14155550123").json["id"]

        self.assertNotEqual(mine, theirs)


class IsolationTest(SandboxTestCase):
    def test_time_in_one_session_does_not_move_another(self):
        other = Session.create(seed=self.SEED)
        self.addCleanup(other.delete)
        mine = self.api.create_call("+14155550123").json
        theirs = Api(other.api_key).create_call("+14155550123").json

        self.session.advance("65s")

        self.assertEqual(self.api.get_call(mine["id"]).json["status"], "completed")
        self.assertEqual(Api(other.api_key).get_call(theirs["id"]).json["status"], "ringing")
        self.assertEqual(other.now(), "2026-01-01T00:00:00.000Z")

    def test_reset_empties_the_session_and_its_key_keeps_working(self):
        first_id = self.api.create_call("+14155550123").json["id"]
        self.session.advance("2m")
        self.assertEqual(len(self.api.list_calls().json["data"]), 1)

        self.session.reset()  # POST /__sandbox/sessions/{id}/reset -> 204

        calls = self.api.list_calls()
        self.assertEqual(calls.status, 200)
        self.assertEqual(calls.json["data"], [])
        self.assertEqual(self.session.events(), [])
        self.assertEqual(self.session.now(), "2026-01-01T00:00:00.000Z")
        # Reset means "as new": the same seed gives the same first id again.
        self.assertEqual(self.api.create_call("+14155550123").json["id"], first_id)

    def test_a_deleted_sessions_key_is_401(self):
        doomed = Session.create(seed=self.SEED)
        api = Api(doomed.api_key)
        self.assertEqual(api.list_calls().status, 200)

        doomed.delete()

        answer = api.list_calls()
        self.assertEqual((answer.status, answer.error["code"]), (401, "invalid_api_key"))
        self.assertEqual(doomed.control("POST", "/advance", {"duration": "1s"}).status, 404)

    def test_a_deleted_sessions_401_carries_the_headers_of_every_response(self):
        doomed = Session.create(seed=self.SEED)
        doomed.delete()

        answer = Api(doomed.api_key).list_calls()

        self.assertEqual(answer.status, 401)
        self.assertIsNotNone(answer.headers["X-Request-Id"])
        self.assertIsNotNone(answer.headers["X-RateLimit-Limit"])


if __name__ == "__main__":
    unittest.main()
