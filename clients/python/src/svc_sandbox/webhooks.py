"""Checking a webhook's signature, as the service's SDKs' ``verifyWebhook()`` does."""

from __future__ import annotations

import hashlib
import hmac
from typing import Optional, Union


def verify_webhook(raw_body: Union[bytes, bytearray, memoryview, str], signature: Optional[str], secret: str) -> bool:
    """Whether ``signature`` (the ``X-Service-Signature`` header) signs ``raw_body`` with ``secret``.

    The signature is the lowercase hex HMAC-SHA256 of the exact bytes received, keyed with the
    whole ``whsec_…`` secret; the comparison takes constant time. Verify the raw body before
    parsing it: JSON parsed and serialised again is other bytes. A ``str`` body is encoded as
    UTF-8. A missing signature (None) is False.

    Example::

        assert verify_webhook(request.body, request.headers["X-Service-Signature"], subscription["secret"])
    """
    if signature is None:
        return False
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    expected = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), signature.encode("utf-8", "replace"))
