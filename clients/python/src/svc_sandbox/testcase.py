"""``SandboxTestCase``: unittest's way, a fresh session per test on the process's one server."""

from __future__ import annotations

import unittest
from typing import Any, ClassVar, Dict, Optional

from .server import Server
from .session import Session


class SandboxTestCase(unittest.TestCase):
    """A ``unittest.TestCase`` whose ``self.sandbox`` is a fresh :class:`Session` per test.

    The session is made when a test first uses ``self.sandbox`` (so ``setUp`` may use it, and
    an overridden ``setUp`` need not call ``super()``) and deleted after the test, with its
    cleanups. The server is the process's one (:meth:`Server.start`), started at the first use.
    ``sandbox_options`` are :meth:`Server.session`'s keyword arguments.

    Example::

        class CallTest(SandboxTestCase):
            sandbox_options = {"seed": 42}

            def test_a_call_completes(self):
                client = MySdk(api_key=self.sandbox.api_key, base_url=self.sandbox.base_url)
                ...
                self.sandbox.advance("65s")
    """

    sandbox_options: ClassVar[Dict[str, Any]] = {}
    _sandbox: Optional[Session] = None

    @property
    def sandbox(self) -> Session:
        if self._sandbox is None:
            self._sandbox = Server.start().session(**self.sandbox_options)
            self.addCleanup(self._sandbox.close)
        return self._sandbox
