"""SandboxTestCase: unittest's way to a fresh session per test, on the process's one server."""

from __future__ import annotations

import io
import unittest
from typing import Dict, List

from sdk import Client

from svc_sandbox import SandboxTestCase, Server


def run(case: type) -> unittest.TestResult:
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def test_each_test_gets_a_fresh_session_deleted_after_it() -> None:
    seen: Dict[str, Dict[str, str]] = {}

    class CallTest(SandboxTestCase):
        sandbox_options = {"seed": 42}

        def setUp(self) -> None:  # no super().setUp(): the session is made on first use
            self.client = Client(self.sandbox.api_key or "", self.sandbox.base_url)

        def test_one(self) -> None:
            self.assertEqual(self.client.send("POST", "/v1/calls", {"to": "+14155550123", "from": "+14155550100"}).status, 201)
            self.sandbox.advance("65s")
            seen["one"] = {"id": self.sandbox.id, "key": self.client.api_key, "now": self.sandbox.info()["now"]}

        def test_two(self) -> None:
            self.assertEqual(self.sandbox.info()["seed"], 42)
            seen["two"] = {"id": self.sandbox.id, "key": self.client.api_key, "now": self.sandbox.info()["now"]}

    result = run(CallTest)

    assert result.wasSuccessful(), result.failures + result.errors
    assert seen["one"]["id"] != seen["two"]["id"]
    assert (seen["one"]["now"], seen["two"]["now"]) == ("2026-01-01T00:01:05.000Z", "2026-01-01T00:00:00.000Z")
    for test in seen.values():  # closed after the test: its key is refused
        assert Client(test["key"], Server.start().url).send("GET", "/v1/calls").status == 401


def test_a_test_that_never_uses_the_sandbox_makes_no_session() -> None:
    before: List[str] = [s["id"] for s in Server.start().sessions()]

    class Quiet(SandboxTestCase):
        def test_nothing(self) -> None:
            self.assertTrue(True)

    assert run(Quiet).wasSuccessful()
    assert [s["id"] for s in Server.start().sessions()] == before
