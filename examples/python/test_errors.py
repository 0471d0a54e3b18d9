"""Errors as the SDK sees them: the error envelope, auth, rate limits, and the control API's refusals."""

import os
import unittest

from sandbox_client import API_BASE_URL, SANDBOX_URL, Api, Session, http
from sandbox_testcase import SandboxTestCase

REQUEST_ID = r"^req_[0-9A-Za-z]{16}$"
START = 1767225600  # 2026-01-01T00:00:00Z, where every session's virtual clock starts


class ApiErrorTest(SandboxTestCase):
    def test_a_bad_body_is_400_naming_the_field_and_the_fix(self):
        answer = self.api.create_call("4155550123")

        self.assertEqual(answer.status, 400)
        self.assertEqual(answer.error["code"], "invalid_parameter")
        self.assertEqual(answer.error["param"], "to")
        self.assertIn("E.164", answer.error["message"])

        missing = self.api.request("POST", "/v1/calls", {"from": "+14155550100"})
        self.assertEqual((missing.status, missing.error["code"], missing.error["param"]), (400, "missing_parameter", "to"))

        broken = self.api.request("POST", "/v1/calls", b'{"to": "+14155550123",')
        self.assertEqual((broken.status, broken.error["code"]), (400, "invalid_json"))

    def test_an_unknown_event_name_is_400_with_a_suggestion(self):
        answer = self.api.subscribe("http://127.0.0.1:9/hooks", ["call.start"])

        self.assertEqual((answer.status, answer.error["param"]), (400, "events[0]"))
        self.assertIn('did you mean "call.started"', answer.error["message"])

    def test_keys_missing_or_live_are_401(self):
        no_key = http("GET", API_BASE_URL + "/v1/calls")
        self.assertEqual((no_key.status, no_key.error["code"]), (401, "invalid_api_key"))

        live = Api("SVC_LIVE_0123456789").list_calls()
        self.assertEqual((live.status, live.error["code"]), (401, "live_key_not_allowed"))

    def test_another_sessions_call_is_404(self):
        call = self.api.create_call("+14155550123").json
        other = Session.create(seed=self.SEED)
        try:
            answer = Api(other.api_key).get_call(call["id"])
            self.assertEqual((answer.status, answer.error["code"]), (404, "not_found"))
        finally:
            other.delete()

    def test_every_response_carries_request_id_and_rate_limit_headers(self):
        answers = {
            201: self.api.create_call("+14155550123"),
            200: self.api.list_calls(),
            400: self.api.create_call("bad"),
            401: Api("SVC_LIVE_0123456789").list_calls(),
            404: self.api.get_call("call_0000000000000000"),
            422: self.api.create_call("+15005550001"),
        }
        for status, answer in answers.items():
            with self.subTest(status=status):
                self.assertEqual(answer.status, status)
                self.assertRegex(answer.headers["X-Request-Id"], REQUEST_ID)
                self.assertEqual(answer.headers["X-RateLimit-Limit"], "100")
                self.assertGreaterEqual(int(answer.headers["X-RateLimit-Remaining"]), 0)
                self.assertRegex(answer.headers["X-RateLimit-Reset"], r"^\d+$")
        # Windows are one second of the session's virtual clock: the first one ends at START + 1.
        self.assertEqual(int(answers[201].headers["X-RateLimit-Reset"]), START + 1)

    def test_the_101st_request_in_a_virtual_second_is_429(self):
        for _ in range(100):
            self.assertEqual(self.api.list_calls().status, 200)

        limited = self.api.list_calls()

        self.assertEqual((limited.status, limited.error["code"]), (429, "rate_limited"))
        self.assertEqual(limited.headers["X-RateLimit-Remaining"], "0")
        self.assertGreaterEqual(int(limited.headers["Retry-After"]), 1)
        self.session.advance("1s")  # the next window, without waiting a real second
        self.assertEqual(self.api.list_calls().status, 200)


class ControlApiErrorTest(SandboxTestCase):
    def test_bad_control_input_is_400_naming_the_field(self):
        cases = [
            ("POST", "/advance", {"duration": "soon"}, "duration"),
            ("POST", "/advance", {}, "duration"),
            ("PUT", "/network/%2B14155550123", {"outcome": "bussy"}, "outcome"),
            ("POST", "/faults", {"path": "/v1/calls", "status": 404}, "status"),
        ]
        for method, path, body, field in cases:
            with self.subTest(path=path, body=body):
                answer = self.session.control(method, path, body)
                self.assertEqual(answer.status, 400)
                self.assertIn(answer.error["code"], ("invalid_parameter", "missing_parameter"))
                self.assertEqual(answer.error["param"], field)
                self.assertIn(field, answer.error["message"])

    def test_an_unknown_session_is_404(self):
        answer = http("POST", SANDBOX_URL + "/sessions/ses_doesNotExist0000/advance", {"duration": "1s"})

        self.assertEqual((answer.status, answer.error["code"]), (404, "not_found"))

    def test_the_server_is_up_and_the_default_sessions_key_works(self):
        self.assertEqual(http("GET", SANDBOX_URL + "/health").json, {"status": "ok"})
        # SVC_API_KEY, set by `svc-sandbox exec`, is a test key of the shared `default` session
        # (as is any SVC_TEST_ key that no session made).
        default_key = os.environ.get("SVC_API_KEY", "SVC_TEST_python_examples")
        self.assertEqual(Api(default_key).list_calls().status, 200)


if __name__ == "__main__":
    unittest.main()
