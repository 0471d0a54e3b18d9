"""fake_sleep and Session.sleep: time.sleep(x) moves the session's virtual clock by x, exactly, in any thread."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, List

import pytest
from conftest import ClockGate
from sdk import Client

from svc_sandbox import Session

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
REAL_SLEEP = time.sleep


def run_threads(count: int, target: Callable[[], None]) -> List[threading.Thread]:
    threads = [threading.Thread(target=target, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads


def join_all(threads: List[threading.Thread], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "threads still asleep after the clock moved"


def test_time_sleep_advances_the_virtual_clock_instead_of_sleeping(svc_sandbox: Session) -> None:
    began = time.monotonic()
    with svc_sandbox.fake_sleep() as sleeps:
        time.sleep(90)
        time.sleep(0.25)
        time.sleep(timedelta(minutes=1).total_seconds())

    assert svc_sandbox.now() == START + timedelta(seconds=150.25)
    assert sleeps.calls == [90.0, 0.25, 60.0]
    assert time.monotonic() - began < 10  # two and a half minutes of sleep, in virtual time only
    assert time.sleep is REAL_SLEEP


def test_a_sleep_runs_what_falls_due_meanwhile(svc_sandbox: Session, client: Client) -> None:
    call = client.send("POST", "/v1/calls", {"to": "+14155550123", "from": "+14155550100"}).json

    with svc_sandbox.fake_sleep():
        time.sleep(65)

    assert client.send("GET", f"/v1/calls/{call['id']}").json["status"] == "completed"


def test_sleep_zero_yields_and_does_not_move_the_clock(svc_sandbox: Session) -> None:
    with svc_sandbox.fake_sleep() as sleeps:
        time.sleep(0)
    svc_sandbox.sleep(0)

    assert sleeps.calls == [0.0]
    assert svc_sandbox.now() == START


def test_a_sleep_ends_at_its_start_plus_its_length_whatever_moved_the_clock_meanwhile(svc_sandbox: Session) -> None:
    with svc_sandbox.fake_sleep():
        svc_sandbox.advance("10s")
        time.sleep(5)

    assert svc_sandbox.now() == START + timedelta(seconds=15)


@pytest.mark.svc_sandbox(webhook_timeout="60s")
def test_250_threads_sleeping_at_one_virtual_instant_move_the_clock_once(svc_sandbox: Session, client: Client, clock_gate: ClockGate) -> None:
    # The first sleeper's advance stops at 0.5 s until every thread has begun its sleep at 0 s.
    clock_gate.close_at(svc_sandbox, client, "500ms")
    with svc_sandbox.fake_sleep() as sleeps:
        threads = run_threads(250, lambda: time.sleep(0.6))
        sleeps.wait_for(250)
        clock_gate.open()
        join_all(threads)

    assert svc_sandbox.now() == START + timedelta(milliseconds=600)  # not 250 × 0.6 s
    assert sleeps.calls == [0.6] * 250


@pytest.mark.svc_sandbox(webhook_timeout="60s")
def test_overlapping_sleeps_of_different_lengths_end_at_the_longest(svc_sandbox: Session, client: Client, clock_gate: ClockGate) -> None:
    clock_gate.close_at(svc_sandbox, client, "500ms")
    with svc_sandbox.fake_sleep() as sleeps:
        threads = [threading.Thread(target=time.sleep, args=(seconds,), daemon=True) for seconds in (1, 3, 2)]
        for thread in threads:
            thread.start()
        sleeps.wait_for(3)
        clock_gate.open()
        join_all(threads)

    assert svc_sandbox.now() == START + timedelta(seconds=3)


@pytest.mark.svc_sandbox(webhook_timeout="60s")
def test_an_sdk_backing_off_on_429_passes_exactly_under_fake_sleep(svc_sandbox: Session, client: Client, clock_gate: ClockGate) -> None:
    # 150 requests at once with a standard key (100 a second): 50 answered 429 with Retry-After: 1.
    # The SDK sleeps it, unchanged: time.sleep is the session's clock. Those 50 retry in the next
    # second of virtual time and pass; the clock moved exactly that one second.
    clock_gate.close_at(svc_sandbox, client, "500ms")
    sdk = Client(svc_sandbox.create_key()["key"], svc_sandbox.base_url)  # a key of its own: 100 requests a second
    statuses: List[int] = []

    def list_calls() -> None:
        statuses.append(sdk.request("GET", "/v1/calls").status)

    with svc_sandbox.fake_sleep() as sleeps:
        threads = run_threads(150, list_calls)
        # 50 refused means all 150 were counted in the first second: now the clock may move.
        sleeps.wait_for(50)
        clock_gate.open()
        join_all(threads)

    assert statuses == [200] * 150
    assert sleeps.calls == [1.0] * 50
    assert svc_sandbox.now() == START + timedelta(seconds=1)
    journal = [(r["status"], r["at"]) for r in svc_sandbox.requests() if r["path"] == "/v1/calls" and r["method"] == "GET"]
    assert sorted(status for status, _ in journal) == [200] * 150 + [429] * 50
    retried = [at for status, at in journal[150:]]
    assert retried == ["2026-01-01T00:00:01.000Z"] * 50  # each retry after its Retry-After, none early


def test_an_sdk_that_takes_a_sleep_function_gets_session_sleep(svc_sandbox: Session) -> None:
    svc_sandbox.inject_fault(path="/v1/calls", status=503, retry_after=2, times=2)
    sdk = Client(svc_sandbox.api_key or "", svc_sandbox.base_url, sleep=svc_sandbox.sleep)

    answer = sdk.request("POST", "/v1/calls", {"to": "+14155550123", "from": "+14155550100"})

    assert answer.status == 201
    assert answer.json["created_at"] == "2026-01-01T00:00:04.000Z"  # two Retry-After: 2 slept in virtual time
    assert time.sleep is REAL_SLEEP  # nothing patched


def test_code_that_imported_sleep_before_keeps_the_real_one(svc_sandbox: Session) -> None:
    from time import sleep as imported_before

    with svc_sandbox.fake_sleep() as sleeps:
        assert time.sleep is not REAL_SLEEP
        assert imported_before is REAL_SLEEP
        imported_before(0.001)

    assert sleeps.calls == []
    assert svc_sandbox.now() == START


def test_nested_fakes_restore_in_turn_and_the_inner_session_wins(svc_sandbox: Session) -> None:
    other = svc_sandbox.server.session()
    try:
        with svc_sandbox.fake_sleep():
            with other.fake_sleep():
                time.sleep(7)
            patched = time.sleep
            time.sleep(3)
        assert patched is not REAL_SLEEP
        assert time.sleep is REAL_SLEEP
        assert other.now() == START + timedelta(seconds=7)
        assert svc_sandbox.now() == START + timedelta(seconds=3)
    finally:
        other.close()


def test_fakes_of_two_threads_leaving_out_of_order_keep_each_others_patch(svc_sandbox: Session) -> None:
    other = svc_sandbox.server.session()
    entered = threading.Barrier(2, timeout=10)
    first_left = threading.Event()
    seen: List[object] = []

    def worker() -> None:
        with other.fake_sleep():
            entered.wait()
            first_left.wait(10)
            seen.append(time.sleep)  # the main thread's fake is gone; this one still holds
            time.sleep(4)  # this thread's own fake: the other session

    thread = threading.Thread(target=worker, daemon=True)
    try:
        with svc_sandbox.fake_sleep():
            thread.start()
            entered.wait()
            time.sleep(1)  # the main thread's own fake
        first_left.set()
        thread.join(10)
        assert seen and seen[0] is not REAL_SLEEP
        assert time.sleep is REAL_SLEEP
        assert svc_sandbox.now() == START + timedelta(seconds=1)
        assert other.now() == START + timedelta(seconds=4)
    finally:
        other.close()


def test_bad_lengths_are_refused_as_time_sleep_refuses_them(svc_sandbox: Session) -> None:
    with svc_sandbox.fake_sleep():
        with pytest.raises(ValueError, match="non-negative"):
            time.sleep(-1)
        with pytest.raises(ValueError, match="NaN"):
            time.sleep(float("nan"))
        with pytest.raises(TypeError):
            time.sleep("1")  # type: ignore[arg-type]
    assert svc_sandbox.now() == START


def test_the_real_sleep_is_back_after_an_exception(svc_sandbox: Session) -> None:
    with pytest.raises(RuntimeError):
        with svc_sandbox.fake_sleep():
            raise RuntimeError("boom")
    assert time.sleep is REAL_SLEEP
