"""verify_webhook: the SDKs' verifyWebhook() in Python, on the exact bytes received."""

from __future__ import annotations

import hashlib
import hmac

from svc_sandbox import verify_webhook

SECRET = "whsec_9fJ2kL5mN8pQ1rS4tV7wX0yZ"
BODY = b'{"id":"evt_3Ld8Qw1Zk5Ns9Hy6","type":"call.completed","created_at":"2026-01-01T00:01:05.000Z","data":{}}'
SIGNATURE = hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()


def test_the_signature_of_the_raw_body_verifies() -> None:
    assert verify_webhook(BODY, SIGNATURE, SECRET) is True
    assert verify_webhook(bytearray(BODY), SIGNATURE, SECRET) is True
    assert verify_webhook(BODY.decode(), SIGNATURE, SECRET) is True  # a str body, as UTF-8


def test_anything_else_does_not() -> None:
    assert verify_webhook(BODY + b" ", SIGNATURE, SECRET) is False  # re-serialised JSON is other bytes
    assert verify_webhook(BODY, SIGNATURE, "whsec_not_the_secret") is False
    assert verify_webhook(BODY, SIGNATURE.upper(), SECRET) is False  # lowercase hex only
    assert verify_webhook(BODY, SIGNATURE[:-1], SECRET) is False
    assert verify_webhook(BODY, "", SECRET) is False
    assert verify_webhook(BODY, None, SECRET) is False
    assert verify_webhook(BODY, "é" * 64, SECRET) is False
