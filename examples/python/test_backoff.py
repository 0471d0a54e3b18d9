"""Testing back-off: the SDK sleeps Retry-After seconds; under fake_sleep those are virtual seconds.

The SDK is left as it is. `svc_sandbox.fake_sleep()` makes `time.sleep(x)` advance the session's
clock by x instead of sleeping, so the retry lands exactly when the server allows it, and the
test takes milliseconds. An SDK that takes a sleep function gets `svc_sandbox.sleep` instead.
"""

from sdk import Api


def test_a_503_with_retry_after_is_retried_after_that_many_virtual_seconds(svc_sandbox):
    svc_sandbox.inject_fault(method="POST", path="/v1/calls", status=503, retry_after=2, times=2)
    api = Api(svc_sandbox.api_key, svc_sandbox.base_url, retries=3)

    with svc_sandbox.fake_sleep() as sleeps:
        created = api.create_call("+14155550123")

    assert created.status == 201
    assert sleeps.calls == [2, 2]  # the back-off schedule, as a mock of time.sleep would record it
    assert created.json["created_at"] == "2026-01-01T00:00:04.000Z"


def test_a_burst_over_the_rate_limit_waits_out_the_window_and_passes(svc_sandbox):
    api = Api(svc_sandbox.api_key, svc_sandbox.base_url, retries=3)

    with svc_sandbox.fake_sleep() as sleeps:
        statuses = [api.list_calls().status for _ in range(150)]  # 100 a second on a standard key

    assert statuses == [200] * 150
    assert sleeps.calls == [1]  # the 101st got 429 with Retry-After: 1, slept it, and went through
    assert svc_sandbox.now().isoformat() == "2026-01-01T00:00:01+00:00"


def test_an_sdk_that_takes_a_sleep_function(svc_sandbox):
    svc_sandbox.inject_fault(method="POST", path="/v1/calls", status=429, retry_after=5)
    api = Api(svc_sandbox.api_key, svc_sandbox.base_url, retries=1, sleep=svc_sandbox.sleep)

    created = api.create_call("+14155550123")  # time.sleep untouched: nothing patched

    assert created.json["created_at"] == "2026-01-01T00:00:05.000Z"
