"""The suite's fixtures, on top of the svc_sandbox plugin (pip install svc-sandbox loads it).

`svc_sandbox` is a fresh session per test (its own virtual clock, seed, ids, accounts); these
give each test what its code would hold: the SDK pointed at that session, and a webhook receiver.
"""

import pytest
from sdk import Api
from webhook_receiver import WebhookReceiver


@pytest.fixture
def svc_sandbox_options():
    """Same seed, same requests = same ids, so a failure reproduces exactly."""
    return {"seed": 42}


@pytest.fixture
def api(svc_sandbox):
    """The SDK with the session's key, which routes to that session on the one /v1 base URL."""
    return Api(svc_sandbox.api_key, svc_sandbox.base_url)


@pytest.fixture
def receiver():
    """A webhook receiver on 127.0.0.1 for the test's length; the sandbox POSTs signed events to it."""
    receiver = WebhookReceiver().start()
    yield receiver
    receiver.stop()


@pytest.fixture
def subscribe(api, receiver):
    """Subscribes the receiver to events; returns the subscription, its secret included."""

    def subscribe(events):
        answer = api.subscribe(receiver.url, events)
        assert answer.status == 201, answer
        return answer.json

    return subscribe
