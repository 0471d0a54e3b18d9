"""``time.sleep`` turned into virtual time: what ``Session.fake_sleep()`` installs.

One dispatcher replaces ``time.sleep`` while at least one fake is active, whichever threads
entered and left them and in whatever order. A sleep goes to the innermost fake the calling
thread itself entered, else to the fake entered last by any thread (an SDK's worker threads
sleep in the test's session), else to the sleep that was in place before.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Callable, List, Optional, Type

if TYPE_CHECKING:
    from .session import Session

_real_sleep: Callable[[float], None] = time.sleep
_lock = threading.Lock()
_active: List["FakeSleep"] = []
_local = threading.local()
_previous: Optional[Callable[..., None]] = None


def _dispatch(secs: float) -> None:
    stack: List[FakeSleep] = getattr(_local, "stack", [])
    fake = stack[-1] if stack else (_active[-1] if _active else None)
    if fake is None:
        # A reference taken while faking (`from time import sleep` inside the block) outlives it.
        (_previous or _real_sleep)(secs)
    else:
        fake(secs)


class FakeSleep:
    """While entered, ``time.sleep(x)`` advances the session's virtual clock instead of sleeping.

    A sleep lasts until virtual time reaches the virtual now at which it began plus ``x``: 250
    threads that sleep 0.6 s at the same virtual instant move the clock 0.6 s, not 150 s. It
    also records each sleep (``calls``), as a mock of ``time.sleep`` would, so a test can assert
    the back-off schedule. Code that did ``from time import sleep`` before keeps the real one:
    give such code ``session.sleep`` instead.

    Example::

        with svc_sandbox.fake_sleep() as sleeps:
            client.list_calls()          # gets 429, sleeps Retry-After: 1, retries
        assert sleeps.calls == [1.0]
    """

    def __init__(self, session: "Session") -> None:
        self.session = session
        self.calls: List[float] = []
        self._recorded = threading.Condition()
        self._stack: Optional[List[FakeSleep]] = None

    def __call__(self, seconds: float) -> None:
        target = self.session._sleep_target(seconds)
        with self._recorded:
            self.calls.append(float(seconds))
            self._recorded.notify_all()
        self.session._sleep_until(target)

    @property
    def call_count(self) -> int:
        return len(self.calls)

    def wait_for(self, count: int, timeout: float = 10.0) -> List[float]:
        """Blocks until ``count`` sleeps have begun (other threads' included), at most ``timeout`` real seconds."""
        with self._recorded:
            if not self._recorded.wait_for(lambda: len(self.calls) >= count, timeout):
                raise AssertionError(f"expected {count} sleeps within {timeout:g} s, got {len(self.calls)}: {self.calls}")
            return list(self.calls)

    def __enter__(self) -> "FakeSleep":
        global _previous
        self.session._refresh_now()  # a sleep's start is read locally, so concurrent sleepers agree on it
        stack = _local.__dict__.setdefault("stack", [])
        with _lock:
            if not _active:
                _previous = time.sleep
            _active.append(self)
            stack.append(self)
            self._stack = stack
            time.sleep = _dispatch
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        global _previous
        with _lock:
            _remove(_active, self)
            if self._stack is not None:
                _remove(self._stack, self)
            if not _active:
                if time.sleep is _dispatch:
                    time.sleep = _previous or _real_sleep
                _previous = None


def _remove(fakes: List[FakeSleep], fake: FakeSleep) -> None:
    for index in range(len(fakes) - 1, -1, -1):
        if fakes[index] is fake:
            del fakes[index]
            return
